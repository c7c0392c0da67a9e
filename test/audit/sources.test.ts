/** The audit's readers on files written here, one per format: what each prompt holds, and bad input. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/core/errors.js';
import { imageOfDataUrl, metadataSegments } from '../../src/audit/images.js';
import { NO_TASK, readCompletionsFile } from '../../src/audit/sources/completions.js';
import { readEpisodeFile } from '../../src/audit/sources/episodes.js';
import { runTreeFiles } from '../../src/files.js';
import { readPromptFile } from '../../src/audit/sources/prompt-file.js';
import { readTraceFile } from '../../src/audit/sources/traces.js';
import { tasksFromWorkspace } from '../../src/audit/sources/tasks.js';
import { readWorkspaceEpisodes } from '../../src/audit/sources/workspace.js';
import type { AuditPrompt } from '../../src/audit/types.js';
import { saveEpisode } from '../../src/store/episodes.js';
import { storeImage } from '../../src/store/images.js';
import { importTaskFile } from '../../src/store/task-sets.js';
import { completedEpisode, completedRecord, failedRecord, makeJpeg } from '../helpers/episodes.js';
import { makeTask, tempDir, writeJsonl } from '../helpers/fixtures.js';
import { writeParquet } from '../helpers/parquet.js';
import { tempWorkspaces } from '../helpers/workspaces.js';

async function all(prompts: AsyncIterable<AuditPrompt>): Promise<AuditPrompt[]> {
  const out: AuditPrompt[] = [];
  for await (const p of prompts) out.push(p);
  return out;
}

function write(dir: string, name: string, lines: unknown[]): string {
  const file = join(dir, name);
  writeFileSync(file, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n');
  return file;
}

async function rejection(promise: Promise<unknown>): Promise<InputError> {
  const err = await promise.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(InputError);
  return err as InputError;
}

describe('prompt files', () => {
  it('reads OpenAI messages with their authors, data-URL and path images, tool-call points and the task', async () => {
    const dir = tempDir();
    const jpeg = await makeJpeg(1);
    writeFileSync(join(dir, 'view-abc.jpg'), jpeg);
    const file = write(dir, 'prompts.jsonl', [
      {
        id: 'p1',
        task_id: 'eval-00003',
        messages: [
          { role: 'system', content: 'Play GeoGuesser.' },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Your view:' },
              { type: 'image_url', image_url: { url: `data:image/jpeg;base64,${jpeg.toString('base64')}` } },
              { type: 'image_url', image_url: { url: 'view-abc.jpg' } },
            ],
          },
          { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'pin', arguments: '{"lat": 44.8, "lon": 20.45}' } }] },
          { role: 'tool', name: 'pin', content: 'Pin 1 is in Serbia.' },
        ],
      },
      '',
      { id: 7, split: 'eval', index: 2, messages: [{ role: 'user', content: 'Where is this?' }] },
    ]);
    const [first, second] = await all(readPromptFile(file, 'prompts.jsonl'));
    expect(first).toMatchObject({ source: 'prompts.jsonl', promptId: 'p1', line: 1, task: { taskId: 'eval-00003' }, agentPoints: [{ lat: 44.8, lon: 20.45 }] });
    expect(first!.messages.map((m) => [m.role, m.author])).toEqual([
      ['system', 'harness'],
      ['user', 'harness'],
      ['assistant', 'model'],
      ['tool', 'harness'],
    ]);
    const user = first!.messages[1]!;
    // A data URL's JPEG is decoded as far as its header (all the detectors read); a file is read whole.
    expect(user.images.map((i) => i.bytes !== null && jpeg.subarray(0, i.bytes.length).equals(i.bytes))).toEqual([true, true]);
    expect(user.images[1]!.bytes).toEqual(jpeg);
    // A path is text the model's server reads; a data URL's bytes are not.
    expect(user.texts).toEqual(['Your view:', 'view-abc.jpg']);
    expect(first!.messages[3]!.texts).toEqual(['Pin 1 is in Serbia.', 'pin']);
    expect(second).toMatchObject({ promptId: '7', line: 3, task: { split: 'eval', index: 2 } });
  });

  it('names file:line and the field of a bad line; a repeated id is the run\'s to refuse', async () => {
    const dir = tempDir();
    const noMessages = write(dir, 'a.jsonl', [{ id: 'a', task_id: 't', messages: [] }, { id: 'b', task_id: 't', messages: [{ role: 'user', content: 5 }] }]);
    const bad = await rejection(all(readPromptFile(noMessages, 'a.jsonl')));
    expect(bad.message).toContain(`${noMessages}:2`);
    expect(bad.message).toContain('messages[0].content');
    const noTask = write(dir, 'b.jsonl', [{ id: 'a', messages: [] }]);
    expect((await rejection(all(readPromptFile(noTask, 'b.jsonl')))).message).toMatch(/:1, field split: expected "task_id", or "split" and "index"/);
    const twice = write(dir, 'c.jsonl', [{ id: 'a', task_id: 't', messages: [] }, { id: 'a', task_id: 't', messages: [] }]);
    // The run sees every range of a file (a parallel read's too), so it, not the reader, checks ids (daily-use.test.ts).
    expect((await all(readPromptFile(twice, 'c.jsonl'))).map((p) => p.line)).toEqual([1, 2]);
    const notJson = write(dir, 'd.jsonl', ['{"id": "a"']);
    expect((await rejection(all(readPromptFile(notJson, 'd.jsonl')))).message).toContain(`${notJson}:1: not valid JSON`);
  });
  it('reads a line whose views are sliced out before parsing as the whole line would read', async () => {
    const dir = tempDir();
    // Noise keeps the JPEG large enough (tens of kB) to be sliced; the EXIF must survive the slicing.
    const noise = sharp({ create: { width: 160, height: 120, channels: 3, background: '#888', noise: { type: 'gaussian', mean: 128, sigma: 40 } } });
    const jpeg = await noise.jpeg().withExif({ IFD0: { Make: 'Acme', Artist: 'walker_7' } }).toBuffer();
    const url = `data:image/jpeg;base64,${jpeg.toString('base64')}`;
    expect(url.length).toBeGreaterThan(4096);
    const message = { role: 'user', content: [{ type: 'text', text: url }, { type: 'image_url', image_url: { url } }, { type: 'image', image: url }, { type: 'image_url', image_url: url }] };
    const file = join(dir, 'p.jsonl');
    // A BOM, CRLF line ends, and a line that is not JSON after one that is.
    writeFileSync(file, `\uFEFF${JSON.stringify({ id: 'a', task_id: 't', messages: [message] })}\r\n${JSON.stringify({ id: 'b', task_id: 't', messages: [message] }).slice(0, -2)}\r\n`);
    const read: AuditPrompt[] = [];
    const err = await rejection(
      (async () => {
        for await (const p of readPromptFile(file, 'p.jsonl')) read.push(p);
      })(),
    );
    let whole = '';
    try {
      JSON.parse(JSON.stringify({ id: 'b', task_id: 't', messages: [message] }).slice(0, -2));
    } catch (e) {
      whole = (e as Error).message;
    }
    expect(err.message).toBe(`${file}:2: not valid JSON: ${whole}`);
    const [prompt] = read;
    expect(prompt?.messages[0]?.texts).toEqual([url]);
    const expected = imageOfDataUrl(url);
    expect(prompt?.messages[0]?.images).toEqual([expected, expected, expected]);
    expect(expected.bytes?.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
    expect(metadataSegments(expected.bytes as Buffer).segments.map((s) => s.kind)).toEqual(['exif']);
  });
});

describe('episode files and run trees', () => {
  it('makes one prompt per played turn from recorded messages, with earlier actions as the agent points', async () => {
    const dir = tempDir();
    const { record } = await completedEpisode({ id: 'ep1', index: 4 });
    const file = write(dir, 'episodes.jsonl', [record, failedRecord()]);
    const prompts = await all(readEpisodeFile(file, 'run/episodes.jsonl'));
    // Turn 0 carries the harness's opening text only; the failed record has no turns.
    expect(prompts.map((p) => p.promptId)).toEqual(['ep1#0', 'ep1#1', 'ep1#2']);
    const [, look, pin] = prompts;
    expect(look).toMatchObject({ episodeId: 'ep1', turn: 1, line: 1, task: { taskId: 'demo-4' }, agentPoints: [], budget: { turnsLeft: 12, stepsLeft: 24 } });
    // The recorded images are named by sha256; the record keeps no image_path, so no bytes.
    expect(look!.messages[1]!.images[0]).toMatchObject({ bytes: null });
    expect(pin).toMatchObject({ turn: 2, agentPoints: [], budget: { turnsLeft: 11, stepsLeft: 23 } });
  });

  it("falls back to the harness's prompt text, with the image the previous turn showed, and reads run trees", async () => {
    const root = tempDir();
    const run = join(root, 'pass-0', 'shard-1');
    mkdirSync(run, { recursive: true });
    const jpeg = await makeJpeg(2);
    writeFileSync(join(run, 'view1.jpg'), jpeg);
    const record = completedRecord({ id: 'h1' }) as unknown as { turns: Record<string, unknown>[] };
    for (const turn of record.turns) delete turn.messages;
    record.turns[1]!.image_sha256 = 'a'.repeat(64);
    record.turns[1]!.image_path = 'view1.jpg';
    record.turns[2]!.prompt = 'Pin placed. What next?';
    record.turns[3]!.prompt = 'Guess now.';
    write(run, 'episodes.jsonl', [record]);
    const [file] = runTreeFiles(root);
    expect(file).toBe(join(run, 'episodes.jsonl'));
    const prompts = await all(readEpisodeFile(file!, 'x'));
    const pinTurn = prompts.find((p) => p.turn === 2)!;
    expect(pinTurn.messages).toEqual([{ author: 'harness', role: 'user', texts: ['Pin placed. What next?'], images: [{ ref: 'view1.jpg', bytes: jpeg }] }]);
    // The guess turn's prompt follows the pin: the pin is the agent's own point.
    expect(prompts.find((p) => p.turn === 3)?.agentPoints).toEqual([{ lat: 47.2, lon: 10.3 }, { lat: 47.2, lon: 10.3 }]);
  });

  it('reports an invalid record at file:line with the field, and a folder with no episodes', async () => {
    const dir = tempDir();
    const file = write(dir, 'episodes.jsonl', [{ schema_version: 2, episode_id: 'x', task: { split: 'eval' }, turns: [], outcome: {} }]);
    const err = await rejection(all(readEpisodeFile(file, 'e')));
    expect(err.message).toContain(`${file}:1, field task.index:`);
    expect(() => runTreeFiles(tempDir())).toThrow(/no episodes.jsonl under this folder/);
  });
});

describe('trainer traces', () => {
  it("makes each turn's feedback a prompt, the environment's budget cut, that turn's action and pins the agent's own", async () => {
    const dir = tempDir();
    const rollout = {
      run: 'qwen-run',
      step: 3,
      task: { split: 'train', index: 17 },
      outcome: { reward: 0.4, max_turns: 12 },
      turns: [
        { turn: 0, action: { op: 'reset' }, feedback: 'You are at a street. 24 actions left.', pins: [] },
        { turn: 1, action: { op: 'pin', lat: 44.01, lon: 20.9 }, feedback: 'Pin 1 placed in Serbia. 23 actions left.', pins: [[44.01, 20.9]] },
      ],
    };
    const file = write(dir, 'rollouts.jsonl', [rollout]);
    const prompts = await all(readTraceFile(file, 'traces/rollouts.jsonl'));
    expect(prompts.map((p) => [p.promptId, p.episodeId, p.messages[0]!.texts[0], p.budget?.turnsLeft])).toEqual([
      ['1#0', 'qwen-run@1', 'You are at a street.', 12],
      ['1#1', 'qwen-run@1', 'Pin 1 placed in Serbia.', 11],
    ]);
    expect(prompts[1]).toMatchObject({ task: { split: 'train', index: 17 }, agentPoints: [{ lat: 44.01, lon: 20.9 }, { lat: 44.01, lon: 20.9 }] });
    const bad = write(dir, 'bad.jsonl', [{ task: { split: 'train', index: 1 }, turns: [{ turn: 0, feedback: 3 }] }]);
    expect((await rejection(all(readTraceFile(bad, 'b')))).message).toContain(`${bad}:1, field turns[0].feedback: expected a string`);
  });
});

describe("TRL's completions parquet", () => {
  it('splits rendered ChatML into authors, keeps tool results as harness tool messages answering their calls, reads tool-call points and the task columns', async () => {
    const dir = tempDir();
    const file = join(dir, 'completions_00010.parquet');
    const prompt =
      '<|im_start|>system\nYou play GeoGuesser.<|im_end|>\n<|im_start|>user\n<|vision_start|><|image_pad|><|vision_end|>You are here.<|im_end|>\n<|im_start|>assistant\n';
    const completion =
      'Cyrillic signs.\n<tool_call>\n{"name": "pin", "arguments": {"lat": 43.5, "lon": 21.2}}\n</tool_call><|im_end|>\n' +
      '<|im_start|>user\n<tool_response>\nPin 1 is in Serbia. 11 actions left.\n</tool_response><|im_end|>\n<|im_start|>assistant\n<function=guess><parameter=lat>\n43.3\n</parameter><parameter=lon>\n21.9\n</parameter></function>';
    const messages = JSON.stringify([{ role: 'user', content: [{ type: 'text', text: 'Where?' }] }]);
    writeParquet(file, ['prompt', 'completion', 'split', 'task_id'], [
      [{ prompt, completion, split: 'train', task_id: 'train-00007' }],
      [{ prompt: messages, completion: 'I think Serbia.', split: 'train', task_id: '' }],
    ]);
    const [first, second] = await all(readCompletionsFile(file, 'completions/completions_00010.parquet'));
    expect(first).toMatchObject({ promptId: 'row 0', task: { taskId: 'train-00007' }, agentPoints: [{ lat: 43.5, lon: 21.2 }, { lat: 43.3, lon: 21.9 }] });
    expect(first!.messages.map((m) => [m.author, m.role])).toEqual([
      ['harness', 'system'],
      ['harness', 'user'],
      ['model', 'assistant'],
      ['harness', 'tool'],
      ['model', 'assistant'],
    ]);
    // The tool result answers the pin call before it.
    expect(first!.messages[3]!.answers).toEqual({ name: 'pin', points: [{ lat: 43.5, lon: 21.2 }] });
    expect(first!.messages[3]!.texts[0]).toContain('Pin 1 is in Serbia.');
    // No task column names one: audited, and reported as of an unknown task.
    expect(second).toMatchObject({ promptId: 'row 1', task: NO_TASK });
    expect(second!.messages.map((m) => [m.author, m.texts])).toEqual([
      ['harness', ['Where?']],
      ['model', ['I think Serbia.']],
    ]);
    const notParquet = join(dir, 'x.parquet');
    writeFileSync(notParquet, 'hello');
    expect((await rejection(all(readCompletionsFile(notParquet, 'x')))).message).toContain('not a usable parquet file');
    const noColumns = join(dir, 'y.parquet');
    writeParquet(noColumns, ['text'], [[{ text: 'a' }]]);
    expect((await rejection(all(readCompletionsFile(noColumns, 'y')))).message).toContain('field prompt: no "prompt" column');
  });
});

describe('workspace episodes', () => {
  const open = tempWorkspaces();

  it("reads each recorded episode's messages with the image bytes from the store", async () => {
    const ws = await open();
    const { record, images } = await completedEpisode({ id: 'w1', index: 1 });
    for (const [, image] of images) storeImage(ws, image.bytes, image.mime as 'image/jpeg' | 'image/png');
    saveEpisode(ws.db, record);
    saveEpisode(ws.db, completedRecord({ id: 'w2', index: 2, turns: 3 }));
    const prompts = await all(readWorkspaceEpisodes(ws));
    expect(prompts.map((p) => [p.source, p.promptId])).toEqual([
      ['workspace', 'w1#0'],
      ['workspace', 'w1#1'],
      ['workspace', 'w1#2'],
      ['workspace', 'w2#0'],
      ['workspace', 'w2#1'],
    ]);
    const shown = prompts[1]!.messages[1]!.images[0]!;
    expect(shown.bytes?.equals(images.get(shown.ref)!.bytes)).toBe(true);
  });

  it('audits an episode of a task set against the version it was played on, after the set is replaced (docs/splits.md, Versions)', async () => {
    const ws = await open();
    const at = (task_id: string, lat: number, lon: number, country: string) =>
      makeTask(0, { task_id, country, frames: [{ image_id: `${task_id}-a`, lat, lon, compass_angle: 10, captured_at: '2024-05', is_pano: true }] });
    const played = await importTaskFile(ws.db, writeJsonl([at('tour-nis', 43.3209, 21.8958, 'Republic of Serbia')]), 'tour');
    const record = completedRecord({ id: 'v1', split: 'tour', index: 0, turns: 3 });
    saveEpisode(ws.db, { ...record, task: { ...record.task, task_id: 'tour-nis' } });
    await importTaskFile(ws.db, writeJsonl([at('tour-lisbon', 38.7223, -9.1393, 'Portugal')]), 'tour', { replace: true });
    saveEpisode(ws.db, completedRecord({ id: 'demo', split: 'eval', index: 2, turns: 3 }));

    const prompts = await all(readWorkspaceEpisodes(ws));
    const tasks = await tasksFromWorkspace(ws);
    const ofTour = prompts.find((p) => p.episodeId === 'v1')!;
    expect(ofTour.task).toEqual({ split: 'tour', index: 0, version: played.version });
    expect(tasks.find(ofTour.task)).toMatchObject({ truth: { lat: 43.3209, lon: 21.8958 }, country: 'Republic of Serbia' });
    // Today's version is still found by split and index, and a split that is no task set as before.
    expect(tasks.find({ split: 'tour', index: 0 })).toMatchObject({ country: 'Portugal' });
    expect(prompts.find((p) => p.episodeId === 'demo')!.task).toEqual({ taskId: 'demo-2' });
  });
});
