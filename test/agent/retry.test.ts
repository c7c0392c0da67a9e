/**
 * Retrying one recorded turn (src/agent/retry.ts, docs/eval.md "Retry a turn"): a real episode is
 * recorded first by the agent against a scripted endpoint, then its turn is rebuilt and resent.
 */
import { mkdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openAgentRun } from '../../src/agent/agent-run.js';
import { modelEndpoint, modelSettings } from '../../src/agent/agent-settings.js';
import { rebuildRequest, retryTurn, withEditedMessages } from '../../src/agent/retry.js';
import { runEpisode } from '../../src/agent/runner.js';
import { isCompleted, type CompletedEpisode } from '../../src/core/episode.js';
import { episodesInFile, workspaceEpisode } from '../../src/eval/episode-refs.js';
import { imagePath, storeImage } from '../../src/store/images.js';
import type { Workspace } from '../../src/store/index.js';
import { makeJpeg, sha256 } from '../helpers/episodes.js';
import { tempDir } from '../helpers/fixtures.js';
import { startScriptedOpenAI, toolCall, toolSteps, type ScriptedOpenAI } from '../helpers/scripted-openai.js';
import { tempWorkspaces } from '../helpers/workspaces.js';

const workspace = tempWorkspaces();
const servers: ScriptedOpenAI[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function server(script: Parameters<typeof startScriptedOpenAI>[0]['script']): Promise<ScriptedOpenAI> {
  const s = await startScriptedOpenAI({ script });
  servers.push(s);
  return s;
}

/** An episode played by the agent (tools protocol): look, pin, guess; recorded in the workspace. */
async function recordEpisode(ws: Workspace, protocol: 'tools' | 'json' = 'tools') {
  const played =
    protocol === 'tools'
      ? await server(toolSteps(toolCall('look', { heading_deg: 90 }), toolCall('pin', { lat: 10, lon: 20 }), toolCall('guess', { lat: 11, lon: 21 })))
      : await server((_body, n) => ({ text: ['{"action": "look", "heading_deg": 90}', '{"action": "pin", "lat": 10, "lon": 20}', '{"action": "guess", "lat": 11, "lon": 21}'][Math.min(n, 2)]! }));
  const endpoint = { ...modelEndpoint({ model: 'scripted', baseUrl: played.baseUrl }), temperature: 0.7 };
  const { run, close } = await openAgentRun({ ...modelSettings(endpoint, { protocol, split: 'eval', index: 0 }), maxTurns: 4 }, { workspace: ws });
  try {
    const record = await runEpisode(run);
    if (!isCompleted(record)) throw new Error(`the episode failed: ${JSON.stringify(record).slice(0, 300)}`);
    return { record, played, named: await workspaceEpisode(ws, record.episode_id) };
  } finally {
    await close();
  }
}

describe('rebuildRequest', () => {
  it('rebuilds a recorded turn whose hash is the recorded one, and resends exactly what the agent sent', async () => {
    const ws = await workspace();
    const { record, played, named } = await recordEpisode(ws);
    expect(record.turns[2]!.request_sha256).toMatch(/^[0-9a-f]{64}$/);

    const request = rebuildRequest(ws, named, 2);
    expect(request.recordedSha256).toBe(record.turns[2]!.request_sha256);
    expect(request.sha256).toBe(request.recordedSha256);
    expect(request.differences).toEqual([]);
    expect(request.sampling).toMatchObject({ model: 'scripted', temperature: 0.7, max_tokens: 6144 });
    expect(request.images.size).toBeGreaterThan(0);
    expect(request.recordedReply).toMatchObject({ action: 'pin', arguments: { lat: 10, lon: 20 }, status: 'ok' });

    const retry = await server([
      { toolCalls: [{ name: 'pin', arguments: { lat: 10, lon: 20 } }] },
      { toolCalls: [{ name: 'look', arguments: { heading_deg: 180 } }] },
      { toolCalls: [{ name: 'guess', arguments: { lat: 11, lon: 21 } }] },
      { toolCalls: [{ name: 'guess', arguments: { lat: 12, lon: 21 } }] },
      { text: 'I think it is somewhere warm.' },
    ]);
    const truth = record.outcome.truth as [number, number];
    const seen: number[] = [];
    const result = await retryTurn({
      request,
      endpoint: modelEndpoint({ model: 'scripted', baseUrl: retry.baseUrl }),
      samples: 5,
      truth,
      onSample: (i) => seen.push(i),
    });
    expect(seen.sort()).toEqual([0, 1, 2, 3, 4]);
    // Every retried request is the recorded turn's, byte for byte: messages, tools and sampling.
    expect(retry.requests).toHaveLength(5);
    for (const { body } of retry.requests) {
      expect(body.messages).toEqual(played.requests[1]!.body.messages);
      expect(body.tools).toEqual(played.requests[1]!.body.tools);
      expect(body.temperature).toBe(0.7);
      expect(body.max_tokens).toBe(6144);
    }
    const actions = result.samples.map((s) => String(s.action)).sort();
    expect(actions).toEqual(['guess', 'guess', 'look', 'null', 'pin']);
    expect(result.samples.find((s) => s.action === null)).toMatchObject({ status: 'unparseable', error: 'The reply called no tool.' });
    expect(result.summary).toMatchObject({ samples: 5, sameAction: 1, recordedAction: 'pin', guesses: 2 });
    // The two guesses are one degree of latitude apart: about 111 km.
    expect(result.summary.spreadKm).toBeGreaterThan(110);
    expect(result.summary.spreadKm).toBeLessThan(112);
    const guess = result.samples.find((s) => s.guess?.[0] === 11)!;
    expect(guess.distance_km).toBeGreaterThan(0);
    expect(result.summary.meanDistanceKm).toBeGreaterThan(0);
  });

  it('says what differs when the temperature is overridden, and sends it', async () => {
    const ws = await workspace();
    const { named } = await recordEpisode(ws);
    const request = rebuildRequest(ws, named, 1, { temperature: 1.2 });
    expect(request.sha256).not.toBe(request.recordedSha256);
    expect(request.differences).toEqual(['temperature: recorded 0.7, this retry 1.2']);
    const retry = await server([{ toolCalls: [{ name: 'look', arguments: { heading_deg: 90 } }] }]);
    const result = await retryTurn({ request, endpoint: modelEndpoint({ model: 'scripted', baseUrl: retry.baseUrl }), samples: 1, truth: null });
    expect(retry.requests[0]!.body.temperature).toBe(1.2);
    expect(result.summary).toMatchObject({ samples: 1, sameAction: 1, recordedAction: 'look', guesses: 0, spreadKm: null });
  });

  it('says the tools differ when the tools a record names are no longer the ones its hash was taken over', async () => {
    const ws = await workspace();
    const { named } = await recordEpisode(ws);
    const record = structuredClone(named.record) as CompletedEpisode;
    (record.model as Record<string, unknown>).tools = 'all';
    const file = join(tempDir(), 'episodes.jsonl');
    writeFileSync(file, `${JSON.stringify(record)}\n`);
    const [changed] = await episodesInFile({ file });
    const request = rebuildRequest(ws, changed!, 2);
    expect(request.sha256).not.toBe(request.recordedSha256);
    expect(request.differences).toEqual(['tools: recorded 5 (the trained set), rebuilt 11']);
    // Nothing to explain it: the record's messages were changed since.
    const messages = record.turns[2]!.messages as { role: string; content: unknown }[];
    messages.push({ role: 'user', content: 'added later' });
    (record.model as Record<string, unknown>).tools = 'trained';
    writeFileSync(file, `${JSON.stringify(record)}\n`);
    const [edited] = await episodesInFile({ file });
    expect(rebuildRequest(ws, edited!, 2).differences[0]).toMatch(/^the recorded request hashes otherwise: .* the record was changed since/);
  });

  it('names the model turns when asked for another, and catches a changed or missing image', async () => {
    const ws = await workspace();
    const { named } = await recordEpisode(ws);
    expect(() => rebuildRequest(ws, named, 0)).toThrow(/turn 0 of episode .* is not a model turn: its model turns are 1-3/);
    expect(() => rebuildRequest(ws, named, 9)).toThrow(/its model turns are 1-3/);

    const sent = rebuildRequest(ws, named, 2);
    const [hash] = [...sent.images.keys()];
    const file = imagePath(ws, hash!)!;
    writeFileSync(file, await makeJpeg(99));
    expect(() => rebuildRequest(ws, named, 2)).toThrow(new RegExp(`image store has changed: image ${hash} \\(its bytes now hash to ${sha256(await makeJpeg(99))}\\)`));
    unlinkSync(file);
    expect(() => rebuildRequest(ws, named, 2)).toThrow(new RegExp(`has no image ${hash}.*geolab episodes import`));
  });

  it('rebuilds a JSON-protocol turn and reads replies with the JSON reader', async () => {
    const ws = await workspace();
    const { record, played, named } = await recordEpisode(ws, 'json');
    const request = rebuildRequest(ws, named, 3);
    expect(request.tools).toBeNull();
    expect(request.sha256).toBe(record.turns[3]!.request_sha256);
    const retry = await server([{ text: 'Looks like somewhere. {"action": "guess", "lat": 11, "lon": 21}' }]);
    const result = await retryTurn({ request, endpoint: modelEndpoint({ model: 'scripted', baseUrl: retry.baseUrl }), samples: 1, truth: record.outcome.truth as [number, number] });
    expect(retry.requests[0]!.body.messages).toEqual(played.requests[2]!.body.messages);
    expect(retry.requests[0]!.body.tools).toBeUndefined();
    expect(result.samples[0]).toMatchObject({ action: 'guess', arguments: { lat: 11, lon: 21 }, guess: [11, 21] });
    expect(result.summary).toMatchObject({ sameAction: 1, recordedAction: 'guess', guesses: 1, spreadKm: 0 });
  });

  it('sends edited messages, with a hash that is no longer the recorded one', async () => {
    const ws = await workspace();
    const { named } = await recordEpisode(ws);
    const request = rebuildRequest(ws, named, 1);
    const messages = structuredClone(request.messages);
    const first = messages[0]!;
    if (typeof first.content === 'string') first.content = 'Edited instructions.';
    else first.content = first.content.map((p) => (p.type === 'text' ? { ...p, text: 'Edited instructions.' } : p));
    const edited = withEditedMessages(request, messages);
    expect(edited.edited).toBe(true);
    expect(edited.sha256).not.toBe(request.sha256);
    expect(edited.differences).toEqual(['messages: edited']);
    expect(() => withEditedMessages(request, [{ role: 'user', content: [{ type: 'image', sha256: 'f'.repeat(64), mime: 'image/jpeg' }] }])).toThrow(/is not one of the request's images/);
    expect(() => withEditedMessages(request, { role: 'user' })).toThrow(/expected a non-empty JSON array of messages/);
    const retry = await server([{ toolCalls: [{ name: 'look', arguments: { heading_deg: 90 } }] }]);
    await retryTurn({ request: edited, endpoint: modelEndpoint({ model: 'scripted', baseUrl: retry.baseUrl }), samples: 1, truth: null });
    expect(JSON.stringify(retry.requests[0]!.body.messages[0])).toContain('Edited instructions.');
  });
});

describe('retryTurn', () => {
  it('runs the leak guard on the request before anything is sent', async () => {
    const ws = await workspace();
    const { record, named } = await recordEpisode(ws);
    const request = rebuildRequest(ws, named, 1);
    const leaky = withEditedMessages(request, [...request.messages, { role: 'user', content: `Hint: this is task ${record.task.task_id}.` }]);
    const retry = await server([{ toolCalls: [{ name: 'look', arguments: { heading_deg: 90 } }] }]);
    await expect(retryTurn({ request: leaky, endpoint: modelEndpoint({ model: 'scripted', baseUrl: retry.baseUrl }), samples: 2, truth: null })).rejects.toThrow(/^leak guard: /);
    expect(retry.requests).toHaveLength(0);
  });
});

describe('a record of the public harness', () => {
  it('rebuilds its one user message: the prompt text and the image the turn before returned', async () => {
    const ws = await workspace();
    const dir = tempDir();
    const view0 = await makeJpeg(1);
    const view1 = await makeJpeg(2);
    storeImage(ws, view0, 'image/jpeg');
    storeImage(ws, view1, 'image/jpeg');
    const record = harnessRecord(sha256(view0), sha256(view1));
    const file = join(dir, 'episodes.jsonl');
    writeFileSync(file, `${JSON.stringify(record)}\n`);
    const [named] = await episodesInFile({ file });

    const request = rebuildRequest(ws, named!, 2);
    expect(request.harness).toBe(true);
    expect(request.recordedSha256).toBeNull();
    expect(request.tools).toBeNull();
    expect(request.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'PROMPT OF TURN 2' }, { type: 'image', sha256: sha256(view1), mime: 'image/jpeg' }] },
    ]);
    expect(request.sampling).toEqual({ model: 'Qwen/Qwen3-VL-8B-Instruct', temperature: 0.2, max_tokens: 4096 });
    expect(request.recordedReply).toMatchObject({ action: 'guess', guess: [48.1, 11.6] });

    const retry = await server([{ text: '{"action": "zoom", "fov_deg": 30}' }, { text: '{"action": "guess", "lat": 48.1, "lon": 11.6}' }]);
    const result = await retryTurn({ request, endpoint: modelEndpoint({ model: 'scripted', baseUrl: retry.baseUrl }), samples: 2, truth: [48.14, 11.58] });
    const body = retry.requests[0]!.body;
    expect(body.messages).toHaveLength(1);
    expect(body.messages[0]!.content).toEqual([
      { type: 'text', text: 'PROMPT OF TURN 2' },
      { type: 'image_url', image_url: { url: `data:image/jpeg;base64,${view1.toString('base64')}` } },
    ]);
    expect(result.summary).toMatchObject({ samples: 2, sameAction: 1, recordedAction: 'guess', guesses: 1 });
    expect(result.samples.find((s) => s.action === 'guess')!.distance_km).toBeLessThan(5);
  });

  it('reads a single-shot reply for its <guess> coordinates, as the harness scores it', async () => {
    const ws = await workspace();
    const view0 = await makeJpeg(5);
    storeImage(ws, view0, 'image/jpeg');
    const record = harnessRecord(sha256(view0), sha256(view0));
    record.config = { mode: 'single_shot', prompt_version: 'v2', max_turns: 1 };
    record.turns = record.turns.slice(0, 2);
    record.turns[1]!.model = { reply: 'Signs in German.\n<guess>48.1, 11.6</guess>' };
    const file = join(tempDir(), 'episodes.jsonl');
    writeFileSync(file, `${JSON.stringify(record)}\n`);
    const [named] = await episodesInFile({ file });
    const request = rebuildRequest(ws, named!, 1);
    expect(request.recordedReply).toMatchObject({ action: 'guess', guess: [48.1, 11.6] });
    const retry = await server([{ text: 'Probably Austria. <guess>47.5, 13.0</guess>' }]);
    const result = await retryTurn({ request, endpoint: modelEndpoint({ model: 'scripted', baseUrl: retry.baseUrl }), samples: 1, truth: [48.14, 11.58] });
    expect(result.samples[0]).toMatchObject({ action: 'guess', guess: [47.5, 13.0], status: 'ok' });
    expect(result.summary).toMatchObject({ sameAction: 1, guesses: 1, spreadKm: 0 });
  });
});

describe('images beside an episode file', () => {
  it('reads an image the store lacks from the file\'s folder (a turn\'s image_path), and names it when neither has it', async () => {
    const ws = await workspace();
    const dir = tempDir();
    const view0 = await makeJpeg(3);
    const view1 = await makeJpeg(4);
    mkdirSync(join(dir, 'frames'));
    writeFileSync(join(dir, 'frames', 'a1b2c3d4e5f6-001.jpg'), view1);
    const record = harnessRecord(sha256(view0), sha256(view1));
    record.turns[1]!.image_path = 'frames/a1b2c3d4e5f6-001.jpg';
    const file = join(dir, 'episodes.jsonl');
    writeFileSync(file, `${JSON.stringify(record)}\n`);
    const [named] = await episodesInFile({ file });
    const request = rebuildRequest(ws, named!, 2);
    expect(request.images.get(sha256(view1))?.bytes.equals(view1)).toBe(true);

    // Turn 1's request sends turn 0's view, which is neither in the store nor beside the file.
    expect(() => rebuildRequest(ws, named!, 1)).toThrow(new RegExp(`has no image ${sha256(view0)} .*geolab episodes import ${dir}`));
  });
});

/** A record in the harness's own shape (geoeval.py's turn_record): prompts and image paths, no messages. */
function harnessRecord(view0: string, view1: string): CompletedEpisode {
  const camera = { heading_deg: 0, pitch_deg: 0, fov_deg: 90, frame_index: 0 };
  return {
    schema_version: 2,
    episode_id: 'a1b2c3d4e5f6',
    model_name: 'qwen3-vl-8b',
    model: { provider: 'openai', model: 'Qwen/Qwen3-VL-8B-Instruct', base_url: 'http://127.0.0.1:8000/v1', max_tokens: 4096, temperature: 0.2, thinking: null, extra_body: null },
    task: { split: 'eval', index: 3, sample: 0, task_id: 't-3' },
    config: { mode: 'agentic', prompt_version: 'v2', max_turns: 8 },
    turns: [
      { turn: 0, status: 'ok', camera_before: camera, action: { action: 'reset' }, camera_after: camera, image_kind: 'view', image_sha256: view0, image_path: 'frames/a1b2c3d4e5f6-000.jpg' },
      {
        turn: 1,
        status: 'ok',
        camera_before: camera,
        action: { action: 'look', heading_deg: 90 },
        camera_after: { ...camera, heading_deg: 90 },
        image_kind: 'view',
        image_sha256: view1,
        model: { reply: '{"action": "look", "heading_deg": 90}', reasoning: null, tokens: { input: 900, output: 12, total: 912 } },
        prompt: 'PROMPT OF TURN 1',
      },
      {
        turn: 2,
        status: 'ok',
        camera_before: { ...camera, heading_deg: 90 },
        action: { action: 'guess', lat: 48.1, lon: 11.6 },
        camera_after: { ...camera, heading_deg: 90 },
        image_kind: 'none',
        model: { reply: 'Bavaria.\n{"action": "guess", "lat": 48.1, "lon": 11.6}', reasoning: null, tokens: { input: 950, output: 20, total: 970 } },
        prompt: 'PROMPT OF TURN 2',
        done: true,
      },
    ],
    outcome: { distance_km: 4.3, guess: [48.1, 11.6], truth: [48.14, 11.58], parsed_ok: true },
  };
}
