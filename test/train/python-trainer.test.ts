import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { referenceReward } from '../../src/core/scoring.js';
import { PACKAGE_ROOT } from '../../src/paths.js';
import { derive, parseTrainConfig, TrainConfigSchema, type TrainConfig } from '../../src/train/config.js';
import * as pythonPath from '../../src/train/python-path.js';
import type { TrainerEvent } from '../../src/train/types.js';
import { geolab, jsonLines } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { startLive, type Live } from '../env/helpers/live.js';
import { FIXTURES, runPython } from './python-helpers.js';

/** Modules that raise on import: a dry run that imports the GPU stack fails loudly. */
const POISON = join(FIXTURES, 'poison');
/** Just enough of datasets/peft/transformers/trl for the real path to run without a GPU. */
const STAND_IN = join(FIXTURES, 'stand-in-stack');

/** A config as `train launch` writes it: the TS schema's output, every default filled in. */
function resolved(input: Record<string, unknown>): TrainConfig {
  return TrainConfigSchema.parse({ version: 1, name: 'run1', ...input });
}

function writeConfig(config: unknown, dir = tempDir('geolab-trainer-')): string {
  const file = join(dir, 'train.json');
  writeFileSync(file, JSON.stringify(config, null, 2));
  return file;
}

function trainer(args: string[], pythonPathDir: string, env: Record<string, string> = {}) {
  return runPython([pythonPath.TRAINER_SCRIPT, ...args], { env: { PYTHONPATH: pythonPathDir, ...env } });
}

interface DryRun {
  env: unknown;
  model: string;
  grpo_config: Record<string, unknown>;
  lora_config: unknown;
  episode: unknown;
  derived: unknown;
  trace_path: string;
  resume_from: unknown;
}

/** A resolved config opened up for breaking. */
interface Mutable {
  grpo: Record<string, unknown>;
  lora: Record<string, unknown>;
  env: Record<string, unknown>;
  episode: Record<string, unknown>;
  [key: string]: unknown;
}

/** The fields a failed run named on stderr ("  field: message" lines). */
function namedFields(stderr: string): string[] {
  return [...stderr.matchAll(/^ {2}(\S+): /gm)].map((m) => m[1] as string).sort();
}

describe('geolab_trainer.py --dry-run', () => {
  it('prints the recipe as GRPOConfig/LoraConfig arguments from a TS-written config, importing no GPU stack', async () => {
    const dir = tempDir('geolab-trainer-dry-');
    const config = resolved({ output_dir: join(dir, 'out'), env: { url: 'http://127.0.0.1:8123', split: 'geo-train' } });
    const r = await trainer([writeConfig(config, dir), '--dry-run'], POISON);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const plan = JSON.parse(r.stdout) as DryRun;
    expect(plan.env).toEqual({ mode: 'local', url: 'http://127.0.0.1:8123', split: 'geo-train' });
    expect(plan.model).toBe('Qwen/Qwen3.5-4B');
    expect(plan.grpo_config).toMatchObject({
      output_dir: join(dir, 'out'),
      run_name: 'run1',
      num_generations: 8,
      generation_batch_size: 8,
      per_device_train_batch_size: 1,
      gradient_accumulation_steps: 8,
      learning_rate: 3e-5,
      temperature: 1,
      beta: 0,
      scale_rewards: 'group',
      num_iterations: 1,
      max_steps: 250,
      max_completion_length: 6144,
      max_tool_calling_iterations: 12,
      use_vllm: true,
      vllm_mode: 'colocate',
      vllm_gpu_memory_utilization: 0.22,
      vllm_max_model_length: 32768,
      save_steps: 25,
      seed: 0,
      bf16: true,
      report_to: 'none',
    });
    expect(plan.lora_config).toEqual({ r: 16, lora_alpha: 32, lora_dropout: 0.05, target_modules: ['q_proj', 'k_proj', 'v_proj', 'o_proj'], task_type: 'CAUSAL_LM' });
    expect(plan.episode).toEqual({ max_turns: 12, view_px: 448 });
    // One task per optimizer step on one GPU, as docs/training.md says; the same numbers as derive().
    expect(plan.derived).toEqual(derive(config));
    expect(plan.derived).toMatchObject({ tasksPerStep: 1, checkpoints: 10 });
    expect(plan.trace_path).toBe(join(dir, 'out', 'traces', 'rollouts.jsonl'));
    expect(plan.resume_from).toBeNull();
    // Nothing is written by a dry run.
    expect(existsSync(join(dir, 'out'))).toBe(false);
  }, 120_000);

  it('names the last checkpoint (with its trainer state) that --resume would continue from', async () => {
    const dir = tempDir('geolab-trainer-resume-');
    const out = join(dir, 'out');
    for (const [step, withState] of [[25, true], [50, true], [75, false]] as const) {
      mkdirSync(join(out, `checkpoint-${step}`), { recursive: true });
      if (withState) writeFileSync(join(out, `checkpoint-${step}`, 'trainer_state.json'), '{}');
    }
    mkdirSync(join(out, 'checkpoint-latest'));
    const config = resolved({ output_dir: out, env: { mode: 'remote', url: 'https://env.example:8000' } });
    const r = await trainer([writeConfig(config, dir), '--dry-run', '--resume'], POISON);
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as DryRun).resume_from).toEqual({ checkpoint: join(out, 'checkpoint-50'), step: 50 });
  }, 120_000);

  it('refuses a broken config naming the file and each field, without a stack trace', async () => {
    const dir = tempDir('geolab-trainer-bad-');
    const config = resolved({ output_dir: join(dir, 'out') }) as unknown as Mutable;
    config.grpo.max_steps = 0;
    delete config.grpo.save_steps;
    config.lora.rank = 16;
    const file = writeConfig(config, dir);
    const r = await trainer([file, '--dry-run'], POISON);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`geolab_trainer: ${file}: the config is not usable:`);
    expect(r.stderr).toContain('  grpo.max_steps: expected an integer > 0');
    expect(r.stderr).toContain('  grpo.save_steps: missing: the trainer reads a resolved config');
    expect(r.stderr).toContain('  lora.rank: unknown key');
    expect(namedFields(r.stderr)).toEqual(['grpo.max_steps', 'grpo.save_steps', 'lora.rank']);
    expect(r.stderr).not.toContain('Traceback');

    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '{\n  "version": 1,\n  "name": oops\n}\n');
    const bad = await trainer([broken, '--dry-run'], POISON);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`${broken}:3:11: the config is not usable:`);
    expect(bad.stderr).toContain('not valid JSON');
  }, 120_000);

  it('rejects exactly the fields the TS schema rejects', async () => {
    const base = resolved({ output_dir: '/tmp/geolab-never-written', env: { url: 'http://127.0.0.1:1' } });
    const cases: [string, (c: Mutable) => void][] = [
      ['max_steps 0', (c) => (c.grpo.max_steps = 0)],
      ['lr as a string', (c) => (c.grpo.learning_rate = '3e-5')],
      ['dropout above 1', (c) => (c.lora.dropout = 1.5)],
      ['no target modules', (c) => (c.lora.target_modules = [])],
      ['vLLM share too high', (c) => (c.grpo.vllm_gpu_memory_utilization = 0.99)],
      ['unknown scale_rewards', (c) => (c.grpo.scale_rewards = 'sum')],
      ['bad name', (c) => (c.name = 'bad name!')],
      ['version 2', (c) => (c.version = 2)],
      ['version true', (c) => (c.version = true)],
      ['name with a trailing newline', (c) => (c.name = 'run1\n')],
      ['secret with a trailing newline', (c) => (c.secrets = ['HF_TOKEN\n'])],
      ['trace flag as text', (c) => (c.trace_rollouts = 'yes')],
      ['secret in lower case', (c) => (c.secrets = ['HF_TOKEN', 'hf_token'])],
      ['fractional seed', (c) => (c.grpo.seed = 1.5)],
      ['negative turns', (c) => (c.episode.max_turns = -3)],
      ['boolean view size', (c) => (c.episode.view_px = true)],
      ['odd group size', (c) => (c.grpo.num_generations = 3)],
      ['group of one', (c) => (c.grpo.num_generations = 1)],
      ['completion longer than the model', (c) => (c.grpo.max_completion_length = 40000)],
      ['remote without a URL', (c) => ((c.env.mode = 'remote'), delete c.env.url)],
      ['three GPUs', (c) => (c.gpus = 3)],
      ['not a URL', (c) => (c.env.url = 'not a url')],
      ['file URL', (c) => (c.env.url = 'file:///srv/env')],
      ['URL without a host', (c) => (c.env.url = 'http://')],
      ['null URL', (c) => (c.env.url = null)],
      ['null section', (c) => (c.grpo = null as unknown as Record<string, unknown>)],
      ['empty target module', (c) => (c.lora.target_modules = ['q_proj', ''])],
      ['valid', () => {}],
    ];
    // One python3 for all the cases, through the trainer's own loader (the CLI's output is tested above).
    const files = cases.map(([, mutate]) => {
      const config = structuredClone(base) as unknown as Mutable;
      mutate(config);
      return { config, file: writeConfig(config) };
    });
    const r = await runPython([join(FIXTURES, 'check_configs.py'), pythonPath.TRAINER_DIR, ...files.map((f) => f.file)], { env: { PYTHONPATH: POISON } });
    expect(r.code, r.stderr).toBe(0);
    const refused = JSON.parse(r.stdout) as Record<string, string[]>;
    cases.forEach(([name], i) => {
      const { config, file } = files[i]!;
      const ts = parseTrainConfig(config);
      const tsFields = 'problems' in ts ? [...new Set(ts.problems.map((p) => p.field))].sort() : [];
      expect([name, [...new Set(refused[file])].sort()]).toEqual([name, tsFields]);
    });
  }, 120_000);
});

describe('geolab_trainer.py, the real path on a stand-in GPU stack against the real server', () => {
  let live: Live;
  let dir: string;
  let config: TrainConfig;
  beforeAll(async () => {
    live = await startLive();
    dir = tempDir('geolab-trainer-run-');
    config = resolved({
      output_dir: join(dir, 'out'),
      env: { url: live.server.url, split: 'train' },
      grpo: { max_steps: 4, save_steps: 2, num_generations: 2, generation_batch_size: 2, gradient_accumulation_steps: 2 },
    });
  }, 120_000);
  afterAll(() => live?.close());

  const events = (stdout: string) => stdout.split('\n').filter((l) => l.startsWith('{"geolab"')).map((l) => JSON.parse(l) as TrainerEvent);

  it('trains with the environment class as TRL would, writing progress lines, checkpoints and traces', async () => {
    const file = writeConfig(config, dir);
    const r = await trainer([file], STAND_IN);
    expect(r.code, r.stderr).toBe(0);
    const lines = events(r.stdout);
    expect(lines.map((e) => (e.geolab === 'phase' ? e.phase : e.geolab === 'step' ? `step ${e.step}/${e.max_steps}` : `${e.geolab} ${'step' in e ? e.step : ''}`))).toEqual([
      'starting',
      'loading',
      'training',
      'step 1/4',
      'step 2/4',
      'checkpoint 2',
      'step 3/4',
      'step 4/4',
      'checkpoint 4',
      'saving',
      'done',
    ]);
    // progress.jsonl holds the same lines.
    expect(jsonLines(readFileSync(join(dir, 'out', 'progress.jsonl'), 'utf8'))).toEqual(lines);
    const steps = lines.filter((e): e is Extract<TrainerEvent, { geolab: 'step' }> => e.geolab === 'step');
    // TRL's metrics as it named them; a NaN is left out rather than written as invalid JSON.
    expect(Object.keys(steps[0]!.metrics).sort()).toEqual(['completions/mean_length', 'learning_rate', 'loss', 'reward', 'reward_std']);
    expect(lines.find((e) => e.geolab === 'checkpoint')).toMatchObject({ path: join(dir, 'out', 'checkpoint-2') });

    // What TRL was handed: the same arguments the dry run prints, the env's reward, five tools.
    const dry = JSON.parse((await trainer([file, '--dry-run'], POISON)).stdout) as DryRun;
    const given = jsonLines(readFileSync(join(dir, 'out', 'standin-trainer.json'), 'utf8'))[0] as {
      grpo_config: unknown;
      lora_config: unknown;
      tools: string[];
      first_rows: Record<string, unknown>[];
    };
    expect(given.grpo_config).toEqual(dry.grpo_config);
    expect(given.lora_config).toEqual(dry.lora_config);
    expect(given).toMatchObject({ model: 'Qwen/Qwen3.5-4B', rows: live.splits.get('train')!.length, reward_funcs: null, env_reward: true });
    expect(given.tools).toEqual(['guess', 'look', 'move', 'pin', 'zoom']);
    for (const row of given.first_rows) expect(Object.keys(row).sort()).toEqual(['index', 'prompt', 'split']);

    // One trace per rollout, tagged with its step; the logged reward is their mean on the reference curve.
    const traces = jsonLines(readFileSync(join(dir, 'out', 'traces', 'rollouts.jsonl'), 'utf8')) as {
      step: number;
      run: string;
      outcome: { reward: number; guessed: boolean; distance_km: number | null; action_cost: number };
    }[];
    expect(traces.map((t) => t.step)).toEqual([0, 0, 1, 1, 2, 2, 3, 3]);
    for (const t of traces) {
      expect(t.run).toBe('run1');
      expect(t.outcome.reward).toBeCloseTo(t.outcome.guessed ? referenceReward(t.outcome.distance_km, t.outcome.action_cost) : 0, 12);
    }
    steps.forEach((s, i) => expect(s.metrics.reward).toBeCloseTo((traces[2 * i]!.outcome.reward + traces[2 * i + 1]!.outcome.reward) / 2, 12));
    expect(existsSync(join(dir, 'out', 'final', 'adapter_config.json'))).toBe(true);
    expect(live.server.sessions()).toBe(0);
  }, 120_000);

  it('--resume continues from the last checkpoint and says so before replaying', async () => {
    const longer = writeConfig({ ...config, grpo: { ...config.grpo, max_steps: 6 } }, tempDir('geolab-trainer-longer-'));
    const r = await trainer([longer, '--resume'], STAND_IN);
    expect(r.code, r.stderr).toBe(0);
    const resumedAt = r.stdout.indexOf(`geolab: resuming from ${join(dir, 'out', 'checkpoint-4')} (step 4)`);
    expect(resumedAt).toBeGreaterThan(-1);
    const lines = events(r.stdout);
    expect(lines.find((e) => e.geolab === 'resume')).toMatchObject({ checkpoint: join(dir, 'out', 'checkpoint-4'), step: 4 });
    expect(lines.filter((e) => e.geolab === 'step').map((e) => ('step' in e ? e.step : 0))).toEqual([5, 6]);
    expect(lines.at(-1)).toMatchObject({ geolab: 'phase', phase: 'done' });
  }, 120_000);

  it('a crash ends with a failed phase line naming the error (exit 1); an unreachable server exits 3; no stack exits 2', async () => {
    const crashDir = tempDir('geolab-trainer-crash-');
    const crash = await trainer([writeConfig({ ...config, output_dir: join(crashDir, 'out') }, crashDir)], STAND_IN, { STANDIN_CRASH_AT_STEP: '2' });
    expect(crash.code).toBe(1);
    expect(events(crash.stdout).at(-1)).toMatchObject({ geolab: 'phase', phase: 'failed', message: 'RuntimeError: CUDA out of memory (stand-in) at step 2' });
    expect(crash.stderr).toContain('Traceback');

    const gone = await trainer([writeConfig({ ...config, env: { ...config.env, url: 'http://127.0.0.1:9' } }, tempDir('geolab-trainer-gone-'))], STAND_IN);
    expect(gone.code).toBe(3);
    expect(gone.stderr).toContain('the environment server is unreachable: http://127.0.0.1:9');
    expect(events(gone.stdout).at(-1)).toMatchObject({ phase: 'failed' });
    expect(gone.stderr).not.toContain('Traceback');

    const bareDir = tempDir('geolab-trainer-bare-');
    const bare = await trainer([writeConfig({ ...config, output_dir: join(bareDir, 'out') }, bareDir)], POISON);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('the training stack is missing');
    expect(bare.stderr).toContain('requirements.txt');
  }, 120_000);
});

describe('the shipped trainer files', () => {
  it('are found the same way from the built bundle as from src, and go into the npm package', async () => {
    // The binary (dist/bundle/) names the trainer script in a dry run's plan.
    const dir = tempDir('geolab-trainer-path-');
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ version: 1, name: 'r', output_dir: 'out' }));
    const plan = geolab(['train', 'launch', join(dir, 'config.json'), '--dry-run', '--no-preflight', '--json'], { home: dir });
    expect(plan.code, plan.stderr).toBe(0);
    expect((JSON.parse(plan.stdout) as { trainer: string[] }).trainer[1]).toBe(pythonPath.TRAINER_SCRIPT);
    for (const file of [pythonPath.TRAINER_SCRIPT, pythonPath.TRAINER_ENV_MODULE, pythonPath.TRAINER_REQUIREMENTS]) expect(existsSync(file)).toBe(true);
    // Python run from a checkout writes bytecode beside the sources: with some there or not, none is
    // packed (package.json "files") nor committed (.gitignore). A probe no module imports stands for it.
    const cache = join(pythonPath.TRAINER_DIR, '__pycache__');
    const made = !existsSync(cache);
    const probe = join(cache, `geolab-pack-probe-${process.pid}.cpython-311.pyc`);
    mkdirSync(cache, { recursive: true });
    writeFileSync(probe, 'not bytecode');
    try {
      const pack = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: PACKAGE_ROOT, encoding: 'utf8' });
      expect(pack.status, pack.stderr).toBe(0);
      const files = (JSON.parse(pack.stdout) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path);
      expect(files).toEqual(expect.arrayContaining(['src/train/python/geolab_trainer.py', 'src/train/python/geolab_env.py', 'src/train/python/requirements.txt']));
      expect(files.filter((f) => f.includes('__pycache__'))).toEqual([]);
      const ignored = spawnSync('git', ['check-ignore', '-q', probe], { cwd: PACKAGE_ROOT });
      // 0: ignored; 128 is no git checkout (an unpacked package), where nothing is committed anyway.
      expect([0, 128]).toContain(ignored.status);
    } finally {
      rmSync(made ? cache : probe, { recursive: true, force: true });
    }
  }, 120_000);

  it('pin the stack the issue names (jmespath for the tool path of TRL), transformers at 5.2 or later', () => {
    const pins = Object.fromEntries(
      readFileSync(pythonPath.TRAINER_REQUIREMENTS, 'utf8')
        .split('\n')
        .map((l) => /^([a-z]+)(?:\[[a-z]+\])?==([\d.]+)$/.exec(l.trim()))
        .filter((m): m is RegExpExecArray => m !== null)
        .map((m) => [m[1], m[2]]),
    );
    expect(Object.keys(pins).sort()).toEqual(['accelerate', 'jmespath', 'peft', 'torch', 'transformers', 'trl', 'vllm']);
    const [major, minor] = (pins.transformers as string).split('.').map(Number);
    expect(major! > 5 || (major === 5 && minor! >= 2)).toBe(true);
    expect(pins.trl).toMatch(/^1\.12\./);
  }, 120_000);
});
