import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { launchCommand } from '../../src/cli/commands/train-run.js';
import { parseTrainConfig, type TrainConfig } from '../../src/train/config.js';
import { checkpointSteps } from '../../src/train/checkpoints.js';
import { envServerCommand, planLaunch, recordedEnvironment, trainerCommand } from '../../src/train/launch.js';
import type { PreflightReport } from '../../src/train/types.js';
import { tempDir } from '../helpers/fixtures.js';

function config(input: Record<string, unknown> = {}): TrainConfig {
  const parsed = parseTrainConfig({ version: 1, name: 'r', output_dir: '/runs/r', ...input });
  if ('problems' in parsed) throw new Error(JSON.stringify(parsed.problems));
  return parsed.config;
}

afterEach(() => {
  vi.restoreAllMocks();
  process.exitCode = undefined;
});

describe('launch commands', () => {
  it("runs the config's python on one GPU and the accelerate beside it on several", () => {
    expect(trainerCommand(config(), '/g/trainer.py', '/runs/r/config.resolved.json', false)).toEqual(['python3', '/g/trainer.py', '/runs/r/config.resolved.json']);
    expect(trainerCommand(config(), '/g/trainer.py', '/c.json', true)).toEqual(['python3', '/g/trainer.py', '/c.json', '--resume']);
    const four = config({ gpus: 4, python: '/venv/bin/python', grpo: { gradient_accumulation_steps: 2 } });
    expect(trainerCommand(four, '/g/trainer.py', '/c.json', false)).toEqual(['/venv/bin/accelerate', 'launch', '--num_processes', '4', '/g/trainer.py', '/c.json']);
  });

  it('takes a relative --trainer from the current directory, not from the run folder the trainer starts in', () => {
    const plan = planLaunch({ configPath: '/runs/r/config.json', config: config(), resume: false, script: 'test/fixtures/fake-trainer.py' });
    expect(plan.trainer[1]).toBe(join(process.cwd(), 'test/fixtures/fake-trainer.py'));
  });

  it('serves the environment on loopback, a free port, with a session for every rollout at once', () => {
    const argv = envServerCommand(config({ env: { tasks: ['train=train.jsonl'], panos: 'panos' }, gpus: 8, grpo: { generation_batch_size: 64, gradient_accumulation_steps: 1 } }), 'ws');
    expect(argv.slice(2)).toEqual(['env', 'serve', '--host', '127.0.0.1', '--port', '0', '--json', '--max-sessions', '1024', '--tasks', 'train=train.jsonl', '--panos', 'panos', '--workspace', join(process.cwd(), 'ws')]);
  });

  it('records the environment with keys replaced, also where a key sits inside another value', () => {
    const token = 'hf_T0kenValue123456';
    const recorded = recordedEnvironment(
      { HF_TOKEN: token, HUB_URL: `https://u:${token}@hub.example`, RUN_PASSCODE: 'custom-secret-value', HOME: '/home/x', OPENAI_API_KEY: 'sk-test-0123456789', PGPASSWORD: 'pg-password-value', GIT_AUTHOR_NAME: 'Ada' },
      ['RUN_PASSCODE'],
    );
    expect(recorded).toMatchObject({ HF_TOKEN: '[redacted]', RUN_PASSCODE: '[redacted]', OPENAI_API_KEY: '[redacted]', PGPASSWORD: '[redacted]', HOME: '/home/x', GIT_AUTHOR_NAME: 'Ada' });
    expect(recorded.HUB_URL).toBe('https://u:[redacted]@hub.example');
    expect(JSON.stringify(recorded)).not.toMatch(/T0kenValue|custom-secret|0123456789|pg-password/);
  });

  it('finds the checkpoint-N folders, newest last, and nothing else', () => {
    const dir = tempDir();
    for (const name of ['checkpoint-12', 'checkpoint-3', 'checkpoint-x', 'traces']) mkdirSync(join(dir, name));
    writeFileSync(join(dir, 'checkpoint-99'), '');
    expect(checkpointSteps(dir)).toEqual([3, 12]);
    expect(checkpointSteps(join(dir, 'absent'))).toEqual([]);
  });
});

describe('the pre-flight gate', () => {
  function captured() {
    const out: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (out.push(String(chunk)), true));
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => (out.push(String(chunk)), true));
    return out;
  }

  it('a failed check launches nothing and exits 1, saying what to change', async () => {
    const dir = tempDir();
    const file = join(dir, 'c.json');
    writeFileSync(file, JSON.stringify({ version: 1, name: 'gate', output_dir: 'out', env: { mode: 'remote', url: 'http://127.0.0.1:9' } }));
    const report: PreflightReport = {
      ok: false,
      checks: [
        { id: 'gpu.memory', status: 'fail', message: 'NVIDIA L4, 23,034 MiB', fix: 'the recipe needs >= 80 GB' },
        { id: 'python.trl', status: 'pass', message: 'trl 1.12.0' },
      ],
    };
    const out = captured();
    const preflight = vi.fn(async () => report);
    await launchCommand(file, { workspace: tempDir() }, { preflight });
    expect(preflight).toHaveBeenCalledOnce();
    expect(process.exitCode).toBe(1);
    expect(out.join('')).toContain('pre-flight fail: gpu.memory: NVIDIA L4, 23,034 MiB (the recipe needs >= 80 GB)');
    expect(out.join('')).not.toContain('python.trl');
    expect(existsSync(join(dir, 'out'))).toBe(false);
  });

  it('a dry run checks too, then prints the plan with warnings shown', async () => {
    const dir = tempDir();
    const file = join(dir, 'c.json');
    writeFileSync(file, JSON.stringify({ version: 1, name: 'dry', output_dir: 'out', env: { mode: 'remote', url: 'http://127.0.0.1:9' } }));
    const out = captured();
    await launchCommand(file, { dryRun: true }, { preflight: async () => ({ ok: true, checks: [{ id: 'disk.free', status: 'warn', message: '40 GB free' }] }) });
    expect(process.exitCode).toBeUndefined();
    expect(out.join('')).toContain('pre-flight warn: disk.free: 40 GB free');
    expect(out.join('')).toContain(`trainer:            python3 `);
    expect(out.join('')).not.toContain('environment server:');
    expect(existsSync(join(dir, 'out'))).toBe(false);
  });
});
