/**
 * env.sweep_rss: the memory of a sweep over many distinct panoramas, which must follow the
 * decoded-panorama cache's cap rather than the number of episodes. One child process
 * (bench/env-sweep-rss-child.ts), so that its peak RSS is the renderer's alone, renders with the
 * default cache and two view workers 900 episodes over 150 panoramas, 4 at a time; the peak is
 * read after 300 episodes and again at the end. Each episode looks once: its first look is the
 * decode, the one thing that costs memory; further looks at the same panorama add none. The
 * baseline (the process and its two workers, which run the TypeScript sources through tsx, about
 * 300 MiB of the overhead) is part of the peak.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_CACHE_BYTES } from '../src/env/render/panorama.js';
import { round, type Bench } from './harness.js';
import { makeNoisePanoramas } from './make-noise-panoramas.js';

const MIB = 2 ** 20;
const PANORAMAS = 150; // 8 MiB each decoded: 1.2 GiB, more than twice the cache
const EPISODES = 300;
const WORKERS = 2;
/** Peak RSS allowed beyond the cache cap: the process, its workers and the panoramas in flight. */
const OVERHEAD_MIB = 400;

interface SweepFigures {
  peak_rss: number;
  peak_rss_checkpoint: number;
  views: number;
  seconds: number;
}

function sweep(dir: string, episodes: number, checkpoint: number, cacheMiB: number): SweepFigures {
  // The child runs the TypeScript sources as this process does (tsx's loader is in execArgv).
  const args = [...process.execArgv, join(import.meta.dirname, 'env-sweep-rss-child.ts')];
  const out = execFileSync(process.execPath, [...args, dir, String(PANORAMAS), String(episodes), '1', String(cacheMiB), String(WORKERS), '640', String(checkpoint)], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return JSON.parse(out.trim().split('\n').at(-1)!) as SweepFigures;
}

export const envSweepBenches: Bench[] = [
  {
    name: 'env.sweep_rss',
    unit: 'views',
    async run() {
      // Kept between runs (a first run draws them, ~10 s): the figures are about decoding, not drawing.
      const dir = join(tmpdir(), 'geolab-bench-sweep-panos');
      mkdirSync(dir, { recursive: true });
      await makeNoisePanoramas(dir, PANORAMAS);
      const capMiB = DEFAULT_CACHE_BYTES / MIB;
      const run = sweep(dir, 3 * EPISODES, EPISODES, capMiB);
      const budget = capMiB + OVERHEAD_MIB;
      const peak = run.peak_rss_checkpoint / MIB;
      const peak3 = run.peak_rss / MIB;
      return {
        // Wall time per view (1000 / per_s), a decode each.
        median_ms: round((run.seconds * 1000) / run.views),
        per_s: round(run.views / run.seconds, 1),
        peak_rss_mib: round(peak),
        peak_rss_3x_mib: round(peak3),
        cache_cap_mib: capMiB,
        budget_mib: budget,
        within_budget: peak <= budget && peak3 <= budget ? 1 : 0,
      };
    },
  },
];
