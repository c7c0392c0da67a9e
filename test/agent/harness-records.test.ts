/**
 * The records geolab ships and writes read correctly with the public harness's own readers, as
 * mirrored in standard-library Python by fixtures/harness_read.py (token totals through
 * `t.get("model", {})`, camera objects for replay, the mode and the report's arms).
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { harnessRead } from '../helpers/harness.js';

const DEMO_EPISODES = fileURLToPath(new URL('../../datasets/demo/episodes/episodes.jsonl', import.meta.url));

describe("the harness's readers", () => {
  it('read the shipped demo episodes: tokens, cameras, mode and arms by geolab prompt version', () => {
    const r = harnessRead(DEMO_EPISODES);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ episodes: 4, arms: expect.arrayContaining(['scripted-demo [geolab-tools-1]']) });
  });
});
