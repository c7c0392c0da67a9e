/**
 * `geolab episodes retry` end to end: an episode recorded by `geolab agent --headless` against a
 * scripted endpoint, then one of its turns resent by the real binary (docs/eval.md, "Retry a turn").
 */
import { chmodSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEpisodeRecord, type CompletedEpisode } from '../../src/core/episode.js';
import { imagePath } from '../../src/store/images.js';
import { openWorkspace } from '../../src/store/index.js';
import { spawnGeolab, type CliResult } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { startScriptedOpenAI, toolCall, type ScriptedOpenAI, type ScriptedReply } from '../helpers/scripted-openai.js';

const HOME = tempDir('geolab-retry-home-');
const EPISODE: ScriptedReply[] = [
  { toolCalls: [toolCall('look', { heading_deg: 90 })] },
  { toolCalls: [toolCall('pin', { lat: 10, lon: 20 })] },
  { toolCalls: [toolCall('guess', { lat: 11, lon: 21 })] },
];
/** What the server answers once the episode is recorded: set by each test. */
let retryReplies: ScriptedReply[] = [];
let server: ScriptedOpenAI;
let episode: CompletedEpisode;
let episodeFile: string;

function geolab(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return spawnGeolab(args, { home: HOME, env }).done;
}

/** The requests the server got since `from`: the retries of one test. */
const since = (from: number) => server.requests.slice(from).map((r) => r.body);

beforeAll(async () => {
  server = await startScriptedOpenAI({ script: (_body, n) => (n < EPISODE.length ? EPISODE[n]! : (retryReplies[(n - EPISODE.length) % retryReplies.length] ?? { status: 500 })) });
  const result = await geolab(['agent', '--headless', '--base-url', server.baseUrl, '--model', 'scripted', '--split', 'eval', '--task', '1']);
  expect(result.code, result.stderr).toBe(0);
  const runDir = /recorded in (\S+)/.exec(result.stderr)![1]!;
  episodeFile = join(runDir, 'episodes.jsonl');
  const parsed = parseEpisodeRecord(JSON.parse(readFileSync(episodeFile, 'utf8').trim()));
  if (!parsed.ok || parsed.kind !== 'completed') throw new Error('the agent recorded no completed episode');
  episode = parsed.record;
  expect(server.requests).toHaveLength(3);
}, 60_000);
afterAll(async () => {
  await server.close();
});

describe('geolab episodes retry', () => {
  it('resends the recorded request to the record\'s own endpoint and says how the samples compare', async () => {
    retryReplies = [{ toolCalls: [toolCall('pin', { lat: 10, lon: 20 })] }, { toolCalls: [toolCall('look', { heading_deg: 200 })] }];
    const from = server.requests.length;
    const result = await geolab(['episodes', 'retry', episode.episode_id.slice(0, 8), '--turn', '2', '--samples', '4']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(`retrying against the record's own endpoint: scripted at ${server.baseUrl}`);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toBe(`model scripted at ${server.baseUrl}`);
    lines.shift();
    expect(lines[0]).toMatch(/^turn 2 \(tools protocol\): 4 message\(s\), 5 tool\(s\), temperature unset, max_tokens 6144$/);
    expect(lines[1]).toMatch(/^request [0-9a-f]{16}: request hash matches the recorded one$/);
    expect(lines[3]).toMatch(/^recorded {3}pin\(lat=10, lon=20, span_deg=7\) · tokens 102 in, 12 out$/);
    expect(lines.filter((l) => /^sample \d/.test(l))).toHaveLength(4);
    expect(result.stdout).toContain('2 of 4 chose pin (the recorded action)');
    // Each retry is the agent's second request, exactly.
    const retried = since(from);
    expect(retried).toHaveLength(4);
    for (const body of retried) {
      expect(body.messages).toEqual(server.requests[1]!.body.messages);
      expect(body.tools).toEqual(server.requests[1]!.body.tools);
      expect(body.model).toBe('scripted');
    }
  });

  it('--json: the recorded reply, the samples with distances, the summary and the hash check', async () => {
    retryReplies = [{ toolCalls: [toolCall('guess', { lat: 11, lon: 21 })] }, { toolCalls: [toolCall('guess', { lat: 12, lon: 21 })] }];
    const result = await geolab(['episodes', 'retry', `${episodeFile}:1`, '--turn', '3', '--samples', '2', '--model', 'scripted', '--base-url', server.baseUrl, '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toContain("record's own endpoint");
    const out = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(Object.keys(out).sort()).toEqual(['recorded', 'request', 'samples', 'summary']);
    expect(out.request).toEqual({
      turn: 3,
      model: 'scripted',
      recorded_model: 'scripted',
      base_url: server.baseUrl,
      sha256: episode.turns[3]!.request_sha256,
      recorded_sha256: episode.turns[3]!.request_sha256,
      differences: [],
      edited: false,
      hash_check: 'request hash matches the recorded one',
    });
    expect(out.recorded).toMatchObject({ action: 'guess', arguments: { lat: 11, lon: 21 }, status: 'ok', guess: [11, 21] });
    const samples = out.samples as { action: string; guess: number[]; distance_km: number }[];
    expect(samples.map((s) => s.guess[0]).sort()).toEqual([11, 12]);
    for (const s of samples) expect(s.distance_km).toBeGreaterThan(0);
    expect(out.summary).toMatchObject({ samples: 2, same_action: 2, recorded_action: 'guess', guesses: 2 });
    expect((out.summary as { spread_km: number }).spread_km).toBeCloseTo(111.2, 0);
  });

  it('a changed temperature is sent and said', async () => {
    retryReplies = [{ toolCalls: [toolCall('look', { heading_deg: 90 })] }];
    const from = server.requests.length;
    const result = await geolab(['episodes', 'retry', episode.episode_id, '--turn', '1', '--samples', '1', '--temperature', '1.5']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('differs: temperature: recorded unset, this retry 1.5');
    expect(since(from)[0]!.temperature).toBe(1.5);
    expect(result.stdout).toContain('1 of 1 chose look (the recorded action)');
  });

  it('--edit sends the messages as the editor left them', async () => {
    retryReplies = [{ toolCalls: [toolCall('look', { heading_deg: 90 })] }];
    const dir = tempDir();
    const editor = join(dir, 'edit.mjs');
    writeFileSync(
      editor,
      `#!${process.execPath}\nimport { readFileSync, writeFileSync } from 'node:fs';\nconst file = process.argv[2];\nconst messages = JSON.parse(readFileSync(file, 'utf8'));\nmessages.push({ role: 'user', content: 'EDITED: look north first.' });\nwriteFileSync(file, JSON.stringify(messages, null, 2));\n`,
    );
    chmodSync(editor, 0o755);
    const from = server.requests.length;
    const result = await geolab(['episodes', 'retry', episode.episode_id, '--turn', '2', '--samples', '1'], { EDITOR: editor, VISUAL: '' });
    // Without --edit the editor is not run.
    expect(since(from)[0]!.messages).toEqual(server.requests[1]!.body.messages);
    expect(result.code, result.stderr).toBe(0);

    const edited = await geolab(['episodes', 'retry', episode.episode_id, '--turn', '2', '--samples', '1', '--edit'], { EDITOR: editor, VISUAL: '' });
    expect(edited.code, edited.stderr).toBe(0);
    expect(edited.stdout).toMatch(/request [0-9a-f]{16}: edited: the request differs from the recorded one \(messages: edited\)/);
    const sent = since(from + 1)[0]!;
    expect(sent.messages).toHaveLength(server.requests[1]!.body.messages.length + 1);
    expect(sent.messages.at(-1)).toEqual({ role: 'user', content: 'EDITED: look north first.' });
  });

  it('--edit: a file left as broken JSON is refused, naming its line, and nothing is sent', async () => {
    const dir = tempDir();
    const editor = join(dir, 'break.sh');
    writeFileSync(editor, '#!/bin/sh\nprintf \'[\\n  {"role": "user",\\n    "content": oops}\\n]\\n\' > "$1"\n');
    chmodSync(editor, 0o755);
    const from = server.requests.length;
    const result = await geolab(['episodes', 'retry', episode.episode_id, '--turn', '1', '--samples', '1', '--edit'], { EDITOR: editor, VISUAL: '' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('the edited messages are not JSON: line 3, at "oops}"; expected a JSON array of messages, nothing was sent');
    expect(server.requests.length).toBe(from);
  });

  it('refuses a turn that is not a model turn, naming the ones that are (exit 2)', async () => {
    const result = await geolab(['episodes', 'retry', episode.episode_id, '--turn', '0']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/turn 0 of episode [0-9a-f]{8} is not a model turn: its model turns are 1-3/);
    const missing = await geolab(['episodes', 'retry', episode.episode_id]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('expected --turn K');
  });

  it('exits 3 when the endpoint cannot be reached', async () => {
    const result = await geolab(['episodes', 'retry', episode.episode_id, '--turn', '1', '--samples', '1', '--model', 'scripted', '--base-url', 'http://127.0.0.1:9/v1']);
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toMatch(/the model endpoint at http:\/\/127\.0\.0\.1:9\/v1 is gone/);
  }, 30_000);

  it('names a request image missing from the store and how to get it back (exit 2)', async () => {
    const ws = await openWorkspace(HOME);
    const sha = (episode.turns[1]!.messages as { content: unknown }[]).flatMap((m) => (Array.isArray(m.content) ? m.content : [])).find((p: { type: string }) => p.type === 'image')
      .sha256 as string;
    const file = imagePath(ws, sha)!;
    ws.close();
    unlinkSync(file);
    const result = await geolab(['episodes', 'retry', episode.episode_id, '--turn', '1', '--samples', '1']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`the workspace's image store has no image ${sha}`);
    expect(result.stderr).toContain('geolab episodes import');
  });
});
