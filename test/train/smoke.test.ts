/**
 * `geolab train smoke` through the real binary (docs/training.md, "Smoke test"): the real pre-flight on
 * a fake GPU machine (test/train/machine.ts), the real local environment server, the stand-in trainer
 * (test/fixtures/fake-trainer.py, a real python3 process) and a stand-in vLLM
 * (python-fixtures/fake_vllm.py, a real OpenAI-compatible server on 127.0.0.1) beside the config's
 * python, as `<venv>/bin/vllm` is in a real Python environment.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { geolab, jsonLines, spawnGeolab } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { StartedGroups } from '../helpers/processes.js';
import { readCmdline } from '../../src/processes.js';
import { fakeMachine, GOOD_PACKAGES, TORCH_CU128_REQUIRES } from './machine.js';
import { FIXTURES, PYTHON } from './python-helpers.js';

const TRAINER = fileURLToPath(new URL('../fixtures/fake-trainer.py', import.meta.url));
const FAKE_VLLM = join(FIXTURES, 'fake_vllm.py');
/** The real interpreter, by its full path: the fake machine's PATH has no python of its own. */
const REAL_PYTHON = execFileSync('sh', ['-c', `command -v ${PYTHON}`], { encoding: 'utf8' }).trim();

const home = tempDir();
const leftovers = new StartedGroups();

afterAll(() => leftovers.killAll());

/**
 * A Python environment folder: bin/python answers pre-flight's package probe (`-c`) with the pinned
 * versions and runs anything else in the real python3; bin/vllm is the stand-in server.
 */
function venv(): string {
  const bin = join(tempDir('geolab-venv-'), 'bin');
  mkdirSync(bin, { recursive: true });
  const probe = JSON.stringify({ python: '3.11.7', packages: GOOD_PACKAGES, torch_requires: TORCH_CU128_REQUIRES });
  const script = (name: string, body: string) => {
    writeFileSync(join(bin, name), `#!/bin/sh\n${body}\n`);
    chmodSync(join(bin, name), 0o755);
  };
  script('python', `if [ "$1" = "-c" ]; then\ncat <<'END'\n${probe}\nEND\nexit 0\nfi\nexec '${REAL_PYTHON}' "$@"`);
  script('vllm', `exec '${REAL_PYTHON}' '${FAKE_VLLM}' "$@"`);
  return join(bin, 'python');
}

/**
 * A run's config in a folder of its own: the recipe with groups of 2 (2 completions a step), so the
 * pre-flight's concurrent sessions (one per completion of the smoke's generation batch) stay few on a
 * busy test machine.
 */
function writeConfig(name: string): { file: string; text: string; smoke: string } {
  const dir = tempDir('geolab-smoke-');
  const file = join(dir, 'config.json');
  const grpo = { num_generations: 2, generation_batch_size: 2, gradient_accumulation_steps: 2 };
  const text = JSON.stringify({ version: 1, name, output_dir: '.', python: venv(), env: { split: 'train' }, grpo }, null, 2) + '\n';
  writeFileSync(file, text);
  return { file, text, smoke: join(dir, 'smoke') };
}

function smokeEnv(env: Record<string, string>, gpu: boolean): Record<string, string> {
  const machine = fakeMachine({ python: null, ...(gpu ? {} : { gpus: null }) });
  return { PATH: machine.path, PYTHONDONTWRITEBYTECODE: '1', FAKE_STEP_S: '0.1', ...env };
}

function smoke(args: string[], env: Record<string, string> = {}, gpu = true) {
  return geolab(['train', 'smoke', ...args], { home, env: smokeEnv(env, gpu), timeoutMs: 170_000 });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').length > 0;
  } catch {
    return false;
  }
}

/** The pids a smoke run started, from its launch.json and the serve line. */
function pidsOf(smokeDir: string, stdout: string): number[] {
  if (!existsSync(join(smokeDir, 'launch.json'))) return [];
  const record = JSON.parse(readFileSync(join(smokeDir, 'launch.json'), 'utf8')) as { pid: number; start_time?: number; env_server: { pid: number; start_time?: number } | null };
  const served = /^serving .* \(pid (\d+),/m.exec(stdout);
  leftovers.addLaunch(record);
  // The served model's start time is not recorded: read now, so a pid already reused by another test is not kept.
  if (served && readCmdline(Number(served[1]))?.some((arg) => arg.endsWith('fake_vllm.py'))) leftovers.add(Number(served[1]));
  return [record.pid, ...(record.env_server ? [record.env_server.pid] : []), ...(served ? [Number(served[1])] : [])];
}

/** Every pattern matches a line of `text`, each below the one before. */
function inOrder(text: string, patterns: (string | RegExp)[]): void {
  const lines = text.split('\n');
  let at = -1;
  for (const p of patterns) {
    const found = lines.findIndex((l, i) => i > at && (typeof p === 'string' ? l === p : p.test(l)));
    expect(found, `${String(p)} after line ${at} of:\n${text}`).toBeGreaterThan(at);
    at = found;
  }
}

describe('geolab train smoke', () => {
  it('pre-flight, environment, step 1/2, step 2/2, checkpoint-2, one reply from the served adapter; the user config untouched, nothing left running', () => {
    const { file, text, smoke: dir } = writeConfig('smk');
    const record = join(tempDir(), 'requests.jsonl');
    const r = smoke([file, '--trainer', TRAINER], { FAKE_VLLM_RECORD: record });
    const pids = pidsOf(dir, r.stdout);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    inOrder(r.stdout, [
      'pre-flight ok',
      /^environment up: http:\/\/127\.0\.0\.1:\d+ \(local, pid \d+\)$/,
      `trainer started: pid ${pids[0]}, log ${join(dir, 'train.log')}`,
      /^step 1\/2 · reward 0\.450 · loss 0\.0100/,
      /^step 2\/2 · reward 0\.700 · loss 0\.00500/,
      `checkpoint checkpoint-2: ${join(dir, 'checkpoint-2')}`,
      /^serving smk-ckpt2 on http:\/\/127\.0\.0\.1:\d+\/v1 \(pid \d+, log .*serve\.log\)$/,
      'served, one reply: "Bollards of smk-ckpt2: Poland, I think."',
      /^smoke ok in \d+ s: the stack trains, saves a checkpoint and serves it$/,
    ]);
    // Each step once: the stand-in's "Loading checkpoint shards: 2/2" bar is no step 2 of a two-step run.
    expect(r.stdout.match(/^step \d\/2/gm)).toEqual(['step 1/2', 'step 2/2']);

    // The user's config is as it was; the smoke's own config is the recipe with the run's length changed.
    expect(readFileSync(file, 'utf8')).toBe(text);
    const user = (JSON.parse(geolab(['train', 'launch', file, '--dry-run', '--no-preflight', '--json'], { home }).stdout) as { grpo_config: Record<string, unknown> }).grpo_config;
    const ran = JSON.parse(readFileSync(join(dir, 'config.resolved.json'), 'utf8')) as { output_dir: string; env: { url: string }; grpo: Record<string, unknown> };
    expect(ran.output_dir).toBe(dir);
    expect(ran.env.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // One generation batch for both steps: twice a step's 2 completions.
    expect(ran.grpo).toMatchObject({ max_steps: 2, save_steps: 2, generation_batch_size: 4, logging_steps: 1 });
    for (const key of ['learning_rate', 'num_generations', 'gradient_accumulation_steps', 'max_completion_length', 'vllm_importance_sampling_correction', 'temperature', 'beta']) {
      expect(ran.grpo[key], key).toEqual(user[key]);
    }
    // The trainer reached the environment server launch started.
    expect(readFileSync(join(dir, 'train.log'), 'utf8')).toContain(`environment at ${ran.env.url}: healthy`);

    // Served as `train serve` serves it, and asked in the trained mode (thinking off).
    const serveLog = readFileSync(join(dir, 'serve.log'), 'utf8');
    expect(serveLog).toContain('serving Qwen/Qwen3.5-4B with');
    expect(serveLog).toContain(`"--lora-modules": "smk-ckpt2=${join(dir, 'checkpoint-2')}"`);
    expect(serveLog).toContain('"--reasoning-parser": "qwen3"');
    const asked = jsonLines(readFileSync(record, 'utf8')) as { model: string; messages: { role: string }[]; chat_template_kwargs: unknown }[];
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ model: 'smk-ckpt2', chat_template_kwargs: { enable_thinking: false } });
    expect(asked[0]!.messages.map((m) => m.role)).toEqual(['user']);

    // Trainer, environment server and vLLM server all ended.
    expect(pids).toHaveLength(3);
    for (const pid of pids) expect(alive(pid), `pid ${pid}`).toBe(false);
  }, 180_000);

  it("the shipped trainer on the stand-in trl/transformers: TRL is handed the smoke's length and the recipe's every other argument", () => {
    const { file, smoke: dir } = writeConfig('smk-real');
    const r = smoke([file], { PYTHONPATH: join(FIXTURES, 'stand-in-stack') });
    pidsOf(dir, r.stdout);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    inOrder(r.stdout, ['pre-flight ok', 'trainer training', /^step 1\/2 · reward /, /^step 2\/2 · reward /, `checkpoint checkpoint-2: ${join(dir, 'checkpoint-2')}`, /^served, one reply: /]);
    const handed = JSON.parse(readFileSync(join(dir, 'standin-trainer.json'), 'utf8').trim().split('\n')[0]!) as { model: string; grpo_config: Record<string, unknown> };
    expect(handed.model).toBe('Qwen/Qwen3.5-4B');
    expect(handed.grpo_config).toMatchObject({ max_steps: 2, save_steps: 2, generation_batch_size: 4, logging_steps: 1, output_dir: dir, vllm_importance_sampling_correction: false, learning_rate: 3e-5 });
  }, 180_000);

  it('a trainer that dies at step 2 fails the training stage: the stage, the last log lines and the log named, exit 1, nothing served', () => {
    const { file, smoke: dir } = writeConfig('smk-crash');
    const r = smoke([file, '--trainer', TRAINER, '--json'], { FAKE_CRASH_AT: '1' });
    const pids = pidsOf(dir, '');
    expect(r.code, r.stderr).toBe(1);
    const events = jsonLines(r.stdout) as { stage: string; step?: number; at?: string; log?: string; message?: string }[];
    // What it printed, and the trainer's log, when the run failed elsewhere than at step 2.
    const said = () => `${r.stderr}\n${r.stdout}\n${existsSync(join(dir, 'train.log')) ? readFileSync(join(dir, 'train.log'), 'utf8') : '(no train.log)'}`;
    expect(events.filter((e) => e.stage === 'step').map((e) => e.step), said()).toEqual([1]);
    expect(events.some((e) => e.stage === 'serving' || e.stage === 'reply')).toBe(false);
    expect(events.at(-1)).toMatchObject({ stage: 'failed', at: 'training', log: join(dir, 'train.log') });
    expect(r.stderr).toContain('geolab: smoke failed at training: the trainer ended after step 1 of 2; the last lines of its log:');
    expect(r.stderr).toContain('torch.OutOfMemoryError: CUDA out of memory');
    expect(r.stderr).toContain(`log: ${join(dir, 'train.log')}`);
    // The environment server launch started is stopped with the run.
    expect(pids).toHaveLength(2);
    for (const pid of pids) expect(alive(pid), `pid ${pid}`).toBe(false);
  }, 180_000);

  it('--model swaps the base model; a vLLM that does not load fails the serve stage, naming serve.log', () => {
    const { file, smoke: dir } = writeConfig('smk-serve');
    const r = smoke([file, '--trainer', TRAINER, '--model', 'Qwen/Qwen3-1.7B'], { FAKE_VLLM_FAIL: '1' });
    pidsOf(dir, r.stdout);
    expect(r.stdout, r.stderr).toContain(`checkpoint checkpoint-2: ${join(dir, 'checkpoint-2')}`);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('geolab: smoke failed at serve: the vLLM server exited before it served smk-serve-ckpt2');
    expect(r.stderr).toContain(`log: ${join(dir, 'serve.log')}`);
    expect(readFileSync(join(dir, 'serve.log'), 'utf8')).toContain('Engine core initialization failed');
    expect(readFileSync(join(dir, 'serve.log'), 'utf8')).toContain('serving Qwen/Qwen3-1.7B with');
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'))).toMatchObject({ model: 'Qwen/Qwen3-1.7B' });
    expect(JSON.parse(readFileSync(file, 'utf8'))).not.toHaveProperty('model');
  }, 180_000);

  it('Ctrl-C while it trains stops the trainer and the environment server and exits 130', async () => {
    const { file, smoke: dir } = writeConfig('smk-int');
    // The stand-in waits after step 1 until it is signalled, however slow the machine.
    const { child, done } = spawnGeolab(['train', 'smoke', file, '--trainer', TRAINER], { home, env: smokeEnv({ FAKE_HOLD_AT: '1' }, true), timeoutMs: 170_000 });
    let seen = '';
    await new Promise<void>((resolve) =>
      child.stdout!.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        if (/^step 1\/2/m.test(seen)) resolve();
      }),
    );
    child.kill('SIGINT');
    const r = await done;
    const pids = pidsOf(dir, r.stdout);
    expect(r.code, r.stderr).toBe(130);
    expect(r.stderr).toContain('interrupted: the smoke run was stopped');
    expect(r.stdout).not.toContain('step 2/2');
    expect(r.stdout).not.toContain('serving');
    expect(pids).toHaveLength(2);
    for (const pid of pids) expect(alive(pid), `pid ${pid}`).toBe(false);
  }, 180_000);

  it('without a GPU it stops at pre-flight: exit 1 naming the GPU, nothing started or written', () => {
    const { file, smoke: dir } = writeConfig('smk-nogpu');
    const r = smoke([file, '--trainer', TRAINER], {}, false);
    expect(r.code).toBe(1);
    expect(r.stdout).not.toContain('pre-flight ok');
    expect(r.stderr).toContain('pre-flight fail: gpu.present: nvidia-smi not found on PATH: no NVIDIA driver here');
    expect(r.stderr).toContain('geolab: smoke failed at pre-flight');
    expect(existsSync(dir)).toBe(false);
  }, 120_000);
});
