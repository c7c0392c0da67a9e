/**
 * How many episodes `geolab eval run` keeps in flight (docs/sweeps.md, "How many episodes at once"),
 * seen from a real loopback endpoint that never answers, so every request it holds is an episode in
 * flight: `--concurrency` fixes the number; without it the number follows the machine, which here is
 * idle (the endpoint is the bottleneck), so it stays at the models' capacity.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnGeolab } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { startScriptedOpenAI, type ScriptedOpenAI } from '../helpers/scripted-openai.js';
import type { SweepStatus } from '../../src/eval/sweep-status.js';

const HOME = tempDir('geolab-eval-throttle-');
const TIMEOUT_MS = 120_000;
let server: ScriptedOpenAI | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

async function hangingModel(dir: string, concurrency?: number): Promise<string> {
  server = await startScriptedOpenAI({ script: () => ({ hang: true }), models: [{ id: 'qwen-vl' }] });
  const file = join(dir, 'models.json');
  writeFileSync(file, JSON.stringify([{ name: 'qwen', model: 'qwen-vl', base_url: server.baseUrl, ...(concurrency ? { concurrency } : {}) }]));
  return file;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const status = (out: string) => JSON.parse(readFileSync(join(out, 'sweep.json'), 'utf8')) as SweepStatus;

describe('episodes in flight', () => {
  it('--concurrency fixes them: never more than asked, over several of the machine\'s windows', async () => {
    const dir = tempDir('geolab-throttle-');
    const out = join(dir, 'out');
    const models = await hangingModel(dir);
    const sweep = spawnGeolab(['eval', 'run', '--models', models, '--limit', '6', '--passes', '4', '--out', out, '--concurrency', '3', '--timeout', '60'], { home: HOME, timeoutMs: TIMEOUT_MS });
    while (server!.requests.length < 3) await sleep(20);
    await sleep(5_000); // two windows and more: a limit that followed the machine would have risen
    expect(server!.requests.length).toBe(3);
    expect(status(out).machine).toMatchObject({ in_flight: 3, limit: 3, adaptive: false, cpu_bound: false });
    sweep.child.kill('SIGINT');
    const done = await sweep.done;
    expect(done.code, done.stderr).toBe(130);
    expect(done.stderr).toMatch(/episodes in flight: limit 3 \(fixed by --concurrency\); CPU-bound in \d+ of \d+ 2-second windows/);
  }, TIMEOUT_MS);

  it('without it they follow the machine: the capacity while the endpoint is the bottleneck, and never past it', async () => {
    const dir = tempDir('geolab-throttle-');
    const out = join(dir, 'out');
    const capacity = 20;
    const models = await hangingModel(dir, capacity);
    const sweep = spawnGeolab(['eval', 'run', '--models', models, '--limit', '6', '--passes', '4', '--out', out, '--timeout', '60'], { home: HOME, timeoutMs: TIMEOUT_MS });
    while (server!.requests.length < capacity && sweep.child.exitCode === null) await sleep(50);
    // A start on a busy machine may take the limit down for a window; with the endpoint the
    // bottleneck it comes back to the capacity, and never past it.
    for (let waited = 0; status(out).machine?.limit !== capacity && waited < 30_000; waited += 200) await sleep(200);
    await sleep(2_500); // another window
    expect(server!.requests.length).toBe(capacity);
    expect(status(out).machine).toMatchObject({ in_flight: capacity, limit: capacity, adaptive: true });
    sweep.child.kill('SIGINT');
    const done = await sweep.done;
    expect(done.code, done.stderr).toBe(130);
    expect(done.stderr).toMatch(/episodes in flight: limit 20 \(following the machine\)/);
  }, TIMEOUT_MS);
});
