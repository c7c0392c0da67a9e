/**
 * `geolab train launch | watch | stop | resume` through the real binary, with a stand-in trainer
 * (a real python3 process printing what TRL prints and writing checkpoints) and the real local
 * environment server it checks it can reach.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { geolab, spawnGeolab } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { StartedGroups } from '../helpers/processes.js';
import { closedPort, fakeMachine, RTX_24GB } from './machine.js';

const TRAINER = fileURLToPath(new URL('../fixtures/fake-trainer.py', import.meta.url));
const SECRET = 'secret-value-7f3a9c2e';

interface State {
  status: string;
  pid: number;
  env_url: string | null;
  snapshot: {
    phase: string;
    step: number | null;
    max_steps: number | null;
    metrics: { step: number; values: Record<string, number> }[];
    checkpoints: { step: number; path: string }[];
    resumed_from: { step: number; checkpoint: string } | null;
    crashed?: { last_lines: string[] };
  };
}

const home = tempDir();
const started = new StartedGroups();

function writeConfig(name: string, extra: Record<string, unknown> = {}, steps = 8): { file: string; outputDir: string } {
  const dir = tempDir();
  const file = join(dir, `${name}.json`);
  writeFileSync(
    file,
    JSON.stringify({ version: 1, name, output_dir: `runs/${name}`, python: 'python3', grpo: { max_steps: steps, save_steps: 3 }, secrets: ['HF_TOKEN'], ...extra }),
  );
  return { file, outputDir: join(dir, 'runs', name) };
}

function run(args: string[], env: Record<string, string> = {}) {
  return geolab(args, { home, env: { HF_TOKEN: SECRET, FAKE_STEP_S: '0.25', ...env } });
}

function snapshot(name: string): State {
  const r = run(['train', 'watch', name, '--once', '--json']);
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout) as State;
}

async function until(name: string, done: (s: State) => boolean): Promise<State> {
  for (let i = 0; i < 200; i++) {
    const s = snapshot(name);
    if (done(s)) return s;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`run ${name} never reached the state`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').length > 0;
  } catch {
    return false;
  }
}

function startTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 1).trim().split(' ')[19]);
}

/** An ended run's environment server is sent SIGTERM by whoever sees the run end; it takes a moment to close. */
async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 100));
  return !alive(pid);
}

// Whatever a failed assertion left running.
afterAll(() => started.killAll());

describe('train launch, watch, stop, resume', () => {
  it('--dry-run prints the commands and starts and writes nothing; several GPUs go through accelerate launch', () => {
    const { file, outputDir } = writeConfig('dry', { gpus: 2, grpo: { max_steps: 8, save_steps: 3, gradient_accumulation_steps: 4 } });
    const r = run(['train', 'launch', file, '--dry-run', '--no-preflight', '--json']);
    expect(r.code).toBe(0);
    const plan = JSON.parse(r.stdout) as { trainer: string[]; env_server: string[] };
    expect(plan.trainer.slice(0, 4)).toEqual(['accelerate', 'launch', '--num_processes', '2']);
    expect(plan.trainer.slice(-1)[0]).toBe(join(outputDir, 'config.resolved.json'));
    expect(plan.env_server).toEqual(expect.arrayContaining(['env', 'serve', '--port', '0', '--json', '--host', '127.0.0.1']));
    expect(existsSync(outputDir)).toBe(false);
  });

  it('runs the pre-flight first: a card too small for the recipe fails it, and nothing starts (exit 1)', async () => {
    const port = await closedPort();
    const { file, outputDir } = writeConfig('gated', { env: { mode: 'remote', url: `http://127.0.0.1:${port}` } });
    const r = run(['train', 'launch', file], { PATH: fakeMachine({ gpus: [RTX_24GB] }).path });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/pre-flight fail: gpu\.memory: .*RTX 4090/);
    expect(r.stderr).toContain('nothing launched');
    expect(existsSync(join(outputDir, 'launch.json'))).toBe(false);
  });

  it('launch -> progress -> stop -> stopped -> resume from the last checkpoint -> done, with no secret recorded', async () => {
    // The stand-in waits after step 5 until it is stopped, however slow the machine: the stop lands there.
    const { file, outputDir } = writeConfig('r1', {}, 12);
    const launched = run(['train', 'launch', file, '--no-preflight', '--trainer', TRAINER, '--json'], { FAKE_HOLD_AT: '5', FAKE_STEP_S: '0.1' });
    expect(launched.stderr).toBe('');
    expect(launched.code).toBe(0);
    const record = JSON.parse(launched.stdout) as { pid: number; start_time: number; env_server: { pid: number; start_time: number; url: string }; environment: Record<string, string> };
    started.addLaunch(record);
    expect(record.env_server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    // launch.json: the command, the redacted environment; the secret nowhere in the run's files.
    const launchFile = readFileSync(join(outputDir, 'launch.json'), 'utf8');
    expect(launchFile).not.toContain(SECRET);
    expect(JSON.parse(launchFile)).toMatchObject({ name: 'r1', pid: record.pid, environment: { HF_TOKEN: '[redacted]' } });
    // Each process with its start time (field 22 of /proc/PID/stat): what later tells it from a stranger at a reused pid.
    const written = JSON.parse(launchFile) as { start_time: number; env_server: { start_time: number } };
    expect(written.start_time).toBe(startTicks(record.pid));
    expect(written.env_server.start_time).toBe(startTicks(record.env_server.pid));
    expect(readFileSync(join(outputDir, 'config.resolved.json'), 'utf8')).toContain(record.env_server.url);

    const running = await until('r1', (s) => s.snapshot.step === 5);
    expect(running).toMatchObject({ status: 'running', env_url: record.env_server.url, snapshot: { phase: 'training', max_steps: 12 } });
    expect(running.snapshot.metrics.at(-1)!.values.reward).toBeGreaterThan(0);
    // The trainer reached the environment server launch started.
    expect(readFileSync(join(outputDir, 'train.log'), 'utf8')).toContain(`environment at ${record.env_server.url}: healthy`);

    const refused = run(['train', 'resume', 'r1', '--no-preflight']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('still running');

    const stopped = run(['train', 'stop', 'r1', '--grace', '20', '--json']);
    expect(stopped.code).toBe(0);
    const stop = JSON.parse(stopped.stdout) as { status: string; ended_by: string; step: number; checkpoints: { step: number }[] };
    expect(stop).toMatchObject({ status: 'stopped', ended_by: 'SIGINT', checkpoint_saved: { step: 5, path: join(outputDir, 'checkpoint-5') } });
    // SIGINT made the trainer save where it was (step 5 is no multiple of save_steps 3).
    expect(stop.step).toBe(5);
    expect(stop.checkpoints.map((c) => c.step)).toEqual([3, 5]);
    expect(alive(record.pid)).toBe(false);
    expect(alive(record.env_server.pid)).toBe(false);
    expect(snapshot('r1')).toMatchObject({ status: 'stopped' });

    // A fresh launch of the same run would start over its checkpoints: refused.
    const again = run(['train', 'launch', file, '--no-preflight', '--trainer', TRAINER]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('geolab train resume r1');

    // The resumed trainer holds before its first step until the gate file exists, so the watch below sees it training.
    const gate = join(outputDir, 'gate');
    const resumed = run(['train', 'resume', 'r1', '--no-preflight', '--json'], { FAKE_WAIT_FOR: gate });
    expect(resumed.stderr).toBe('');
    expect(resumed.code).toBe(0);
    const second = JSON.parse(resumed.stdout) as { pid: number; start_time: number; env_server: { pid: number; start_time: number }; command: string[] };
    started.addLaunch(second);
    expect(second.command).toContain('--resume');
    expect(second.command).toContain(TRAINER);

    // Followed without a terminal: a line per change, until the run ends. The gate opens once the
    // watch has printed the run training, held at step 5.
    const watching = spawnGeolab(['train', 'watch', 'r1', '--interval', '0.2'], { home, env: { HF_TOKEN: SECRET }, timeoutMs: 120_000 });
    let seen = '';
    watching.child.stdout!.on('data', (chunk: Buffer) => (seen += chunk.toString()));
    for (let i = 0; i < 600 && !/r1 · training · step 5\/12/.test(seen); i++) await new Promise((r) => setTimeout(r, 50));
    expect(seen).toMatch(/r1 · training · step 5\/12/);
    writeFileSync(gate, '');
    const followed = await watching.done;
    expect(followed.code).toBe(0);
    expect(followed.stdout).toContain('run r1 done at step 12/12');

    const done = snapshot('r1');
    expect(done).toMatchObject({ status: 'done', snapshot: { phase: 'done', step: 12, resumed_from: { step: 5 } } });
    // The log holds both processes; the history counts each step once.
    expect(done.snapshot.metrics.map((p) => p.step)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    expect(await gone(second.env_server.pid)).toBe(true);

    const text = run(['train', 'watch', 'r1', '--once']);
    expect(text.stdout).toContain('run r1 · done');
    expect(text.stdout).toContain(`resumed from ${outputDir}/checkpoint-5`);
    for (const f of ['launch.json', 'train.log', 'progress.jsonl', 'config.resolved.json']) expect(readFileSync(join(outputDir, f), 'utf8')).not.toContain(SECRET);

    // Served by its name, as watch takes it: the final adapter the run saved.
    const serve = run(['train', 'serve', 'r1', '--json']);
    expect(serve.code).toBe(0);
    expect(JSON.parse(serve.stdout)).toMatchObject({ adapter: join(outputDir, 'final'), checkpoint: null });
  }, 180_000);

  it('a crash is detected and reported with the last lines of the log (exit 1)', async () => {
    const { file } = writeConfig('r2');
    const launched = run(['train', 'launch', file, '--no-preflight', '--trainer', TRAINER, '--json'], { FAKE_CRASH_AT: '2', FAKE_STEP_S: '0.1' });
    expect(launched.code).toBe(0);
    const record = JSON.parse(launched.stdout) as { pid: number; start_time: number; env_server: { pid: number; start_time: number } };
    started.addLaunch(record);

    const followed = run(['train', 'watch', 'r2', '--interval', '0.2']);
    expect(followed.code).toBe(1);
    expect(followed.stdout).toContain('run r2 crashed at step 2/8');
    expect(followed.stdout).toContain('Traceback (most recent call last):');
    expect(followed.stdout).toContain('torch.OutOfMemoryError: CUDA out of memory');

    const once = run(['train', 'watch', 'r2', '--once', '--json']);
    expect(once.code).toBe(1);
    const state = JSON.parse(once.stdout) as State;
    expect(state).toMatchObject({ status: 'crashed', snapshot: { phase: 'failed' } });
    expect(state.snapshot.crashed!.last_lines.at(-1)).toContain('CUDA out of memory');
    // The environment server is not left serving a run that is gone.
    expect(await gone(record.env_server.pid)).toBe(true);
  }, 120_000);

  it('names an unknown run with the ones there are; the plain workspace summary lists the runs', () => {
    const r = run(['train', 'watch', 'nope', '--once']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no training run "nope" in this workspace \(runs: .*r1/);
    const summary = run([]);
    expect(summary.stdout).toMatch(/\ntraining +r2 crashed 2\/8 · r1 done 12\/12\n/);
    expect(JSON.parse(run(['--json']).stdout)).toMatchObject({ train_runs: [{ name: 'r2', status: 'crashed' }, { name: 'r1', status: 'done', step: 12, max_steps: 12 }] });
  });
});
