/**
 * Whole environment steps (docs/budgets.md): a look with the panorama decoded (warm) and with a decode
 * first (cold), a pin with its map, and the steps/s 8 concurrent WebSocket sessions sustain doing
 * look/pan on a real server over loopback. Every timed look uses a new heading; only decoded
 * panoramas are cached, never rendered views.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RemoteEnvClient } from '../src/env/client/remote.js';
import { createEnvironment } from '../src/env/environment.js';
import { startServer } from '../src/env/server.js';
import { demoSplits } from '../src/env/task-splits.js';
import { ensureDemoPanorama } from '../src/demo/index.js';
import { median, round, type Bench } from './harness.js';

const SAMPLES = 15;

/** Train tasks the benches play. */
const PLAYED = 4;

/** The demo splits with the played tasks' panoramas drawn beforehand, so no timing includes the generator. */
async function preparedDemo() {
  const splits = await demoSplits();
  const dir = mkdtempSync(join(tmpdir(), 'geolab-bench-panos-'));
  // Only start frames: the benches look and pin, they never walk.
  await Promise.all((splits.get('train') ?? []).slice(0, PLAYED).map((task) => ensureDemoPanorama(dir, task, task.start_frame)));
  return { splits, dir };
}

let prepared: ReturnType<typeof preparedDemo> | undefined;
const demo = () => (prepared ??= preparedDemo());

async function timeSteps(step: (i: number) => Promise<unknown>, samples = SAMPLES): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const start = performance.now();
    await step(i);
    times.push(performance.now() - start);
  }
  return times;
}

function result(times: number[]) {
  const ms = median(times);
  return { median_ms: round(ms), per_s: round(1000 / ms, 1) };
}

export const envStepBenches: Bench[] = [
  {
    name: 'env.look_warm',
    unit: 'steps',
    async run() {
      const { splits, dir } = await demo();
      const env = createEnvironment({ splits, panoramasDir: dir, workers: 0 });
      const episode = env.newEpisode();
      await episode.reset({ split: 'train', index: 0 });
      await episode.step({ op: 'look', heading_deg: 1 });
      const times = await timeSteps((i) => episode.step({ op: 'look', heading_deg: 17 + i * 23 }));
      await env.close();
      return result(times);
    },
  },
  {
    name: 'env.look_cold',
    unit: 'steps',
    async run() {
      const { splits, dir } = await demo();
      // A cache too small to hold any panorama: every look decodes its 2048x1024 JPEG first.
      const env = createEnvironment({ splits, panoramasDir: dir, workers: 0, cacheBytes: 1 });
      const episode = env.newEpisode();
      await episode.reset({ split: 'train', index: 1 });
      const times = await timeSteps((i) => episode.step({ op: 'look', heading_deg: 11 + i * 29 }));
      await env.close();
      return result(times);
    },
  },
  {
    name: 'env.map',
    unit: 'steps',
    async run() {
      const { splits, dir } = await demo();
      const env = createEnvironment({ splits, panoramasDir: dir, workers: 0, config: { maxSteps: 1000 } });
      const episode = env.newEpisode();
      await episode.reset({ split: 'train', index: 2 });
      await episode.step({ op: 'pin', lat: 10, lon: 10 });
      const times = await timeSteps((i) =>
        episode.step({ op: 'pin', lat: -50 + ((i * 37) % 100), lon: -170 + ((i * 71) % 340), span_deg: [7, 1, 20][i % 3] }),
      );
      await env.close();
      return result(times);
    },
  },
  {
    name: 'env.ws_8_sessions',
    unit: 'steps',
    async run() {
      const { splits, dir } = await demo();
      const env = createEnvironment({ splits, panoramasDir: dir, config: { maxSteps: 10_000 } });
      const server = await startServer(env, { port: 0 });
      const clients = Array.from({ length: 8 }, () => new RemoteEnvClient(server.url));
      await Promise.all(clients.map((c, i) => c.reset({ split: 'train', index: i % PLAYED })));
      await Promise.all(clients.map((c) => c.step({ op: 'look', heading_deg: 5 })));
      const rates: number[] = [];
      const stepsPerClient = 12;
      for (let round_ = 0; round_ < 3; round_++) {
        const start = performance.now();
        await Promise.all(
          clients.map(async (c, k) => {
            for (let i = 0; i < stepsPerClient; i++) {
              await (i % 2 ? c.step({ op: 'pan', delta_deg: 37 }) : c.step({ op: 'look', heading_deg: (k * 45 + i * 13) % 360 }));
            }
          }),
        );
        rates.push((clients.length * stepsPerClient * 1000) / (performance.now() - start));
      }
      await Promise.all(clients.map((c) => c.close()));
      await server.close();
      await env.close();
      const perS = median(rates);
      return { median_ms: round(1000 / perS), per_s: round(perS, 1) };
    },
  },
];
