/**
 * The panorama view budgets of docs/budgets.md: the reprojection alone (beside the numpy baseline in
 * shared/bench/numpy_remap.py), a whole look warm and cold, and 8 sessions looking at once.
 * Every call looks at a new heading; only decoded panoramas are cached, never views.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PanoramaRenderer } from '../src/env/render/panorama.js';
import { PanoramaSource } from '../src/env/render/panorama-source.js';
import { packRgb, reprojectRows } from '../src/env/render/reproject.js';
import { sharedViewBuffer, toShared, ViewPool } from '../src/env/render/view-pool.js';
import type { PanoramaRef } from '../src/env/types.js';
import { DEMO_TASKS_FILE } from '../src/paths.js';
import { loadTasksStrict } from '../src/tasks/load.js';
import { pythonAnchorMs, round, timeAsync, timeBatches, type Bench, type BenchResult } from './harness.js';

const VIEW_PX = 640;
const CAMERA = { pitchDeg: 5, fovDeg: 90 } as const;
/** Successive headings 37.3 degrees apart: never the same view twice in a row. */
const heading = (i: number): number => (i * 37.3) % 360;

/** 2048x1024 RGB noise, the same every run (the numpy baseline also remaps noise). */
function noisePanorama(): { data: Uint8Array; width: number; height: number } {
  const width = 2048;
  const height = 1024;
  const data = new Uint8Array(width * height * 3);
  let s = 12345;
  for (let i = 0; i < data.length; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    data[i] = s >>> 24;
  }
  return { data, width, height };
}

let demoCache: Promise<{ source: PanoramaSource; refs: PanoramaRef[] }> | undefined;

/** Four demo panoramas, drawn once into a temp cache for all these benches (outside the timings). */
function demoPanoramas(): Promise<{ source: PanoramaSource; refs: PanoramaRef[] }> {
  demoCache ??= loadTasksStrict(DEMO_TASKS_FILE).then(async ({ tasks }) => {
    const chosen = tasks.slice(0, 4);
    const source = new PanoramaSource(mkdtempSync(join(tmpdir(), 'geolab-bench-panos-')), { demoTasks: chosen });
    const refs = chosen.map((task) => {
      const frame = task.frames[task.start_frame]!;
      return { imageId: frame.image_id, compassAngle: frame.compass_angle };
    });
    await Promise.all(refs.map((ref) => source.resolve(ref.imageId, { orig: false })));
    return { source, refs };
  });
  return demoCache;
}

/** A renderer with every demo panorama already decoded. */
async function warmRenderer(workers = 0): Promise<{ renderer: PanoramaRenderer; refs: PanoramaRef[] }> {
  const { source, refs } = await demoPanoramas();
  const renderer = new PanoramaRenderer(source, { workers });
  for (const ref of refs) await renderer.renderView(ref, { headingDeg: 0, ...CAMERA }, VIEW_PX);
  return { renderer, refs };
}

export const envRenderBenches: Bench[] = [
  {
    // The headline figure is one view drawn in two bands on two worker threads (both cores, as the
    // server draws); single_thread_ms is the same reprojection on the calling thread alone. Both
    // draw into a reused view buffer, as PanoramaRenderer does.
    name: 'env.reproject_640',
    unit: 'views',
    async run() {
      const pano = packRgb(noisePanorama());
      const view = new Uint8Array(VIEW_PX * VIEW_PX * 3);
      const single = timeBatches((i) => reprojectRows(pano, heading(i), CAMERA.pitchDeg, CAMERA.fovDeg, VIEW_PX, view, 0, VIEW_PX), 10);
      const pool = new ViewPool(2);
      const shared = toShared(pano);
      const sharedView = sharedViewBuffer(VIEW_PX);
      const job = (i: number) => ({ pano: shared, yawDeg: heading(i), pitchDeg: CAMERA.pitchDeg, fovDeg: CAMERA.fovDeg, sizePx: VIEW_PX });
      for (let i = 0; i < 5; i++) await pool.run(job(i), sharedView);
      let k = 0;
      const r = await timeAsync(() => pool.run(job(k++), sharedView), 31);
      await pool.close();
      const result = { ...r, single_thread_ms: single.median_ms };
      const numpy = pythonAnchorMs('env.reproject_640', 'numpy_remap.py', [String(VIEW_PX)], /([\d.]+) ms per view/);
      return numpy === undefined
        ? result
        : { ...result, numpy_ms: numpy, speedup: round(numpy / r.median_ms, 2), single_thread_speedup: round(numpy / single.median_ms, 2) };
    },
  },
  {
    name: 'env.render_view_warm',
    unit: 'views',
    async run() {
      const { renderer, refs } = await warmRenderer();
      let i = 0;
      return timeAsync(() => renderer.renderView(refs[0]!, { headingDeg: heading(i++), ...CAMERA }, VIEW_PX), 21);
    },
  },
  {
    name: 'env.render_view_cold',
    unit: 'views',
    async run() {
      const { renderer, refs } = await warmRenderer();
      let i = 0;
      return timeAsync(() => {
        renderer.clearCache();
        return renderer.renderView(refs[i % refs.length]!, { headingDeg: heading(i++), ...CAMERA }, VIEW_PX);
      }, 11);
    },
  },
  {
    // 8 sessions, 2 per panorama, each looking again as soon as its view arrives, on 2 worker threads;
    // median_ms is the wall time per view (1000 / per_s).
    name: 'env.render_view_8_sessions',
    unit: 'views',
    async run(): Promise<BenchResult> {
      const { renderer, refs } = await warmRenderer(2);
      const sessions = 8;
      const durationMs = 2000;
      let views = 0;
      const start = performance.now();
      await Promise.all(
        Array.from({ length: sessions }, async (_, s) => {
          for (let i = s; performance.now() - start < durationMs; i += sessions) {
            await renderer.renderView(refs[s % refs.length]!, { headingDeg: heading(i), ...CAMERA }, VIEW_PX);
            views++;
          }
        }),
      );
      const perS = (views * 1000) / (performance.now() - start);
      await renderer.close();
      return { median_ms: round(1000 / perS), per_s: round(perS, 1) };
    },
  },
];
