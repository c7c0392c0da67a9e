/**
 * `geolab episodes compare` and `geolab episodes replay` through the real binary, on episodes the
 * binary records against the embedded demo environment (a scripted tool-calling model on a local
 * OpenAI-compatible server, and the baselines), in a private workspace.
 */
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompletedEpisode } from '../../src/core/episode.js';
import { spawnGeolab, type CliResult } from '../helpers/cli.js';
import { makeTask, tempDir } from '../helpers/fixtures.js';
import { startScriptedOpenAI, toolCall, type ScriptedOpenAI } from '../helpers/scripted-openai.js';

const HOME = tempDir('geolab-compare-home-');
let server: ScriptedOpenAI;
/** Scripted: look, move, pin, guess on eval/0; the random-land baseline on eval/0 and eval/2. */
let scripted: CompletedEpisode;
let scriptedFile: string;
let baseline: CompletedEpisode;
let otherTask: CompletedEpisode;

function geolab(args: string[]): Promise<CliResult> {
  return spawnGeolab(args, { home: HOME }).done;
}

async function record(args: string[]): Promise<{ episode: CompletedEpisode; file: string }> {
  const result = await geolab(['agent', '--json', '--split', 'eval', ...args]);
  expect(result.code, result.stderr).toBe(0);
  const runDir = /recorded in (\S+)/.exec(result.stderr)?.[1];
  expect(runDir, result.stderr).toBeDefined();
  return { episode: JSON.parse(result.stdout) as CompletedEpisode, file: join(runDir!, 'episodes.jsonl') };
}

beforeAll(async () => {
  server = await startScriptedOpenAI({
    script: [
      { toolCalls: [toolCall('look', { heading_deg: 200, fov_deg: 40, pitch_deg: 10 })] },
      { toolCalls: [toolCall('move', { direction: 'forward', meters: 30 })] },
      { toolCalls: [toolCall('pin', { lat: 40, lon: -100 })] },
      { toolCalls: [toolCall('guess', { lat: 41, lon: -101 })] },
    ],
  });
  ({ episode: scripted, file: scriptedFile } = await record(['--task', '0', '--base-url', server.baseUrl, '--model', 'scripted']));
  ({ episode: baseline } = await record(['--task', '0', '--policy', 'random-land']));
  ({ episode: otherTask } = await record(['--task', '2', '--policy', 'random-land']));
}, 120_000);
afterAll(() => server.close());

const mixture = (d: number) => 0.5 * Math.exp(-d / 1492.7) + 0.5 * Math.exp(-d / 5000);

describe('geolab episodes compare', () => {
  it('prints both episodes of one task side by side within 100 columns', async () => {
    const r = await geolab(['episodes', 'compare', scripted.episode_id, baseline.episode_id.slice(0, 8)]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(100);
    expect(lines[0]).toMatch(/^task eval\/0 \(demo-00001\) · United States of America · truth /);
    expect(lines[1]).toContain(`A ${scripted.episode_id.slice(0, 8)} scripted@geolab-tools-1`);
    expect(lines[1]).toContain(`B ${baseline.episode_id.slice(0, 8)} random-land`);
    expect(r.stdout).toMatch(/ {3}1 view 200° S, pitch 10°, fov 40°, frame 0 +\+0\.01 │ guess /);
    expect(r.stdout).toMatch(/^ {3}2 move forward \d+ m → frame [1-5] +\+0\.05 │$/m);
    expect(r.stdout).toContain('pin 40.0000, -100.0000 ±7°');
  });

  it('gives the aligned structure as JSON, rewards recomputed on the reference curve', async () => {
    const r = await geolab(['episodes', 'compare', '--json', scripted.episode_id, baseline.episode_id]);
    expect(r.code, r.stderr).toBe(0);
    const c = JSON.parse(r.stdout) as {
      rows: { turn: number; a: { pin: number[] | null; cost: number } | null; b: unknown }[];
      a: { episode_id: string; outcome: { reference_reward: number; distance_km: number } };
      b: { outcome: { reference_reward: number } };
    };
    expect(c.rows.map((row) => [row.turn, row.a !== null, row.b !== null])).toEqual([
      [0, true, true],
      [1, true, true],
      [2, true, false],
      [3, true, false],
      [4, true, false],
    ]);
    expect(c.rows[3]!.a).toMatchObject({ pin: [40, -100], cost: 0.02 });
    const d = scripted.outcome.distance_km!;
    expect(c.a.episode_id).toBe(scripted.episode_id);
    expect(c.a.outcome.distance_km).toBe(d);
    expect(c.a.outcome.reference_reward).toBeCloseTo(mixture(d) * (1 - 0.08), 9);
    expect(c.b.outcome.reference_reward).toBeCloseTo(mixture(baseline.outcome.distance_km!), 9);
  });

  it('reads FILE:LINE as well as ids', async () => {
    const r = await geolab(['episodes', 'compare', `${scriptedFile}:1`, baseline.episode_id]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`A ${scripted.episode_id.slice(0, 8)} scripted`);
  });

  it('refuses episodes of different tasks (exit 2), naming both', async () => {
    const r = await geolab(['episodes', 'compare', scripted.episode_id, otherTask.episode_id]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `geolab: the episodes play different tasks: ${scripted.episode_id.slice(0, 8)} plays eval/0 (demo-00001), ${otherTask.episode_id.slice(0, 8)} plays eval/2 (demo-00005); compare two episodes of one task\n`,
    );
  });

  it('names the file, line and field of a bad record, and an unknown id (exit 2)', async () => {
    const file = join(tempDir(), 'bad.jsonl');
    writeFileSync(file, `${JSON.stringify(scripted)}\n${JSON.stringify({ ...scripted, task: { index: 0 } })}\n`);
    const bad = await geolab(['episodes', 'compare', `${file}:2`, baseline.episode_id]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(new RegExp(`^geolab: ${file}:2, field task\\.split: not a schema-v2 episode record: `));
    const unknown = await geolab(['episodes', 'compare', 'nosuchepisode', baseline.episode_id]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no episode nosuchepisode in');
    const two = join(tempDir(), 'two.jsonl');
    writeFileSync(two, `${JSON.stringify(scripted)}\n${JSON.stringify(baseline)}\n`);
    const many = await geolab(['episodes', 'compare', two, baseline.episode_id]);
    expect(many.code).toBe(2);
    expect(many.stderr).toContain(`holds 2 episodes: name one as ${two}:LINE (for example ${two}:1)`);
  });
});

describe('geolab episodes replay', () => {
  it('draws every recorded view, map and reveal again and finds each image unchanged', async () => {
    const r = await geolab(['episodes', 'replay', scripted.episode_id]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`episode ${scripted.episode_id} (${scripted.episode_id.slice(0, 8)}) · scripted · eval/0`);
    expect(lines.slice(1, -1).map((l) => l.trim().split(/\s+/).slice(0, 4).join(' '))).toEqual([
      'turn 0 view ok',
      'turn 1 view ok',
      'turn 2 view ok',
      'turn 3 map ok',
      'turn 4 map ok',
    ]);
    expect(lines.at(-1)).toBe('5 image(s) at view size 640: 5 ok, 0 changed, 0 cannot be drawn');
  });

  it('catches a changed view size and a tampered hash (exit 1)', async () => {
    const resized = await geolab(['episodes', 'replay', '--json', '--view-size', '512', scripted.episode_id]);
    expect(resized.code, resized.stderr).toBe(1);
    const report = JSON.parse(resized.stdout) as { changed: number; ok: number; episodes: { turns: { turn: number; status: string; kind: string }[] }[] };
    expect(report).toMatchObject({ changed: 3, ok: 2 });
    expect(report.episodes[0]!.turns.map((t) => `${t.kind}:${t.status}`)).toEqual(['view:changed', 'view:changed', 'view:changed', 'map:ok', 'map:ok']);

    const lines = readFileSync(scriptedFile, 'utf8').trim().split('\n');
    const tampered = JSON.parse(lines[0]!) as CompletedEpisode;
    tampered.turns[3]!.image_sha256 = '0'.repeat(64);
    const file = join(tempDir(), 'episodes.jsonl');
    writeFileSync(file, JSON.stringify(tampered) + '\n');
    const r = await geolab(['episodes', 'replay', `${file}:1`]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/turn {2}3 {2}map {3}changed {7}map 40, -100 ±7°, 1 pin\(s\): recorded 000000000000, drawn [0-9a-f]{12}\n/);
    expect(r.stdout).toContain('5 image(s) at view size 640: 4 ok, 1 changed, 0 cannot be drawn');
  });

  it('says which panorama is missing and how to get it, without calling it a change', async () => {
    const panos = join(tempDir(), 'panos');
    mkdirSync(panos);
    const task = makeTask(0, { country: 'United States of America' });
    // Any real panorama will do as this task's: the demo's, drawn in the workspace by the episodes above.
    const demoPanos = join(HOME, 'panos');
    const source = join(demoPanos, readdirSync(demoPanos).find((f) => f.endsWith('.jpg'))!);
    for (const frame of (task as { frames: { image_id: string }[] }).frames) copyFileSync(source, join(panos, `${frame.image_id}.jpg`));
    const tasks = join(tempDir(), 'mine.jsonl');
    writeFileSync(tasks, JSON.stringify(task) + '\n');
    expect((await geolab(['tasks', 'import', tasks, '--name', 'mine', '--panos', panos])).code).toBe(0);
    const played = await geolab(['agent', '--json', '--split', 'mine', '--task', '0', '--policy', 'fixed', '--point', '45,7']);
    expect(played.code, played.stderr).toBe(0);
    const id = (JSON.parse(played.stdout) as CompletedEpisode).episode_id;
    rmSync(join(panos, 'img0a.jpg'));
    const r = await geolab(['episodes', 'replay', id]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`turn  0  view  cannot-render panorama of image img0a is not in the cache (looked up ${join(panos, 'img0a.jpg')}): get it with \`geolab panos fetch`);
    expect(r.stdout).toContain('2 image(s) at view size 640: 1 ok, 0 changed, 1 cannot be drawn');
  });
});
