import { existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadTrainConfig } from '../../src/train/config-file.js';
import { geolab } from '../helpers/cli.js';
import { makeTask, tempDir, writeJsonl } from '../helpers/fixtures.js';

describe('geolab train init (flags, no terminal)', () => {
  it('writes the recipe resolved into the workspace\'s train/runN/, prints the derived numbers and the next command', async () => {
    const home = tempDir();
    const r = geolab(['train', 'init'], { home });
    expect(r.code, r.stderr).toBe(0);
    const file = join(home, 'train', 'run1', 'config.json');
    expect(r.stdout).toBe(
      [
        `wrote ${file}`,
        '250 steps x 1 task (8 completions each, 8 per step) = 250 tasks drawn',
        '8 optimizer steps per generation batch of 8; 1 GPU',
        `10 checkpoints (every 25 steps) under ${join(home, 'train', 'run1')}`,
        'recipe: LoRA r=16 alpha=32 on q_proj,k_proj,v_proj,o_proj, lr 0.00003, temperature 1, beta 0, 12 turns, 448 px views, completions up to 6144 tokens (the rest is in the config)',
        `next: geolab train preflight ${file}`,
        '',
      ].join('\n'),
    );
    const written = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Record<string, unknown>>;
    // Resolved: every default spelled out, the cache of the chosen split included.
    expect(written.grpo).toMatchObject({ num_generations: 8, generation_batch_size: 8, gradient_accumulation_steps: 8, learning_rate: 3e-5, max_steps: 250, save_steps: 25, vllm_gpu_memory_utilization: 0.22 });
    expect(written.env).toEqual({ mode: 'local', split: 'train', tasks: [], panos: join(home, 'panos') });
    expect(written.lora).toEqual({ r: 16, alpha: 32, dropout: 0.05, target_modules: ['q_proj', 'k_proj', 'v_proj', 'o_proj'] });
    expect(written.episode).toEqual({ max_turns: 12, view_px: 448 });
    expect((await loadTrainConfig(file)).config.output_dir).toBe(join(home, 'train', 'run1'));
    // The next run gets the next free name.
    expect(geolab(['train', 'init', '--json'], { home }).stdout).toContain(join(home, 'train', 'run2', 'config.json'));
  });

  it('takes every choice as a flag, and refuses to overwrite without --force', () => {
    const home = tempDir();
    const dir = tempDir();
    const tasks = writeJsonl([makeTask(0), makeTask(1)], dir);
    const out = join(dir, 'runs', 'italy');
    const args = ['train', 'init', '--out', out, '--model', 'Qwen/Qwen3.5-2B', '--split', 'it', '--tasks', tasks, '--panos', join(dir, 'panos'), '--max-steps', '200', '--gpus', '4', '--json'];
    const r = geolab(args, { home });
    expect(r.code, r.stderr).toBe(0);
    const printed = JSON.parse(r.stdout) as { config_file: string; config: Record<string, Record<string, unknown>>; derived: Record<string, number>; next: string };
    expect(printed.config_file).toBe(join(out, 'config.json'));
    expect(printed.config).toMatchObject({ name: 'italy', model: 'Qwen/Qwen3.5-2B', output_dir: out, gpus: 4, env: { mode: 'local', split: 'it', tasks: [`it=${tasks}`], panos: join(dir, 'panos') } });
    expect(printed.config.grpo!.max_steps).toBe(200);
    expect(printed.derived).toEqual({ completionsPerStep: 32, tasksPerStep: 4, stepsPerGeneration: 2, tasksTotal: 800, checkpoints: 8 });
    expect(printed.next).toBe(`geolab train preflight ${join(out, 'config.json')}`);
    const again = geolab(args, { home });
    expect(again.code).toBe(2);
    expect(again.stderr).toBe(`geolab: ${join(out, 'config.json')} exists; pass --force to overwrite it, or choose another --out / --name\n`);
    expect(geolab([...args, '--force', '--max-steps', '150'], { home }).code).toBe(0);
    expect((JSON.parse(readFileSync(join(out, 'config.json'), 'utf8')) as { grpo: { max_steps: number } }).grpo.max_steps).toBe(150);
    expect(readdirSync(out)).toEqual(['config.json']);
  });

  it('a remote environment needs only its URL; the split is pre-flight\'s to check there', () => {
    const home = tempDir();
    const r = geolab(['train', 'init', '--name', 'remote1', '--env-url', 'http://10.0.0.5:8000', '--split', 'pool-train', '--json'], { home });
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { config: { env: unknown } }).config.env).toEqual({ mode: 'remote', url: 'http://10.0.0.5:8000', split: 'pool-train', tasks: [] });
  });

  it.each([
    ['file:///srv/env', 'got the scheme "file"'],
    ['ftp://10.0.0.5', 'got the scheme "ftp"'],
    ['localhost:8000', 'got the scheme "localhost"'],
    ['http:10.0.0.5', 'written http://HOST'],
    ['http://', '(not a URL)'],
    ['not a url', 'without spaces'],
    ['', 'got nothing'],
  ])('--env-url %j is refused (exit 2, the reason given), nothing written: the trainer talks HTTP only', (url, reason) => {
    const home = tempDir();
    const r = geolab(['train', 'init', '--name', 'remote2', '--env-url', url, '--split', 'pool-train'], { home });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('geolab: --env-url: expected an http(s) URL');
    expect(r.stderr).toContain(reason);
    expect(existsSync(join(home, 'train', 'remote2'))).toBe(false);
  });

  it('writes the Python environment (a path made absolute) and the secrets by name from flags; a bad name is refused', () => {
    const home = tempDir();
    const r = geolab(['train', 'init', '--name', 'py1', '--python', '/opt/venv/bin/python', '--secrets', 'HF_TOKEN,WANDB_API_KEY', '--json'], { home });
    expect(r.code).toBe(0);
    const written = JSON.parse(readFileSync(join(home, 'train', 'py1', 'config.json'), 'utf8')) as { python: string; secrets: string[] };
    expect(written).toMatchObject({ python: '/opt/venv/bin/python', secrets: ['HF_TOKEN', 'WANDB_API_KEY'] });
    const bad = geolab(['train', 'init', '--name', 'py2', '--secrets', 'hf_token=abc'], { home });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--secrets: "hf_token=abc" is not an environment variable name');
    expect(existsSync(join(home, 'train', 'py2'))).toBe(false);
  });

  it('refuses what would not work, writing nothing: an unknown split, GPUs that split no batch, a bad task file, a bad name', () => {
    const home = tempDir();
    mkdirSync(join(home, 'train'), { recursive: true });
    const unknown = geolab(['train', 'init', '--split', 'nope'], { home });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^geolab: --split nope is not a task set of this workspace; it has train, eval, demo/);
    const gpus = geolab(['train', 'init', '--gpus', '3'], { home });
    expect(gpus.code).toBe(2);
    expect(gpus.stderr).toContain('grpo.generation_batch_size: expected a multiple of per_device_train_batch_size x gpus (3)');
    const badTasks = writeJsonl([makeTask(0), '{"task_index": 1}']);
    const tasks = geolab(['train', 'init', '--tasks', badTasks], { home });
    expect(tasks.code).toBe(2);
    expect(tasks.stderr).toContain(`${badTasks}:2`);
    const name = geolab(['train', 'init', '--name', 'a b'], { home });
    expect(name.code).toBe(2);
    expect(name.stderr).toContain('name: expected letters, digits');
    expect(readdirSync(join(home, 'train'))).toEqual([]);
    expect(existsSync(join(home, 'train', 'run1'))).toBe(false);
  });
});
