/** The sweep's pure planning: work list, shards, resume keys, and the harness's model file. */
import { describe, expect, it } from 'vitest';
import { InputError, UsageError } from '../../src/core/errors.js';
import { MIN_THINKING_TOKENS, parseModelsFile } from '../../src/agent/models-file.js';
import {
  chooseIndices,
  episodeKey,
  isSettled,
  parseIndices,
  parseShard,
  planWork,
  recordKey,
  remainingWork,
  shardFromEnvironment,
  shardIndices,
} from '../../src/eval/run/plan.js';

const arms = [
  { model: 'base', promptVersion: 'geolab-tools-1' },
  { model: 'ckpt', promptVersion: 'geolab-tools-1' },
];

describe('the work list', () => {
  it('is pass by pass: sample p of every task, for every arm, each key once', () => {
    const items = planWork({ arms, split: 'eval', indices: [0, 1, 2], passes: 2 });
    expect(items).toHaveLength(2 * 3 * 2);
    expect(items.slice(0, 4).map((i) => [i.model, i.index, i.sample])).toEqual([
      ['base', 0, 0],
      ['base', 1, 0],
      ['base', 2, 0],
      ['base', 0, 1],
    ]);
    expect(new Set(items.map(episodeKey)).size).toBe(items.length);
  });

  it('--shard auto: Slurm array indices made 0-based (first index, step), Kubernetes completion index with --shards', () => {
    expect(shardFromEnvironment({ SLURM_ARRAY_TASK_ID: '2', SLURM_ARRAY_TASK_COUNT: '3' })).toEqual({ shard: { index: 2, count: 3 }, source: 'SLURM_ARRAY_TASK_ID=2, SLURM_ARRAY_TASK_COUNT=3' });
    expect(shardFromEnvironment({ SLURM_ARRAY_TASK_ID: '5', SLURM_ARRAY_TASK_MIN: '4', SLURM_ARRAY_TASK_COUNT: '3' }).shard).toEqual({ index: 1, count: 3 });
    expect(shardFromEnvironment({ SLURM_ARRAY_TASK_ID: '8', SLURM_ARRAY_TASK_MIN: '0', SLURM_ARRAY_TASK_STEP: '4', SLURM_ARRAY_TASK_COUNT: '3' }).shard).toEqual({ index: 2, count: 3 });
    expect(() => shardFromEnvironment({ SLURM_ARRAY_TASK_ID: '6', SLURM_ARRAY_TASK_STEP: '4', SLURM_ARRAY_TASK_COUNT: '3' })).toThrow('not SLURM_ARRAY_TASK_MIN=0 plus a multiple of SLURM_ARRAY_TASK_STEP=4');
    expect(shardFromEnvironment({ SLURM_ARRAY_TASK_ID: '1' }, 2).shard).toEqual({ index: 1, count: 2 });
    expect(shardFromEnvironment({ JOB_COMPLETION_INDEX: '0' }, 3)).toEqual({ shard: { index: 0, count: 3 }, source: 'JOB_COMPLETION_INDEX=0, --shards 3' });
    expect(() => shardFromEnvironment({ SLURM_ARRAY_TASK_ID: '0', SLURM_ARRAY_TASK_MIN: '1', SLURM_ARRAY_TASK_COUNT: '3' })).toThrow('below SLURM_ARRAY_TASK_MIN=1');
    expect(() => shardFromEnvironment({ JOB_COMPLETION_INDEX: ' 1e0' }, 3)).toThrow('JOB_COMPLETION_INDEX must be an integer >= 0');
  });

  it('shards split the tasks without overlap and cover them all', () => {
    const indices = chooseIndices(10, {}, 'eval');
    const shards = [0, 1, 2].map((i) => shardIndices(indices, parseShard(`${i}/3`)));
    expect(shards[0]).toEqual([0, 3, 6, 9]);
    expect(shards.flat().sort((a, b) => a - b)).toEqual(indices);
  });

  it('reads --indices with ranges, --limit past the end, and refuses what is wrong', () => {
    expect(parseIndices('4, 0,7-9')).toEqual([4, 0, 7, 8, 9]);
    expect(chooseIndices(5, { limit: 9 }, 'eval')).toEqual([0, 1, 2, 3, 4]);
    expect(() => parseIndices('1,x')).toThrow(UsageError);
    expect(() => parseIndices('1,1')).toThrow(/twice/);
    expect(() => chooseIndices(5, { indices: [7] }, 'eval')).toThrow(/task 7 is out of range: split eval has tasks 0 to 4/);
    expect(() => parseShard('3/3')).toThrow(/0 <= I < N/);
    expect(() => parseShard('1')).toThrow(UsageError);
  });

  it('resumes: a recorded key is skipped, a retried failure is not', () => {
    const items = planWork({ arms: arms.slice(0, 1), split: 'eval', indices: [0, 1], passes: 2 });
    const recorded = (index: number, sample: number, extra: Record<string, unknown>) => ({
      model_name: 'base',
      config: { prompt_version: 'geolab-tools-1' },
      task: { split: 'eval', index, sample },
      ...extra,
    });
    const records = [
      recorded(0, 0, { outcome: { reward: 0.5 } }),
      recorded(1, 0, { error: 'environment EXECUTION_ERROR: boom', failure: 'environment' }),
      recorded(0, 1, { error: 'aborted', failure: 'aborted' }),
      recorded(1, 1, { error: 'gone', failure: 'unreachable' }),
    ];
    const done = new Set(records.filter(isSettled).map((r) => recordKey(r)!));
    expect(remainingWork(items, done).map((i) => [i.index, i.sample])).toEqual([
      [0, 1],
      [1, 1],
    ]);
    // The harness's failed record has no `failure`: done, as the harness counts it.
    expect(isSettled({ error: 'KeyError' })).toBe(true);
    // No sample: the harness's default 0.
    expect(recordKey({ model_name: 'm', config: { prompt_version: 'v2' }, task: { split: 'eval', index: 3 } })).toBe(JSON.stringify(['m', 'v2', 'eval', 3, 0]));
  });
});

describe("the harness's model file", () => {
  const file = 'board_models.json';
  const parse = (value: unknown) => parseModelsFile(JSON.stringify(value), file);

  it('reads every field, with the harness defaults and replicas as a list or comma-separated', () => {
    const specs = parse([
      { name: 'sonnet', provider: 'anthropic', model: 'claude-x', max_tokens: 4096, concurrency: 4, thinking: 'low', temperature: 0.5 },
      { name: 'local', provider: 'vllm', model: 'Qwen/Qwen2.5-VL-7B-Instruct', base_url: 'http://a:8001/v1, http://b:8001/v1/', api_key_env: 'VLLM_API_KEY', extra_body: { chat_template_kwargs: { enable_thinking: false } } },
      { model: 'gpt-x', base_url: ['https://api.openai.com/v1'], thinking: 'off', probe_image_tokens: 10 },
    ]);
    expect(specs[0]).toMatchObject({
      name: 'sonnet',
      provider: 'anthropic',
      baseUrls: ['https://api.anthropic.com'],
      apiKeyEnv: 'ANTHROPIC_API_KEY',
      maxTokens: MIN_THINKING_TOKENS,
      concurrency: 4,
      extraBody: { thinking: { type: 'enabled', budget_tokens: 2048 } },
    });
    // Anthropic refuses a temperature beside thinking.
    expect(specs[0]).not.toHaveProperty('temperature');
    expect(specs[1]).toMatchObject({ provider: 'openai', baseUrls: ['http://a:8001/v1', 'http://b:8001/v1'], apiKeyEnv: 'VLLM_API_KEY', maxTokens: 4096 });
    expect(specs[1]!.extraBody).toEqual({ chat_template_kwargs: { enable_thinking: false } });
    expect(specs[2]).toMatchObject({ name: 'gpt-x', apiKeyEnv: 'OPENAI_API_KEY', extraBody: { reasoning_effort: 'none' } });
  });

  it('names the file and the field of each problem', () => {
    const problem = (value: unknown) => {
      try {
        parse(value);
      } catch (err) {
        expect(err).toBeInstanceOf(InputError);
        return (err as Error).message;
      }
      throw new Error('no error');
    };
    expect(problem({})).toBe(`${file}: expected a JSON list of model specs ([{"name": ..., "provider": ..., "model": ...}, ...])`);
    expect(problem([{ model: 'a' }, { model: 'b', provider: 'gemini' }])).toBe(`${file}, field [1].provider: expected "openai" or "anthropic", got "gemini"`);
    expect(problem([{ name: 'a' }])).toBe(`${file}, field [0].model: is required: the model id the endpoint serves`);
    expect(problem([{ model: 'a', base_url: ['http://x/v1', 'ftp://y'] }])).toMatch(/field \[0\]\.base_url\[1\]: expected an http\(s\) URL/);
    expect(problem([{ model: 'a', concurrency: 0 }])).toMatch(/field \[0\]\.concurrency: expected a whole number >= 1, got 0/);
    expect(problem([{ model: 'a', api_key_env: 'sk-123 456' }])).toMatch(/field \[0\]\.api_key_env: takes the NAME/);
    expect(problem([{ model: 'a' }, { model: 'a' }])).toMatch(/field \[1\]\.name: model name "a" is given twice/);
    expect(() => parseModelsFile('[{', file)).toThrow(new RegExp(`^${file}: not valid JSON`));
  });
});
