/**
 * `geolab agent` when the model endpoint fails (docs/endpoints.md, docs/reliability.md): the real binary against a real
 * loopback endpoint that dies mid-episode, refuses the key, hangs, or echoes the key back. An
 * endpoint that is gone fails the episode (a failed record, never a score) and exits 3; an interrupt
 * is recorded as aborted; no piece of the key reaches any file of the workspace, stdout or stderr.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseEpisodeRecord, type CompletedEpisode, type FailedEpisode } from '../../src/core/episode.js';
import { FRAGMENT_CHARS } from '../../src/core/secrets.js';
import { truthOf } from '../../src/core/tasks.js';
import { demoSplits } from '../../src/env/task-splits.js';
import { geolab, spawnGeolab, type CliResult } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { startScriptedOpenAI, toolCall, type ScriptedOpenAI } from '../helpers/scripted-openai.js';

const SPLIT = 'eval';
const INDEX = 2;
/** One workspace for the file: its panorama cache is drawn once. */
const HOME = tempDir('geolab-agent-failures-');
let truth: { lat: number; lon: number };
let server: ScriptedOpenAI | undefined;

beforeAll(async () => {
  truth = truthOf((await demoSplits()).get(SPLIT)![INDEX]!);
});
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function agent(s: ScriptedOpenAI, extra: string[] = [], env: Record<string, string> = {}) {
  const args = ['agent', '--headless', '--base-url', s.baseUrl, '--model', 'scripted', '--split', SPLIT, '--task', String(INDEX), ...extra];
  return spawnGeolab(args, { home: HOME, env });
}

/** The one record of the run the command names on stderr. */
function recorded(result: CliResult): CompletedEpisode | FailedEpisode {
  const runDir = /recorded in (\S+)/.exec(result.stderr)?.[1];
  expect(runDir, result.stderr).toBeDefined();
  const lines = readFileSync(join(runDir!, 'episodes.jsonl'), 'utf8').trim().split('\n');
  expect(lines).toHaveLength(1);
  const parsed = parseEpisodeRecord(JSON.parse(lines[0]!));
  if (!parsed.ok) throw new Error(`not a schema-v2 record: ${parsed.error}`);
  return parsed.record;
}

function failed(result: CliResult): FailedEpisode {
  const record = recorded(result);
  expect(record).not.toHaveProperty('outcome');
  return record as FailedEpisode;
}

/** The workspace's list, as JSON and as the table a person reads, for one episode. */
function listed(episodeId: string): { row: Record<string, unknown>; line: string } {
  const json = geolab(['episodes', 'list', '--json', '--limit', '0'], { home: HOME });
  expect(json.code, json.stderr).toBe(0);
  const row = (JSON.parse(json.stdout) as Record<string, unknown>[]).find((r) => r.episode_id === episodeId);
  const table = geolab(['episodes', 'list', '--limit', '0'], { home: HOME });
  const line = table.stdout.split('\n').find((l) => l.startsWith(episodeId.slice(0, 8)));
  expect(row && line, table.stdout).toBeTruthy();
  return { row: row!, line: line! };
}

const look = (headingDeg: number) => ({ toolCalls: [toolCall('look', { heading_deg: headingDeg })] });

describe('an endpoint that is gone fails the episode', () => {
  it('answers HTTP 500 to everything: no request got a reply, so the episode fails as unusable (exit 3 naming it), not a forced guess', async () => {
    server = await startScriptedOpenAI({ script: () => ({ status: 500, body: { error: { message: 'engine dead' } } }) });
    const result = await agent(server, ['--max-turns', '1']).done;
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toContain(`geolab: the model endpoint at ${server.baseUrl} is unusable: the one request of this episode got no reply after retries (the last HTTP 500: `);
    // Only the turn's request was sent (three attempts): the forced guess is not asked of an endpoint that never replied.
    expect(server.requests).toHaveLength(3);
    const record = failed(result);
    expect(record).toMatchObject({ failure: 'unreachable' });
    expect((record.turns as { status: string }[]).filter((t) => t.status === 'provider_error')).toHaveLength(1);
  });

  it('dies after two turns: connection refused past the retries, exit 3 naming it, recorded as failed and listed so', async () => {
    server = await startScriptedOpenAI({ script: [look(90), look(180), { die: true }] });
    const result = await agent(server).done;
    expect(result.code, result.stderr).toBe(3);
    const gone = `the model endpoint at ${server.baseUrl} is gone: 3 attempts got no answer, the last connection refused (ECONNREFUSED)`;
    expect(result.stderr).toContain(`geolab: ${gone}`);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.stdout).not.toContain('outcome');
    expect(result.stdout.trim().split('\n').at(-1)).toBe(`failed  ${gone}`);

    const record = failed(result);
    expect(record).toMatchObject({ error: gone, failure: 'unreachable', model_name: 'scripted', task: { split: SPLIT, index: INDEX, sample: 0 } });
    expect((record.turns as unknown[]).length).toBe(3);
    const { row, line } = listed(record.episode_id);
    expect(row).toMatchObject({ state: 'failed', reward: null, verdict: null, distance_km: null });
    expect(line).toMatch(/ failed +- +-$/);
  });

  it('refuses the key (401): exit 3 at once, naming the endpoint and the key variable, never the key', async () => {
    const key = `sk-${randomBytes(24).toString('base64url')}`;
    server = await startScriptedOpenAI({
      script: [{ status: 401, body: { error: { message: `Incorrect API key provided: ${key.slice(0, 20)}...; full: ${key}` } } }, look(0)],
    });
    const result = await agent(server, ['--api-key-env', 'GEO_E2E_KEY'], { GEO_E2E_KEY: key }).done;
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toContain(`the model endpoint at ${server.baseUrl} refused the request (HTTP 401`);
    expect(result.stderr).toContain('check the key in $GEO_E2E_KEY');
    expect(server.requests).toHaveLength(1);
    const record = failed(result);
    expect(record).toMatchObject({ failure: 'unreachable' });
    expect(record.error).toContain('[redacted]');
    expect(listed(record.episode_id).row).toMatchObject({ state: 'failed', reward: null });
    expect(leaks(key, result)).toEqual([]);
  });

  it('hangs: timeouts past the retries fail the episode with exit 3', async () => {
    server = await startScriptedOpenAI({ script: [look(45), { hang: true }, { hang: true }, { hang: true }, look(90)] });
    const result = await agent(server, ['--timeout', '1']).done;
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toContain(`the model endpoint at ${server.baseUrl} is gone: 3 attempts got no answer, the last no answer within 1000 ms (timeout)`);
    expect(server.requests).toHaveLength(4);
    expect(failed(result)).toMatchObject({ failure: 'unreachable' });
  });

  it('recovers from a transient 429 and 503: the episode goes on and is scored', async () => {
    server = await startScriptedOpenAI({
      script: [{ status: 429, headers: { 'retry-after': '0' } }, { status: 503 }, look(10), { toolCalls: [toolCall('guess', { lat: truth.lat, lon: truth.lon })] }],
    });
    const result = await agent(server).done;
    expect(result.code, result.stderr).toBe(0);
    const record = recorded(result) as CompletedEpisode;
    expect(record.outcome).toMatchObject({ distance_km: 0, turns_provider_error: 0, turns_used: 2 });
    expect(record.turns![1]!.model).toMatchObject({ attempts: 3 });
  });
});

describe('an interrupted episode', () => {
  it('is recorded as aborted, not failed, and exits 130', async () => {
    let arrived!: () => void;
    const waiting = new Promise<void>((resolve) => (arrived = resolve));
    server = await startScriptedOpenAI({
      script: (_body, n) => {
        if (n === 1) arrived();
        return n === 0 ? look(30) : { hang: true };
      },
    });
    const { child, done } = agent(server);
    await waiting;
    child.kill('SIGINT');
    const result = await done;
    expect(result.code, result.stderr).toBe(130);
    const record = failed(result);
    expect(record).toMatchObject({ error: 'aborted', failure: 'aborted' });
    expect(result.stdout.trim().split('\n').at(-1)).toBe('aborted  aborted');
    const { row, line } = listed(record.episode_id);
    expect(row).toMatchObject({ state: 'aborted', reward: null });
    expect(line).toMatch(/ aborted +- +-$/);
  });
});

describe('the API key', () => {
  it('never reaches the workspace, the run files, stdout or stderr, whole or cut off, from error bodies or replies', async () => {
    const key = `sk-${randomBytes(24).toString('base64url')}`;
    server = await startScriptedOpenAI({
      script: [
        { status: 500, body: { error: { message: `upstream rejected ${key}` } } },
        { ...look(120), content: `I was told the key ${key}, or ${key.slice(6, 20)}.`, reasoning: `The prompt had ${key.slice(-12)} in it.` },
        // Our own cut at 300 characters falls inside the key: it must be redacted before the cut.
        { status: 502, body: `${'y'.repeat(290)}${key}` },
        { status: 503, body: { error: `${key.slice(0, 9)}` } },
        { toolCalls: [toolCall('guess', { lat: truth.lat, lon: truth.lon })], content: `Done; ${key.slice(10, 30)}` },
      ],
    });
    const result = await agent(server, ['--api-key-env', 'GEO_E2E_KEY', '--json'], { GEO_E2E_KEY: key }).done;
    expect(result.code, result.stderr).toBe(0);
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${key}`);
    const record = recorded(result) as CompletedEpisode;
    expect(record.turns![1]!.model).toMatchObject({ attempts: 2 });
    expect(record.turns![1]!.model!.reply).toBe('I was told the key [redacted], or [redacted].');
    expect(record.turns![2]!.model!.errors).toHaveLength(2);
    // Later requests carry the model's earlier reply: redacted there too.
    expect(JSON.stringify(server.requests.slice(1).map((r) => r.body.messages))).not.toContain(key.slice(6, 20));
    expect(leaks(key, result)).toEqual([]);
  });
});

/** Every run of FRAGMENT_CHARS characters of the key found in the output or in any file of the workspace. */
function leaks(key: string, result: CliResult): string[] {
  const fragments = Array.from({ length: key.length - FRAGMENT_CHARS + 1 }, (_, i) => key.slice(i, i + FRAGMENT_CHARS));
  const places: [string, string][] = [
    ['stdout', result.stdout],
    ['stderr', result.stderr],
    ...filesUnder(HOME).map((file): [string, string] => [file, readFileSync(file).toString('latin1')]),
  ];
  expect(places.some(([name]) => name.endsWith('.jsonl'))).toBe(true);
  expect(places.some(([name]) => /\.(db|sqlite)$/.test(name))).toBe(true);
  return places.flatMap(([name, text]) => fragments.filter((f) => text.includes(f)).map((f) => `${name}: ${f}`));
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : entry.isFile() ? [path] : [];
  });
}
