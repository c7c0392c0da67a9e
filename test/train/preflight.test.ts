import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTrainConfig, type TrainConfig, type TrainConfigInput } from '../../src/train/config.js';
import { atLeast, runPreflight, type PreflightOptions } from '../../src/train/preflight.js';
import type { PreflightCheck } from '../../src/train/types.js';
import { openWorkspace } from '../../src/store/index.js';
import { geolab } from '../helpers/cli.js';
import { makeTask, tempDir, writeJsonl } from '../helpers/fixtures.js';
import { A100, GOOD_PACKAGES, RTX_24GB, V100, closedPort, fakeMachine, type Machine } from './machine.js';

function config(input: Partial<TrainConfigInput> = {}): TrainConfig {
  const parsed = parseTrainConfig({ version: 1, name: 'run1', output_dir: tempDir(), ...input });
  if ('problems' in parsed) throw new Error(JSON.stringify(parsed.problems));
  return parsed.config;
}

/** A remote environment nobody serves: the machine checks run, the environment's fails fast. */
async function offline(input: Partial<TrainConfigInput> = {}): Promise<TrainConfig> {
  return config({ env: { mode: 'remote', url: `http://127.0.0.1:${await closedPort()}` }, ...input });
}

async function checks(cfg: TrainConfig, machine: Machine = {}, options: PreflightOptions = {}): Promise<Map<string, PreflightCheck>> {
  const { path } = fakeMachine(machine);
  const report = await runPreflight(cfg, { env: { PATH: path }, ...options });
  expect(report.ok).toBe(report.checks.every((c) => c.status !== 'fail'));
  return new Map(report.checks.map((c) => [c.id, c]));
}

describe('pre-flight: the machine', () => {
  it('passes an A100 80GB with the pinned stack', async () => {
    const found = await checks(await offline());
    expect(found.get('gpu.present')).toEqual({ id: 'gpu.present', status: 'pass', message: '1 GPU: NVIDIA A100-SXM4-80GB' });
    expect(found.get('gpu.memory')).toMatchObject({ status: 'pass', message: 'NVIDIA A100-SXM4-80GB, 81,920 MiB total: the run fits (about 40.9 GiB of 80.0 GiB)' });
    expect(found.get('gpu.bf16')).toMatchObject({ status: 'pass' });
    expect(found.get('gpu.free')).toMatchObject({ status: 'pass', message: '81,000 MiB free' });
    expect(found.get('python.version')).toMatchObject({ status: 'pass', message: 'python3: Python 3.11.7' });
    for (const name of ['torch', 'transformers', 'trl', 'peft', 'vllm', 'accelerate']) expect(found.get(`python.${name}`)?.status).toBe('pass');
    expect(found.get('config.valid')).toMatchObject({ status: 'pass', message: 'run1: Qwen/Qwen3.5-4B, 250 steps of 1 task x 8 completions, 10 checkpoints, 1 GPU' });
  });

  it('fails a 24 GB card with what to change; a model whose size is unknown only warns once the settings are smaller than the recipe', async () => {
    const found = await checks(await offline(), { gpus: [RTX_24GB] });
    const memory = found.get('gpu.memory')!;
    expect(memory).toMatchObject({ status: 'fail', message: expect.stringMatching(/^NVIDIA GeForce RTX 4090, 24,564 MiB total: the run does not fit: vLLM's share \(5\.3 GiB\) cannot hold/) });
    for (const hint of ['smaller model', 'grpo.vllm_gpu_memory_utilization (0.22; it needs >= 0.45 here)', 'grpo.max_model_len (32768)']) expect(memory.fix).toContain(hint);
    const unknown = join(tempDir(), 'no-such-model');
    const bigger = await checks(await offline({ model: unknown }), { gpus: [RTX_24GB] });
    expect(bigger.get('gpu.memory')).toMatchObject({ status: 'warn', message: expect.stringContaining("below the recipe's 80 GB") });
  });

  it('fails without nvidia-smi, with a hint, and a GPU without bf16', async () => {
    const none = await checks(await offline(), { gpus: null });
    expect(none.get('gpu.present')).toMatchObject({ status: 'fail', message: 'nvidia-smi not found on PATH: no NVIDIA driver here' });
    expect(none.get('gpu.present')!.fix).toContain('GPU machine');
    expect(none.has('gpu.memory')).toBe(false);
    const empty = await checks(await offline(), { gpus: [] });
    expect(empty.get('gpu.present')).toMatchObject({ status: 'fail', message: 'nvidia-smi lists no GPU' });
    const broken = await checks(await offline(), { gpus: null, bins: { 'nvidia-smi': "echo \"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\" >&2; exit 9" } });
    expect(broken.get('gpu.present')!.message).toContain("couldn't communicate with the NVIDIA driver");
    const old = await checks(await offline(), { gpus: [V100] });
    expect(old.get('gpu.bf16')).toMatchObject({ status: 'fail', message: 'Tesla V100-SXM2-32GB has compute capability 7.0: no bf16 (needs 8.0, Ampere or newer)' });
  });

  it('counts GPUs against the config and warns of memory other processes hold', async () => {
    const found = await checks(await offline({ gpus: 4 }), { gpus: [A100, 'NVIDIA A100-SXM4-80GB, 81920, 20000, 8.0'] });
    expect(found.get('gpu.present')).toMatchObject({ status: 'fail', message: 'the config asks for 4 GPUs, 2 found (NVIDIA A100-SXM4-80GB)', fix: 'set gpus to 2' });
    expect(found.get('gpu.free')).toMatchObject({ status: 'warn', message: '61,920 MiB of 81,920 MiB already in use by other processes' });
  });

  it('fails transformers 5.1 and a missing vllm; missing accelerate fails only with more than one GPU', async () => {
    const found = await checks(await offline(), { python: { version: '3.11.7', packages: { ...GOOD_PACKAGES, transformers: '5.1.0', vllm: null, accelerate: null } } });
    expect(found.get('python.transformers')).toMatchObject({
      status: 'fail',
      message: 'transformers 5.1.0: requirements.txt pins transformers==5.5.3 (>= 5.2 for Qwen3.5 and environment_factory)',
      fix: expect.stringMatching(/^python3 -m pip install "transformers==5\.5\.3" \(or python3 -m pip install -r .*requirements\.txt\)$/),
    });
    expect(found.get('python.vllm')).toMatchObject({ status: 'fail', message: 'vllm not installed' });
    expect(found.get('python.vllm')!.fix).toMatch(/^python3 -m pip install -r .*src\/train\/python\/requirements\.txt$/);
    expect(found.get('python.accelerate')?.status).toBe('warn');
    const multi = await checks(await offline({ gpus: 2, grpo: { gradient_accumulation_steps: 4 } }), { gpus: [A100, A100], python: { version: '3.11.7', packages: { ...GOOD_PACKAGES, accelerate: null } } });
    expect(multi.get('python.accelerate')).toMatchObject({ status: 'fail', message: 'accelerate not installed: 2 GPUs launch through `accelerate launch`' });
  });

  it('checks every package of requirements.txt: exact where pinned, the floor where not, jmespath named', async () => {
    const pass = await checks(await offline());
    for (const name of Object.keys(GOOD_PACKAGES)) expect(pass.get(`python.${name}`)?.status).toBe('pass');
    const found = await checks(await offline(), { python: { version: '3.11.7', packages: { ...GOOD_PACKAGES, vllm: '0.28.0', torch: '2.13.0+cu128', datasets: '4.6.1', jmespath: null } } });
    expect(found.get('python.vllm')).toMatchObject({ status: 'fail', message: 'vllm 0.28.0: requirements.txt pins vllm==0.27.1', fix: expect.stringMatching(/^python3 -m pip install "vllm==0\.27\.1"/) });
    expect(found.get('python.torch')).toMatchObject({ status: 'pass', message: 'torch 2.13.0+cu128' });
    expect(found.get('python.datasets')).toMatchObject({ status: 'fail', message: 'datasets 4.6.1: requirements.txt needs datasets>=4.7.0' });
    expect(found.get('python.jmespath')).toMatchObject({ status: 'fail', message: expect.stringContaining('jmespath not installed: TRL refuses tools') });
  });

  it('fails a driver older than the installed torch\'s CUDA needs, naming the minimum and the fix', async () => {
    const old = await checks(await offline(), { driver: '550.54.15' });
    expect(old.get('gpu.driver')).toMatchObject({
      status: 'fail',
      message: "driver 550.54.15 is older than 570.26, the minimum for the installed torch's CUDA 12.8 (NVIDIA's CUDA Toolkit release notes)",
      fix: expect.stringContaining('upgrade the NVIDIA driver to >= 570.26'),
    });
    const ok = await checks(await offline(), { driver: '570.124.06' });
    expect(ok.get('gpu.driver')).toMatchObject({ status: 'pass', message: "driver 570.124.06 (>= 570.26 for the installed torch's CUDA 12.8)" });
    // A CUDA 13 wheel (its local tag) needs R580; without a torch to ask, CUDA 12.8 is assumed.
    const cu130 = await checks(await offline(), { driver: '575.57.08', python: { version: '3.11.7', packages: { ...GOOD_PACKAGES, torch: '2.13.0+cu130' }, torchRequires: [] } });
    expect(cu130.get('gpu.driver')).toMatchObject({ status: 'fail', message: expect.stringContaining('older than 580.65.06') });
    const none = await checks(await offline(), { driver: '560.35.03', python: null });
    expect(none.get('gpu.driver')).toMatchObject({ status: 'fail', message: expect.stringContaining('the minimum for CUDA 12.8 (assumed for the pinned torch)') });
    expect((await checks(await offline(), { gpus: null })).has('gpu.driver')).toBe(false);
  });

  it('fails an old or absent python, and the config\'s own interpreter is the one asked', async () => {
    const old = await checks(await offline(), { python: { version: '3.9.18', packages: GOOD_PACKAGES } });
    expect(old.get('python.version')).toMatchObject({ status: 'fail', message: 'python3: Python 3.9.18, the trainer needs >= 3.10' });
    const cfg = await offline({ python: 'trainer-python' });
    const none = await checks(cfg, { python: null });
    expect(none.get('python.version')).toMatchObject({ status: 'fail', message: 'trainer-python not found on PATH' });
    expect(none.has('python.torch')).toBe(false);
  });

  it('asks a real python3 through importlib.metadata, whatever it has installed', async () => {
    const found = await checks(await offline(), {}, { env: { PATH: '/usr/bin:/bin' } });
    expect(found.get('python.version')).toMatchObject({ status: 'pass', message: expect.stringMatching(/^python3: Python 3\.\d+\.\d+$/) });
    expect(found.get('python.torch')!.message).toMatch(/^torch (not installed|\d+\.\d+)/);
  });

  it('warns past 300 steps, and reads the disk under output_dir', async () => {
    const found = await checks(await offline({ grpo: { max_steps: 400 } }));
    expect(found.get('config.max_steps')).toMatchObject({ status: 'warn', message: 'max_steps 400: the published run plateaued by step 200-250' });
    expect(found.get('disk.free')!.message).toMatch(/^\d+\.\d GB free for .* \(about 3\.6 GB needed: 16 LoRA checkpoints, traces and logs\)$/);
    expect(atLeast('5.2.0.dev0', [5, 2])).toBe(true);
    expect(atLeast('5.10', [5, 2])).toBe(true);
    expect(atLeast('4.57.1', [5, 2])).toBe(false);
  });
});

describe('pre-flight: the environment', () => {
  it('a remote URL that refuses is a failed check', async () => {
    const cfg = await offline();
    const found = await checks(cfg);
    expect(found.get('env.reachable')).toMatchObject({ status: 'fail', message: expect.stringContaining(`cannot reach the environment at ${cfg.env.url}: ECONNREFUSED`) });
    expect(found.has('env.sessions')).toBe(false);
  });

  it('remote: a server capped below generation_batch_size fails the sessions check with the fix; an unserved split fails', async () => {
    const { createEnvironment } = await import('../../src/env/environment.js');
    const { startServer } = await import('../../src/env/server.js');
    const { demoSplits } = await import('../../src/env/task-splits.js');
    const env = createEnvironment({ splits: await demoSplits(), panoramasDir: tempDir(), demo: true });
    const server = await startServer(env, { port: 0, maxSessions: 5 });
    try {
      const found = await checks(config({ env: { mode: 'remote', url: server.url, split: 'eval' } }));
      expect(found.get('env.reachable')).toEqual({ id: 'env.reachable', status: 'pass', message: `${server.url} answers` });
      expect(found.get('env.split')).toMatchObject({ status: 'pass', message: expect.stringMatching(/^split eval: \d+ tasks$/) });
      expect(found.get('env.sessions')).toMatchObject({ status: 'fail', message: expect.stringMatching(/^5 of 8 concurrent sessions played a step; first error: .*cap of 5 sessions/), fix: "raise the server's --max-sessions to at least 8" });
      const other = await checks(config({ env: { mode: 'remote', url: server.url, split: 'world' } }));
      expect(other.get('env.split')).toMatchObject({ status: 'fail', message: expect.stringMatching(/^split world is not served; served: train \(\d+\), eval \(\d+\)$/) });
      expect(other.has('env.sessions')).toBe(false);
    } finally {
      await server.close();
      await env.close();
    }
  });

  it('local: starts the embedded server and plays one step in 8 sessions at once on the demo tasks', async () => {
    const home = tempDir();
    (await openWorkspace(home)).close();
    const found = await checks(config({ env: { split: 'train' } }), {}, { workspace: home });
    expect(found.get('env.reachable')).toMatchObject({ status: 'pass', message: expect.stringMatching(/^embedded server started for the check on http:\/\/127\.0\.0\.1:\d+$/) });
    expect(found.get('env.split')).toMatchObject({ status: 'pass', message: expect.stringMatching(/^split train: \d+ tasks$/) });
    expect(found.get('env.sessions')).toEqual({ id: 'env.sessions', status: 'pass', message: '8 concurrent sessions each played a step (grpo.generation_batch_size 8)' });
    expect(found.get('panos.present')).toMatchObject({ status: 'pass', message: expect.stringContaining("the demo's") });
    const unknown = await checks(config({ env: { split: 'nope' } }), {}, { workspace: home });
    expect(unknown.get('env.split')).toMatchObject({ status: 'fail', message: expect.stringMatching(/^split nope is not a task set of the workspace; it has .*train \(\d+\)/) });
  });

  it('local: counts the tasks whose panoramas are missing and names the fetch command', async () => {
    const dir = tempDir();
    const tasks = writeJsonl([makeTask(0), makeTask(1), makeTask(2)], dir);
    const panos = join(dir, 'panos');
    mkdirSync(panos);
    for (const id of ['img0a', 'img0b', 'img1a']) writeFileSync(join(panos, `${id}.jpg`), 'not really a jpeg');
    const home = tempDir();
    (await openWorkspace(home, { seedDemo: false })).close();
    const found = await checks(config({ env: { split: 'train', tasks: [`train=${tasks}`], panos } }), {}, { workspace: home });
    expect(found.get('panos.present')).toEqual({
      id: 'panos.present',
      status: 'fail',
      message: `2 of 3 tasks miss panoramas (3 of 6 frames) in ${panos}`,
      fix: `geolab panos fetch ${tasks} --panos ${panos}   (needs MAPILLARY_ACCESS_TOKEN)`,
    });
    expect(found.get('env.sessions')?.status).toBe('fail');
  });
});

describe('geolab train preflight', () => {
  it('prints one line per check, names secrets set or missing without their values, and exits 1 on a fail', async () => {
    const { path } = fakeMachine();
    const dir = tempDir();
    const secret = 'hf_KnownValue_0123456789abcdef';
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify({ version: 1, name: 'run1', output_dir: 'out', env: { mode: 'remote', url: `http://127.0.0.1:${await closedPort()}` }, secrets: ['HF_TOKEN', 'WANDB_API_KEY'] }));
    const env = { PATH: path, HF_TOKEN: secret, WANDB_API_KEY: '' };
    const text = geolab(['train', 'preflight', file], { env, home: tempDir() });
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/^pass {2}gpu\.memory +NVIDIA A100-SXM4-80GB, 81,920 MiB total: the run fits .*\n +Qwen\/Qwen3\.5-4B \(.*\n +weights +7\.8 GiB/m);
    expect(text.stdout).toMatch(/^pass {2}secret\.HF_TOKEN +HF_TOKEN set$/m);
    expect(text.stdout).toMatch(/^fail {2}secret\.WANDB_API_KEY +WANDB_API_KEY missing\n +fix: export WANDB_API_KEY in the shell/m);
    expect(text.stdout).toMatch(/^fail {2}env\.reachable +cannot reach the environment/m);
    expect(text.stdout).toMatch(/^pre-flight: \d+ pass, \d+ warn, 2 fail: not ready: fix what failed first$/m);
    const json = geolab(['train', 'preflight', file, '--json'], { env, home: tempDir() });
    expect(json.code).toBe(1);
    const report = JSON.parse(json.stdout) as { ok: boolean; checks: PreflightCheck[] };
    expect(report.ok).toBe(false);
    expect(report.checks.find((c) => c.id === 'secret.HF_TOKEN')).toEqual({ id: 'secret.HF_TOKEN', status: 'pass', message: 'HF_TOKEN set' });
    for (const r of [text, json]) {
      expect(r.stdout + r.stderr).not.toContain(secret);
      expect(r.stdout + r.stderr).not.toContain(secret.slice(4, 14));
    }
  });

  it('a config that does not validate fails at its file:line (exit 1); one that cannot be read is bad input (exit 2)', () => {
    const dir = tempDir();
    const file = join(dir, 'config.json');
    writeFileSync(file, '{\n  "version": 1,\n  "name": "run1",\n  "output_dir": "out",\n  "gpus": 0\n}\n');
    const r = geolab(['train', 'preflight', file], { home: tempDir() });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`fail  config.valid  ${file}:5, field gpus: expected an integer > 0`);
    const missing = geolab(['train', 'preflight', join(dir, 'nope.json')], { home: tempDir() });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(`geolab: ${join(dir, 'nope.json')}: cannot read the training config: ENOENT\n`);
  });
});
