/**
 * A sweep's settings turned into startSweep's options (src/eval/run/options.ts), the one reading
 * shared by `geolab eval run` and the Eval board's new-sweep form: defaults, ranges, and the models
 * file's entries picked by name.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { DEFAULT_CONCURRENCY, DEFAULT_PASSES, sweepOptionsOf } from '../../src/eval/run/options.js';
import { tempDir } from '../helpers/fixtures.js';

const ENDPOINT = { model: 'qwen-vl', baseUrl: 'http://127.0.0.1:8000/v1' };

describe('sweepOptionsOf', () => {
  it('fills the defaults the CLI documents: 4 passes, adaptive concurrency of 8, the eval split, no folder', () => {
    const options = sweepOptionsOf(ENDPOINT);
    expect(options).toMatchObject({ split: 'eval', passes: DEFAULT_PASSES, concurrency: DEFAULT_CONCURRENCY, adaptive: true, env: [], out: undefined, limit: undefined });
    expect(DEFAULT_PASSES).toBe(4);
    expect(options.models.map((m) => [m.name, m.model, m.baseUrls])).toEqual([['qwen-vl', 'qwen-vl', ['http://127.0.0.1:8000/v1']]]);
  });

  it('a given concurrency is fixed, not adaptive; counts out of range name their flag', () => {
    expect(sweepOptionsOf({ ...ENDPOINT, concurrency: 3 })).toMatchObject({ concurrency: 3, adaptive: false });
    expect(() => sweepOptionsOf({ ...ENDPOINT, passes: 0 })).toThrow(/--passes must be an integer from 1 to 1000, got 0/);
    expect(() => sweepOptionsOf({ ...ENDPOINT, limit: 2, indices: '0,1' })).toThrow(UsageError);
  });

  it("picks a models file's entries by name, in the file's order, and names the file's models when one is missing", () => {
    const file = join(tempDir('geolab-sweep-options-'), 'models.json');
    writeFileSync(file, JSON.stringify(['a', 'b', 'c'].map((name) => ({ name, model: `${name}-vl`, base_url: 'http://127.0.0.1:8000/v1' }))));
    expect(sweepOptionsOf({ models: file }).models.map((m) => m.name)).toEqual(['a', 'b', 'c']);
    expect(sweepOptionsOf({ models: file, names: ['c', 'a'] }).models.map((m) => m.name)).toEqual(['a', 'c']);
    expect(() => sweepOptionsOf({ models: file, names: ['z'] })).toThrow('the models file has no model named z (it has a, b, c)');
  });
});
