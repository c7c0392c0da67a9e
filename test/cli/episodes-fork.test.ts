/**
 * `geolab episodes fork` end to end: the real binary records an episode with `geolab agent` against a
 * scripted endpoint, then forks it at turn K with a second one; the fork is in the workspace with
 * `forked_from`, and `episodes compare` reads the pair. A changed view stops the fork with nothing
 * recorded; who plays on, and without a terminal how, is bad usage.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnGeolab, type CliResult } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { startScriptedOpenAI, toolCall, type ScriptedOpenAI, type ScriptedReply } from '../helpers/scripted-openai.js';

/** One workspace for the file: its panorama cache is drawn once. */
const HOME = tempDir('geolab-fork-home-');
const servers: ScriptedOpenAI[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

function geolab(args: string[]): Promise<CliResult> {
  return spawnGeolab(args, { home: HOME }).done;
}

async function endpoint(script: ScriptedReply[]): Promise<ScriptedOpenAI> {
  const server = await startScriptedOpenAI({ script });
  servers.push(server);
  return server;
}

/** Records an episode with `geolab agent --headless`; its id and the run folder. */
async function recordEpisode(protocol: 'tools' | 'json', script: ScriptedReply[]): Promise<{ id: string; runDir: string; server: ScriptedOpenAI }> {
  const server = await endpoint(script);
  const result = await geolab(['agent', '--headless', '--protocol', protocol, '--base-url', server.baseUrl, '--model', 'scripted', '--split', 'eval', '--task', '2']);
  expect(result.code, result.stderr).toBe(0);
  const [, id, runDir] = /episode (\S+) recorded in (\S+)/.exec(result.stderr)!;
  return { id: id!, runDir: runDir!, server };
}

async function episodeCount(): Promise<number> {
  const listed = await geolab(['episodes', 'list', '--json', '--limit', '1000']);
  expect(listed.code, listed.stderr).toBe(0);
  return (JSON.parse(listed.stdout) as unknown[]).length;
}

const TOOLS_SCRIPT: ScriptedReply[] = [
  { toolCalls: [toolCall('look', { heading_deg: 90, fov_deg: 60 })] },
  { toolCalls: [toolCall('pin', { lat: 10, lon: 20 })] },
  { toolCalls: [toolCall('guess', { lat: 40, lon: -3 })] },
];

describe('geolab episodes fork', () => {
  it('replays to turn K, plays on with the model, records the fork and compares it with the original', async () => {
    const original = await recordEpisode('tools', TOOLS_SCRIPT);
    const second = await endpoint([{ toolCalls: [toolCall('guess', { lat: 41, lon: 2 })] }]);
    const result = await geolab(['episodes', 'fork', original.id.slice(0, 8), '--turn', '2', '--model', 'scripted', '--base-url', second.baseUrl, '--headless']);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^replayed {2}turn {2}1 {2}look\(heading_deg=90, pitch_deg=0, fov_deg=60\)/);
    expect(lines[1]).toMatch(/^live {4} {2}turn {2}2 {2}guess\(lat=41, lon=2/);
    expect(lines[2]).toMatch(/^outcome /);
    const forkId = /^fork (\S+) \(run (fork-\S+)\), from (\S+) at turn 2$/.exec(lines[3]!);
    expect(forkId, result.stdout).not.toBeNull();
    expect(forkId![3]).toBe(original.id);
    expect(lines[5]).toMatch(/^distance {4}\d+\.\d km +\d+\.\d km$/);
    expect(lines[6]).toMatch(/^reward {6}-?\d\.\d{4} +-?\d\.\d{4}$/);
    expect(lines[7]).toBe(`compare: geolab episodes compare ${original.id} ${forkId![1]}`);
    // The request at turn 2 was the original's second one.
    expect(second.requests[0]!.body.messages).toEqual(original.server.requests[1]!.body.messages);

    const shown = await geolab(['episodes', 'show', forkId![1]!, '--json']);
    expect(shown.code, shown.stderr).toBe(0);
    const fork = JSON.parse(shown.stdout) as { forked_from: unknown; task: { index: number }; turns: { turn: number; image_sha256?: string }[] };
    expect(fork.forked_from).toEqual({ episode_id: original.id, turn: 2 });
    expect(fork.task.index).toBe(2);
    const originalRecord = JSON.parse(readFileSync(join(original.runDir, 'episodes.jsonl'), 'utf8')) as { turns: { image_sha256?: string }[] };
    expect(fork.turns.slice(0, 2).map((t) => t.image_sha256)).toEqual(originalRecord.turns.slice(0, 2).map((t) => t.image_sha256));

    const compared = await geolab(['episodes', 'compare', original.id, forkId![1]!]);
    expect(compared.code, compared.stderr).toBe(0);
    expect(compared.stdout).toContain(original.id.slice(0, 8));
    expect(compared.stdout).toContain(forkId![1]!.slice(0, 8));
  });

  it('forks a FILE:LINE record with the JSON protocol and prints JSON', async () => {
    const original = await recordEpisode('json', [
      { text: '{"action": "look", "heading_deg": 90}' },
      { text: '{"action": "place_pin", "lat": 10, "lon": 20}' },
      { text: '{"action": "submit_guess", "lat": 40, "lon": -3}' },
    ]);
    const second = await endpoint([{ text: '{"action": "submit_guess", "lat": 5, "lon": 6}' }]);
    // The harness's model file, one entry picked by name.
    const models = join(tempDir('geolab-fork-models-'), 'models.json');
    writeFileSync(models, JSON.stringify([
      { name: 'other', provider: 'openai', model: 'scripted', base_url: 'http://127.0.0.1:9/v1', api_key_env: 'NO_SUCH_KEY' },
      { name: 'second-arm', provider: 'openai', model: 'scripted', base_url: second.baseUrl, api_key_env: 'NO_SUCH_KEY' },
    ]));
    const result = await geolab(['episodes', 'fork', `${join(original.runDir, 'episodes.jsonl')}:1`, '--turn', '3', '--models', models, '--name', 'second-arm', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const out = JSON.parse(result.stdout) as { episode_id: string; forked_from: unknown; original: { distance_km: number }; fork: { distance_km: number } };
    expect(out.forked_from).toEqual({ episode_id: original.id, turn: 3 });
    const shown = await geolab(['episodes', 'show', out.episode_id, '--json']);
    expect((JSON.parse(shown.stdout) as { model_name: string }).model_name).toBe('second-arm');
    expect(out.fork.distance_km).not.toBe(out.original.distance_km);
    expect(second.requests[0]!.body.messages).toEqual(original.server.requests[2]!.body.messages);
  });

  it('stops when a replayed view differs, exit 1, with nothing recorded', async () => {
    const original = await recordEpisode('tools', TOOLS_SCRIPT);
    const record = JSON.parse(readFileSync(join(original.runDir, 'episodes.jsonl'), 'utf8')) as { turns: { image_sha256?: string }[] };
    const now = record.turns[1]!.image_sha256!;
    record.turns[1]!.image_sha256 = 'cd'.repeat(32);
    const edited = join(tempDir('geolab-fork-edited-'), 'episodes.jsonl');
    writeFileSync(edited, JSON.stringify(record) + '\n');
    const before = await episodeCount();
    const second = await endpoint([{ toolCalls: [toolCall('guess', { lat: 1, lon: 2 })] }]);
    const result = await geolab(['episodes', 'fork', edited, '--turn', '3', '--model', 'scripted', '--base-url', second.baseUrl, '--headless']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`the environment changed since this was recorded: turn 1's view differs (recorded cdcdcdcdcdcd, now ${now.slice(0, 12)})`);
    expect(second.requests).toHaveLength(0);
    expect(await episodeCount()).toBe(before);
  });

  it('is bad usage without who plays on, without a terminal for the Live screen, or out of range', async () => {
    const original = await recordEpisode('tools', TOOLS_SCRIPT);
    const noOne = await geolab(['episodes', 'fork', original.id, '--turn', '2', '--headless']);
    expect(noOne.code).toBe(2);
    expect(noOne.stderr).toContain('who plays on from turn K?');
    const noTty = await geolab(['episodes', 'fork', original.id, '--turn', '2', '--model', 'm', '--base-url', 'http://127.0.0.1:9/v1']);
    expect(noTty.code).toBe(2);
    expect(noTty.stderr).toContain('add --headless');
    const play = await geolab(['episodes', 'fork', original.id, '--turn', '2', '--play']);
    expect(play.code).toBe(2);
    expect(play.stderr).toContain('--play needs a terminal');
    const server = await endpoint([]);
    const late = await geolab(['episodes', 'fork', original.id, '--turn', '9', '--model', 'scripted', '--base-url', server.baseUrl, '--headless']);
    expect(late.code).toBe(2);
    expect(late.stderr).toContain('turn 9 cannot be forked at: episode');
    expect(late.stderr).toContain('has turns 1 to 3');
  });
});
