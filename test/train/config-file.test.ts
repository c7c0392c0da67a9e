import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { derive } from '../../src/train/config.js';
import { formatProblems, keyLines, loadTrainConfig, readTrainConfigFile, writeTrainConfig } from '../../src/train/config-file.js';
import { tempDir } from '../helpers/fixtures.js';

function configFile(text: string | Record<string, unknown>, dir = tempDir()): string {
  const file = join(dir, 'config.json');
  writeFileSync(file, typeof text === 'string' ? text : JSON.stringify(text, null, 2) + '\n');
  return file;
}

const minimal = { version: 1, name: 'run1', output_dir: 'out' };

describe('training config files', () => {
  it('fills in the recipe and resolves relative paths against the file\'s folder', async () => {
    const dir = tempDir();
    const file = configFile({ ...minimal, env: { tasks: ['train=tasks/train.jsonl', '/abs/eval.jsonl'], panos: '../panos' }, python: 'venv/bin/python' }, dir);
    const { config } = await loadTrainConfig(file);
    expect(config.python).toBe(join(dir, 'venv/bin/python'));
    expect((await loadTrainConfig(configFile(minimal))).config.python).toBe('python3');
    expect(config.output_dir).toBe(join(dir, 'out'));
    expect(config.env.panos).toBe(join(dir, '..', 'panos'));
    expect(config.env.tasks).toEqual([`train=${join(dir, 'tasks/train.jsonl')}`, '/abs/eval.jsonl']);
    expect(config.model).toBe('Qwen/Qwen3.5-4B');
    expect(config.lora).toEqual({ r: 16, alpha: 32, dropout: 0.05, target_modules: ['q_proj', 'k_proj', 'v_proj', 'o_proj'] });
    expect(config.grpo).toMatchObject({ num_generations: 8, generation_batch_size: 8, gradient_accumulation_steps: 8, max_steps: 250, learning_rate: 3e-5 });
  });

  it('derives one task per step on one GPU and four on four GPUs', async () => {
    const one = (await loadTrainConfig(configFile(minimal))).config;
    expect(derive(one)).toEqual({ completionsPerStep: 8, tasksPerStep: 1, stepsPerGeneration: 8, tasksTotal: 250, checkpoints: 10 });
    const four = (await loadTrainConfig(configFile({ ...minimal, gpus: 4, grpo: { generation_batch_size: 32, max_steps: 200, save_steps: 50 } }))).config;
    expect(derive(four)).toEqual({ completionsPerStep: 32, tasksPerStep: 4, stepsPerGeneration: 8, tasksTotal: 800, checkpoints: 4 });
    const fourSmallBatch = (await loadTrainConfig(configFile({ ...minimal, gpus: 4 }))).config;
    expect(derive(fourSmallBatch).stepsPerGeneration).toBe(2);
  });

  it('places each schema problem at the line of its key, unknown keys included', async () => {
    const text = [
      '{',
      '  "version": 1,',
      '  "name": "run 1",',
      '  "output_dir": "out",',
      '  "grpo": {',
      '    "learning_rate": 3e-5,',
      '    "max_steps": -4,',
      '    "max_stepz": 10',
      '  },',
      '  "lora": { "target_modules": ["q_proj",',
      '     7] }',
      '}',
    ].join('\n');
    const file = configFile(text);
    const read = await readTrainConfigFile(file);
    expect(read.ok).toBe(false);
    if (read.ok) return;
    const lines = formatProblems(read.file, read.problems);
    expect(lines).toContain(`${file}:3, field name: expected letters, digits, "_", "-", "." (at most 64)`);
    expect(lines).toContain(`${file}:7, field grpo.max_steps: expected an integer > 0`);
    expect(lines.find((l) => l.includes('grpo.max_stepz'))).toMatch(new RegExp(`^${file}:8, field grpo.max_stepz: unknown field: expected one of vllm_importance_sampling_correction, .*max_steps`));
    expect(lines.find((l) => l.includes('lora.target_modules.1'))).toMatch(new RegExp(`^${file}:11, `));
  });

  it('places consistency problems too, and a missing field at its parent', async () => {
    const text = JSON.stringify({ ...minimal, grpo: { num_generations: 8, generation_batch_size: 12 }, env: { mode: 'remote' } }, null, 2);
    const read = await readTrainConfigFile(configFile(text));
    if (read.ok) throw new Error('expected problems');
    const byField = new Map(read.problems.map((p) => [p.field, p]));
    expect(byField.get('grpo.generation_batch_size')).toMatchObject({ line: 7, message: 'expected a multiple of num_generations (8)' });
    // env.url is absent: its parent env is where the user adds it.
    expect(byField.get('env.url')).toMatchObject({ line: 9 });
  });

  it('reports JSON syntax at its line, and an unreadable file as bad input', async () => {
    const read = await readTrainConfigFile(configFile('{\n  "version": 1,\n  "name": "x"\n  "output_dir": "o"\n}\n'));
    if (read.ok) throw new Error('expected problems');
    expect(read.problems[0]).toMatchObject({ field: '(root)', line: 4 });
    expect(read.problems[0]!.message).toMatch(/^not valid JSON/);
    // Node names no position for a misspelt word ("Unexpected token ... is not valid JSON"): the line still comes.
    const typo = await readTrainConfigFile(configFile('{\n  "version": 1,\n  "resume": tru\n}\n'));
    if (typo.ok) throw new Error('expected problems');
    expect(typo.problems[0]).toMatchObject({ field: '(root)', line: 3 });
    await expect(readTrainConfigFile(join(tempDir(), 'nope.json'))).rejects.toMatchObject({ exitCode: 2, message: expect.stringContaining('ENOENT') });
    await expect(loadTrainConfig(configFile('{"version": 2}'))).rejects.toMatchObject({ exitCode: 2 });
  });

  it('writes atomically, every default spelled out, and reads back the same', async () => {
    const dir = tempDir();
    const { config } = await loadTrainConfig(configFile(minimal, dir));
    const out = join(dir, 'run', 'config.json');
    mkdirSync(join(dir, 'run'));
    writeTrainConfig(out, config);
    expect(readdirSync(join(dir, 'run'))).toEqual(['config.json']);
    const written = JSON.parse(readFileSync(out, 'utf8')) as Record<string, unknown>;
    expect(Object.keys(written)).toEqual(['version', 'name', 'output_dir', 'model', 'env', 'lora', 'grpo', 'episode', 'gpus', 'trace_rollouts', 'secrets', 'python']);
    expect((await loadTrainConfig(out)).config).toEqual(config);
  });

  it('maps keys, nested keys and array elements to lines', () => {
    const lines = keyLines('{\n "a": {"b": [1,\n 2, {"c": "x,]"}]},\n "d": "e"\n}');
    expect(Object.fromEntries(lines)).toEqual({ a: 2, 'a.b': 2, 'a.b.0': 2, 'a.b.1': 3, 'a.b.2': 3, 'a.b.2.c': 3, d: 4 });
  });
});
