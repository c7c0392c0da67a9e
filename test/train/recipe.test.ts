import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTrainConfig, TrainConfigSchema } from '../../src/train/config.js';
import * as pythonPath from '../../src/train/python-path.js';
import { grpoArguments, loraArguments } from '../../src/train/recipe.js';
import { geolab } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { FIXTURES, runPython } from './python-helpers.js';
import { cellValue, NOT_PASSED, recipeTable } from './recipe-table.js';

/** Modules that raise on import: the dry run must not import the GPU stack. */
const POISON = join(FIXTURES, 'poison');

describe('the recipe: docs/training.md table = config written by init = what the trainer passes GRPOConfig', () => {
  const dir = tempDir('geolab-recipe-');
  const home = tempDir();
  const init = geolab(['train', 'init', '--out', join(dir, 'run'), '--name', 'recipe1', '--env-url', 'http://127.0.0.1:9', '--yes'], { home });
  const file = join(dir, 'run', 'config.json');

  it('init writes every GRPO argument of the table into config.json, importance-sampling correction first and off', () => {
    expect(init.code, init.stderr).toBe(0);
    const written = JSON.parse(readFileSync(file, 'utf8')) as { grpo: Record<string, unknown> };
    expect(Object.keys(written.grpo)[0]).toBe('vllm_importance_sampling_correction');
    expect(written.grpo.vllm_importance_sampling_correction).toBe(false);
    const table = recipeTable();
    for (const row of table) {
      if (!(row.argument in written.grpo)) continue;
      expect(cellValue(row.geolab), row.argument).toEqual({ value: written.grpo[row.argument] });
    }
    // The fields of the recipe that are config fields, each present in the written file.
    for (const key of ['vllm_importance_sampling_mode', 'vllm_importance_sampling_clip_min', 'vllm_importance_sampling_clip_max', 'chat_template_kwargs', 'mask_truncated_completions', 'logging_steps', 'num_completions_to_print', 'bf16', 'gradient_checkpointing', 'log_completions', 'use_vllm', 'vllm_mode']) {
      expect(written.grpo, key).toHaveProperty(key);
    }
  });

  it("the trainer's GRPOConfig arguments match the table's geolab column, and launch --dry-run prints the same", async () => {
    const r = await runPython([pythonPath.TRAINER_SCRIPT, file, '--dry-run'], { env: { PYTHONPATH: POISON } });
    expect(r.code, r.stderr).toBe(0);
    const plan = JSON.parse(r.stdout) as { grpo_config: Record<string, unknown>; lora_config: Record<string, unknown> };
    const kwargs = plan.grpo_config;
    const table = recipeTable();
    expect(table[0]?.argument).toBe('vllm_importance_sampling_correction');
    expect(Object.keys(kwargs)[0]).toBe('vllm_importance_sampling_correction');
    for (const row of table) {
      if (row.geolab === NOT_PASSED) {
        expect(kwargs, row.argument).not.toHaveProperty(row.argument);
        continue;
      }
      expect(kwargs, `${row.argument} is in the table but not passed`).toHaveProperty(row.argument);
      const cell = cellValue(row.geolab);
      if (cell) expect(kwargs[row.argument], row.argument).toEqual(cell.value);
    }
    // Every argument passed is in the table: none is added without its published value and TRL's default.
    expect(Object.keys(kwargs).filter((k) => !table.some((row) => row.argument === k))).toEqual([]);
    // Every argument the published run set is passed, unless the table says why not.
    for (const row of table) if (row.published !== 'not set' && row.geolab !== NOT_PASSED) expect(kwargs).toHaveProperty(row.argument);
    expect(kwargs.output_dir).toBe(join(dir, 'run'));
    expect(kwargs.run_name).toBe('recipe1');

    // The TypeScript mirror that launch --dry-run prints is the trainer's, key for key and in order.
    const config = TrainConfigSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
    expect(Object.entries(grpoArguments(config))).toEqual(Object.entries(kwargs));
    expect(loraArguments(config)).toEqual(plan.lora_config);
    const dry = geolab(['train', 'launch', file, '--dry-run', '--no-preflight', '--json'], { home });
    expect(dry.code, dry.stderr).toBe(0);
    expect((JSON.parse(dry.stdout) as { grpo_config: unknown }).grpo_config).toEqual(kwargs);
    const text = geolab(['train', 'launch', file, '--dry-run', '--no-preflight'], { home }).stdout;
    expect(text).toContain('GRPOConfig(\n  vllm_importance_sampling_correction=False,\n  vllm_importance_sampling_mode="token_truncate",');
    for (const key of Object.keys(kwargs)) expect(text).toContain(`\n  ${key}=`);
    expect(text).toContain('chat_template_kwargs={"enable_thinking": False},');
  });

  it('both checkers refuse importance-sampling bounds that cross, and a vLLM mode other than colocate', async () => {
    const base = JSON.parse(readFileSync(file, 'utf8')) as { grpo: Record<string, unknown> };
    const crossed = { ...base, grpo: { ...base.grpo, vllm_importance_sampling_clip_min: 3, vllm_importance_sampling_clip_max: 3 } };
    const server = { ...base, grpo: { ...base.grpo, vllm_mode: 'server' } };
    const fields = (value: unknown) => {
      const parsed = parseTrainConfig(value);
      return 'problems' in parsed ? parsed.problems.map((p) => p.field) : [];
    };
    expect(fields(crossed)).toEqual(['grpo.vllm_importance_sampling_clip_min']);
    expect(fields(server)).toEqual(['grpo.vllm_mode']);
    const files = [crossed, server].map((config, i) => {
      const path = join(dir, `broken-${i}.json`);
      writeFileSync(path, JSON.stringify(config));
      return path;
    });
    const r = await runPython([join(FIXTURES, 'check_configs.py'), join(pythonPath.TRAINER_SCRIPT, '..'), ...files]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ [files[0]!]: ['grpo.vllm_importance_sampling_clip_min'], [files[1]!]: ['grpo.vllm_mode'] });
  });
});
