/**
 * `geolab agent` end to end: the real binary against a scripted OpenAI-compatible server, with the
 * embedded environment and a private workspace, read back from the run's episodes.jsonl.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseEpisodeRecord, type CompletedEpisode } from '../../src/core/episode.js';
import { destinationPoint, haversineKm } from '../../src/core/geodesy.js';
import { truthOf } from '../../src/core/tasks.js';
import { demoSplits } from '../../src/env/task-splits.js';
import { spawnGeolab, type CliResult } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { harnessRead } from '../helpers/harness.js';
import { startScriptedOpenAI, toolCall, type ScriptedOpenAI } from '../helpers/scripted-openai.js';

const SPLIT = 'eval';
const INDEX = 1;
/** One workspace for the file: its panorama cache is drawn once. */
const HOME = tempDir('geolab-agent-home-');
let truth: { lat: number; lon: number };
let server: ScriptedOpenAI | undefined;

beforeAll(async () => {
  truth = truthOf((await demoSplits()).get(SPLIT)![INDEX]!);
});
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The binary, asynchronously: the scripted server answers from this process. */
function geolab(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return spawnGeolab(args, { home: HOME, env }).done;
}

/** The run directory the command names on stderr, and its one recorded episode. */
function recorded(result: CliResult): CompletedEpisode {
  const runDir = /recorded in (\S+)/.exec(result.stderr)?.[1];
  expect(runDir, result.stderr).toBeDefined();
  const lines = readFileSync(join(runDir!, 'episodes.jsonl'), 'utf8').trim().split('\n');
  expect(lines).toHaveLength(1);
  const parsed = parseEpisodeRecord(JSON.parse(lines[0]!));
  if (!parsed.ok || parsed.kind !== 'completed') throw new Error(`not a completed schema-v2 episode: ${JSON.stringify(parsed)}`);
  return parsed.record;
}

describe('geolab agent', () => {
  it('plays a task with native tools and records a complete schema-v2 episode scored like the environment', async () => {
    const key = 'sk-e2e-secret-0123456789';
    const pin = destinationPoint(truth.lat, truth.lon, 120, 300);
    const guess = destinationPoint(truth.lat, truth.lon, 300, 40);
    server = await startScriptedOpenAI({
      script: [
        { toolCalls: [toolCall('look', { heading_deg: 270, fov_deg: 60 })] },
        { toolCalls: [toolCall('pin', { lat: pin.lat, lon: pin.lon })] },
        { toolCalls: [toolCall('guess', { lat: guess.lat, lon: guess.lon })] },
      ],
    });
    const result = await geolab(
      ['agent', '--headless', '--base-url', server.baseUrl, '--model', 'scripted', '--api-key-env', 'E2E_KEY', '--split', SPLIT, '--task', String(INDEX)],
      { E2E_KEY: key },
    );
    expect(result.code, result.stderr).toBe(0);

    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/^turn {2}1 {2}look\(heading_deg=270, pitch_deg=0, fov_deg=60\) {2}Facing 270° \(W\).* {2}cost 0\.01$/);
    expect(lines[1]).toMatch(/^turn {2}2 {2}pin\(.*span_deg=7\) {2}Pin 1 placed at .* {2}cost 0\.03$/);
    expect(lines[3]).toMatch(/^outcome {2}Close, 40\.0 km {2}reward 0\.\d{4}/);

    const episode = recorded(result);
    const d = haversineKm(guess.lat, guess.lon, truth.lat, truth.lon);
    expect(episode.outcome.distance_km).toBeCloseTo(d, 6);
    expect(episode.outcome.reward).toBeCloseTo(Math.max(0, Math.exp(-d / 1492.7) - 0.03), 9);
    expect(episode.outcome).toMatchObject({ guess: [guess.lat, guess.lon], truth: [truth.lat, truth.lon], action_cost: 0.03, forced_guess: false, turns_used: 3 });
    expect(episode).toMatchObject({ model_name: 'scripted', task: { split: SPLIT, index: INDEX }, config: { mode: 'agentic', protocol: 'tools', max_turns: 12, retries: 2, base_url: 'embedded' } });
    expect(episode.turns).toHaveLength(4);
    expect(episode.turns![1]!.image_path).toMatch(/\.jpg$/);
    const read = harnessRead(join(/recorded in (\S+)/.exec(result.stderr)![1]!, 'episodes.jsonl'));
    expect(read.code, read.stderr).toBe(0);

    // The key went out as a bearer token and nowhere else.
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${key}`);
    expect(server.modelListings).toBe(1);
    for (const text of [result.stdout, result.stderr, JSON.stringify(episode)]) expect(text).not.toContain(key);
  });

  it('survives a 500, a timeout, a malformed call and two calls at once, recording each on its turn', async () => {
    server = await startScriptedOpenAI({
      script: [
        { status: 500, body: { error: { message: 'overloaded' } } },
        { toolCalls: [toolCall('look', { heading_deg: 90 })] },
        { hang: true },
        { toolCalls: [toolCall('pin', '{"lat": 10, "lon":')] },
        { toolCalls: [toolCall('zoom', { fov_deg: 40 }), toolCall('zoom', { fov_deg: 20 })] },
        { toolCalls: [toolCall('guess', { lat: truth.lat, lon: truth.lon })] },
      ],
    });
    const result = await geolab(
      ['agent', '--headless', '--base-url', server.baseUrl, '--model', 'scripted', '--timeout', '1', '--split', SPLIT, '--task', String(INDEX)],
      {},
    );
    expect(result.code, result.stderr).toBe(0);
    const episode = recorded(result);
    const turns = episode.turns!;
    // Turn 1: the 500 was retried; turn 2: the hang timed out and was retried into the malformed pin.
    expect(turns[1]!.model).toMatchObject({ attempts: 2 });
    expect(turns[2]!.status).toBe('unparseable');
    expect(turns[2]!.model?.attempts).toBe(2);
    expect(turns[3]!.action).toMatchObject({ action: 'zoom', fov_deg: 40 });
    expect(episode.outcome).toMatchObject({ distance_km: 0, verdict: 'Perfect', turns_unparseable: 1 });
    // One look and one zoom were charged; the malformed pin cost a turn, not an action.
    expect(episode.outcome.reward).toBeCloseTo(1 - 0.02, 9);
  });

  it('plays with JSON actions', async () => {
    server = await startScriptedOpenAI({ script: [{ text: `Sure.\n\`\`\`json\n{"action": "guess", "lat": ${truth.lat}, "lon": ${truth.lon}}\n\`\`\`` }] });
    const result = await geolab(['agent', '--headless', '--protocol', 'json', '--base-url', server.baseUrl, '--model', 'scripted', '--split', SPLIT, '--task', String(INDEX)]);
    expect(result.code, result.stderr).toBe(0);
    const episode = recorded(result);
    expect(episode.outcome).toMatchObject({ verdict: 'Perfect', distance_km: 0, reward: 1, train_reward: 1 });
    // geolab's own prompt is recorded as geolab's, never as the harness's "v2".
    expect(episode.config).toMatchObject({ mode: 'agentic', protocol: 'json', prompt_version: 'geolab-json-1' });
    expect(server.requests[0]!.headers.authorization).toBeUndefined();
  });

  it("runs a user's prompt template with the harness's placeholders and records its declared version", async () => {
    const dir = tempDir('geolab-prompt-');
    const file = join(dir, 'published.txt');
    writeFileSync(
      file,
      '# prompt_version: published-v2\nYou have {max_turns} turns left. Each turn, reply with one JSON object.\n{{"action": "guess", "lat": 1, "lon": 2}}\nAvailable this episode: {tools}\n',
    );
    server = await startScriptedOpenAI({
      script: [{ text: '{"action": "look", "heading_deg": 90}' }, { text: `{"action": "guess", "lat": ${truth.lat}, "lon": ${truth.lon}}` }],
    });
    const args = ['agent', '--headless', '--protocol', 'json', '--prompt-file', file, '--base-url', server.baseUrl, '--model', 'scripted', '--split', SPLIT, '--task', String(INDEX)];
    const result = await geolab(args);
    expect(result.code, result.stderr).toBe(0);
    const episode = recorded(result);
    expect(episode.config).toMatchObject({ prompt_version: 'published-v2' });
    expect(episode.model).toMatchObject({ prompt_version: 'published-v2' });
    // Sent as the harness sends it: one user message, the template filled, braces made single.
    const [first, second] = server.requests.map((r) => r.body.messages);
    expect(first!.map((m) => m.role)).toEqual(['user']);
    const text = (first![0]!.content as { type: string; text?: string }[])[0]!.text!;
    expect(text).toMatch(/^You have 12 turns left\. Each turn, reply with one JSON object\.\n\{"action": "guess", "lat": 1, "lon": 2\}\nAvailable this episode: look, pan, zoom, move, pin, view_map, measure, guess\n/);
    expect(text).not.toContain('prompt_version');
    expect(JSON.stringify(second)).toContain('You have 11 turns left.');
    expect(JSON.stringify(second)).toContain('What has happened so far:');

  });

  it('refuses a bad prompt template with exit 2, naming the file and line', async () => {
    const dir = tempDir('geolab-prompt-');
    const file = join(dir, 'bad.txt');
    writeFileSync(file, '# prompt_version: mine\nYou have {max_turns} turns.\nReply {"action": "guess"}\n');
    const bad = await geolab(['agent', '--headless', '--prompt-file', file, '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`${file}:3`);
    expect(bad.stderr).toContain('unknown placeholder {"action": "guess"}');
    expect(bad.stderr).toContain('{{ and }}');
    expect(bad.stderr).not.toMatch(/\bat .*\.js:\d+/);
    const missing = await geolab(['agent', '--headless', '--prompt-file', join(dir, 'nope.txt'), '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`${join(dir, 'nope.txt')}: cannot read prompt template: ENOENT`);
  });

  it('runs a baseline without a model endpoint', async () => {
    const result = await geolab(['agent', '--headless', '--policy', 'fixed', '--point', '0,0', '--split', SPLIT, '--task', String(INDEX)]);
    expect(result.code, result.stderr).toBe(0);
    expect(recorded(result).outcome.distance_km).toBeCloseTo(haversineKm(0, 0, truth.lat, truth.lon), 6);
  });

  it('exits 3 when the endpoint cannot be reached and 2 when it does not serve the model', async () => {
    server = await startScriptedOpenAI({ script: [], models: [{ id: 'other' }] });
    const unlisted = await geolab(['agent', '--headless', '--base-url', server.baseUrl, '--model', 'scripted']);
    expect(unlisted.code).toBe(2);
    expect(unlisted.stderr).toContain('it serves: other');
    const url = server.baseUrl;
    await server.close();
    server = undefined;
    const unreachable = await geolab(['agent', '--headless', '--base-url', url, '--model', 'scripted']);
    expect(unreachable.code).toBe(3);
    expect(unreachable.stderr).toContain('cannot reach the model endpoint');
  });
});
