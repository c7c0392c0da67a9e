/**
 * Stop means checkpoint (docs/training.md): the shipped geolab_trainer.py on the stand-in transformers/trl
 * pair (test/train/python-fixtures/stand-in-stack, whose Trainer loop calls on_step_end and saves when the
 * control asks, as the real one does). SIGINT mid-step: the step ends, checkpoint-N/ is written, the
 * trainer logs "checkpoint saved" and exits 0; `geolab train stop` waits for that line and says so.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TrainConfigSchema } from '../../src/train/config.js';
import * as pythonPath from '../../src/train/python-path.js';
import { jsonLines, spawnGeolab } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { StartedGroups } from '../helpers/processes.js';
import { startLive, type Live } from '../env/helpers/live.js';
import { FIXTURES, PYTHON } from './python-helpers.js';
import { cellValue, NOT_PASSED, recipeTable } from './recipe-table.js';

const STAND_IN = join(FIXTURES, 'stand-in-stack');
/** Long enough that the SIGINT lands inside a step; save_steps far away, so only the stop saves. */
const STEP_ENV = { STANDIN_STEP_S: '0.4', PYTHONPATH: STAND_IN, PYTHONDONTWRITEBYTECODE: '1' };

function configFile(live: Live, name: string): { file: string; out: string } {
  const dir = tempDir('geolab-stop-');
  const out = join(dir, 'out');
  const config = TrainConfigSchema.parse({
    version: 1,
    name,
    output_dir: out,
    python: PYTHON,
    env: { mode: 'remote', url: live.server.url, split: 'train' },
    grpo: { max_steps: 40, save_steps: 25, num_generations: 2, generation_batch_size: 2, gradient_accumulation_steps: 2 },
  });
  const file = join(dir, 'config.json');
  writeFileSync(file, JSON.stringify(config, null, 2));
  return { file, out };
}

async function waitFor(check: () => boolean, what: string, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const stepsIn = (out: string) =>
  existsSync(join(out, 'progress.jsonl')) ? (jsonLines(readFileSync(join(out, 'progress.jsonl'), 'utf8')) as { geolab: string; step?: number }[]).filter((e) => e.geolab === 'step').length : 0;

describe('train stop saves a checkpoint', () => {
  let live: Live;
  beforeAll(async () => {
    live = await startLive();
  }, 120_000);
  afterAll(() => live?.close());

  it('SIGINT mid-step: the step ends, checkpoint-N/ is saved, "checkpoint saved" is logged, exit 0, no final adapter', async () => {
    const { file, out } = configFile(live, 'stop1');
    const child = spawn(PYTHON, [pythonPath.TRAINER_SCRIPT, file], { env: { ...process.env, ...STEP_ENV }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    try {
      await waitFor(() => stepsIn(out) >= 2, 'two steps');
      child.kill('SIGINT');
      const code = await exited;
      expect(code, stderr).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
    const saved = /^geolab: checkpoint saved at step (\d+): (.+)$/m.exec(stdout);
    expect(saved, stdout).not.toBeNull();
    const step = Number(saved![1]);
    expect(step).toBeGreaterThanOrEqual(2);
    expect(step).toBeLessThan(25); // the stop's save, not a scheduled one
    expect(saved![2]).toBe(join(out, `checkpoint-${step}`));
    expect(JSON.parse(readFileSync(join(out, `checkpoint-${step}`, 'trainer_state.json'), 'utf8'))).toEqual({ global_step: step });
    expect(existsSync(join(out, `checkpoint-${step}`, 'adapter_config.json'))).toBe(true);
    // Stopped, not done: no final adapter, no done phase; the last step logged is the one saved.
    expect(existsSync(join(out, 'final'))).toBe(false);
    const events = jsonLines(readFileSync(join(out, 'progress.jsonl'), 'utf8')) as { geolab: string; phase?: string; step?: number }[];
    expect(events.some((e) => e.phase === 'done' || e.phase === 'failed')).toBe(false);
    expect(events.filter((e) => e.geolab === 'step').at(-1)?.step).toBe(step);
    expect(events.at(-1)).toMatchObject({ geolab: 'checkpoint', step });

    // What the stand-in GRPOConfig was given is the recipe table's geolab column (docs/training.md).
    const given = (jsonLines(readFileSync(join(out, 'standin-trainer.json'), 'utf8'))[0] as { grpo_config: Record<string, unknown> }).grpo_config;
    expect(Object.keys(given)[0]).toBe('vllm_importance_sampling_correction');
    for (const row of recipeTable()) {
      if (row.geolab === NOT_PASSED) expect(given).not.toHaveProperty(row.argument);
      else if (cellValue(row.geolab) && !['num_generations', 'generation_batch_size', 'gradient_accumulation_steps', 'max_steps'].includes(row.argument)) {
        expect(given[row.argument], row.argument).toEqual(cellValue(row.geolab)!.value);
      }
    }
  }, 120_000);

  it('`geolab train stop` waits for the checkpoint line, says which checkpoint, and the run counts as stopped', async () => {
    const { file, out } = configFile(live, 'stop2');
    const home = tempDir();
    const env = { ...STEP_ENV };
    const launched = await spawnGeolab(['train', 'launch', file, '--no-preflight', '--json'], { home, env }).done;
    expect(launched.code, launched.stderr).toBe(0);
    const record = JSON.parse(launched.stdout) as { pid: number; start_time: number; log_path: string };
    try {
      await waitFor(() => stepsIn(out) >= 1, 'a step');
      const stopped = await spawnGeolab(['train', 'stop', 'stop2'], { home, env }).done;
      expect(stopped.code, stopped.stderr).toBe(0);
      const log = readFileSync(record.log_path, 'utf8');
      const saved = /^geolab: checkpoint saved at step (\d+): (.+)$/m.exec(log);
      expect(saved, log).not.toBeNull();
      const step = Number(saved![1]);
      const path = join(out, `checkpoint-${step}`);
      expect(existsSync(join(path, 'trainer_state.json'))).toBe(true);
      expect(stopped.stderr).toContain('geolab: SIGINT to run "stop2"');
      expect(stopped.stderr).toContain(`geolab: checkpoint saved at step ${step}: ${path}`);
      expect(stopped.stderr).not.toContain('SIGTERM');
      expect(stopped.stdout).toBe(`run "stop2" stopped (SIGINT) after saving checkpoint-${step} (${path}); \`geolab train resume stop2\` continues from it\n`);
      const watched = JSON.parse((await spawnGeolab(['train', 'watch', 'stop2', '--once', '--json'], { home, env }).done).stdout) as { status: string };
      expect(watched.status).toBe('stopped');
    } finally {
      const started = new StartedGroups();
      started.addLaunch(record);
      started.killAll();
    }
  }, 120_000);
});
