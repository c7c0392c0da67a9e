/**
 * Memory follows the decoded-panorama cache, not the number of panoramas seen: a renderer on
 * worker threads, shown many more distinct panoramas than its cache holds, must not keep the
 * dropped ones (shared copies its workers received, decode buffers). Run in a child process
 * (bench/env-sweep-rss-child.ts) so that its RSS is the renderer's alone; the env.sweep_rss bench
 * measures the same of a whole `geolab eval run`.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeNoisePanoramas } from '../../bench/make-noise-panoramas.js';
import { PACKAGE_ROOT } from '../../src/paths.js';

const MIB = 2 ** 20;
const PANORAMAS = 100; // 8 MiB each decoded: 800 MiB
const CACHE_MIB = 64;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'geolab-render-memory-'));
  await makeNoisePanoramas(dir, PANORAMAS);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** One 64 px look per episode, each at a new panorama, `concurrency` at a time, on two workers. */
function sweep(concurrency: number): Record<string, number> {
  const child = join(PACKAGE_ROOT, 'bench', 'env-sweep-rss-child.ts');
  const args = [dir, String(PANORAMAS), String(PANORAMAS), '1', String(CACHE_MIB), '2', '64', '4', String(concurrency)];
  const out = execFileSync(process.execPath, ['--import', 'tsx', child, ...args], { cwd: PACKAGE_ROOT, encoding: 'utf8' });
  const figures = JSON.parse(out.trim().split('\n').at(-1)!) as Record<string, number>;
  expect(figures.views).toBe(PANORAMAS);
  return figures;
}

describe('PanoramaRenderer memory', () => {
  it('stays near the cache cap however many distinct panoramas it is shown, however many at once', { timeout: 120_000 }, () => {
    // The baseline is the peak once 4 episodes are done.
    const { peak_rss, peak_rss_checkpoint } = sweep(4);
    // Growth past the baseline: the rest of the cache, the panoramas dropped since the last
    // collection (64 MiB) and those in flight: about 160 MiB when measured; before the fix
    // it grew by 830 MiB.
    expect((peak_rss! - peak_rss_checkpoint!) / MIB).toBeLessThan(CACHE_MIB + 200);
    // 48 sessions at once, each on its own panorama: only a few views are made at a time, so
    // there are not 48 decoded panoramas waiting for the workers (that would be 384 MiB more).
    const crowd = sweep(48);
    expect((crowd.peak_rss! - peak_rss!) / MIB).toBeLessThan(150);
  });
});
