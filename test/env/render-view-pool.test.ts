import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PanoramaRenderer } from '../../src/env/render/panorama.js';
import { PanoramaSource } from '../../src/env/render/panorama-source.js';
import { packRgb, reprojectRows } from '../../src/env/render/reproject.js';
import { VIEW_WORKER_YOUNG_MB, sharedViewBuffer, startViewWorker, toShared, type BandJob, type BandReply } from '../../src/env/render/view-pool.js';
import { PACKAGE_ROOT } from '../../src/paths.js';
import { paintPanorama, writeJpeg } from './render-view-helpers.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'geolab-render-pool-'));
  const colour = (lon: number, lat: number) => [128 + 100 * Math.cos((lon * Math.PI) / 90), 100 + lat, 128 + lon / 2] as const;
  await writeJpeg(join(dir, 'a.jpg'), paintPanorama(720, 360, colour));
  await writeJpeg(join(dir, 'b.jpg'), paintPanorama(720, 360, (lon, lat) => colour(-lon, -lat)));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const cameras = Array.from({ length: 12 }, (_, i) => ({ headingDeg: i * 31, pitchDeg: (i % 5) * 10 - 20, fovDeg: 40 + i * 5 }));

/** Renders every camera on both panoramas at once, like concurrent sessions. */
function renderAll(renderer: { renderView: PanoramaRenderer['renderView'] }): Promise<Buffer[]> {
  return Promise.all(
    cameras.flatMap((camera) => ['a', 'b'].map((imageId) => renderer.renderView({ imageId, compassAngle: 17 }, camera, 96))),
  );
}

describe('PanoramaRenderer on worker threads', () => {
  it('draws the same bytes as in-process rendering, for concurrent requests, and stops on close', async () => {
    const inProcess = await renderAll(new PanoramaRenderer(new PanoramaSource(dir)));
    const pooled = new PanoramaRenderer(new PanoramaSource(dir), { workers: 2 });
    const views = await renderAll(pooled);
    expect(views.map((v, i) => v.equals(inProcess[i]!))).toEqual(inProcess.map(() => true));
    await pooled.close();
    await expect(pooled.renderView({ imageId: 'a', compassAngle: 0 }, cameras[0]!, 96)).rejects.toThrow(/closed/);
  });

  it('rejects a bad request before it reaches a worker, and keeps working', async () => {
    const pooled = new PanoramaRenderer(new PanoramaSource(dir), { workers: 1 });
    await expect(pooled.renderView({ imageId: 'a', compassAngle: 0 }, { headingDeg: 0, pitchDeg: 0, fovDeg: 0 }, 96)).rejects.toThrow(RangeError);
    expect((await pooled.renderView({ imageId: 'a', compassAngle: 0 }, cameras[1]!, 96)).length).toBeGreaterThan(0);
    await pooled.close();
  });

  // The built package's pool (in a chunk of dist/bundle/) starts the bundled view-worker.js beside
  // it (test/global-setup.ts builds the bundle): that worker draws what reprojectRows draws here.
  const built = join(PACKAGE_ROOT, 'dist', 'bundle', 'view-worker.js');
  it.skipIf(!existsSync(built))('the bundled worker draws the same rows', async () => {
    const pano = toShared(packRgb(paintPanorama(64, 32, (lon, lat) => [128 + lon / 2, 100 + lat, 50] as const)));
    const job = { pano, yawDeg: 30, pitchDeg: -10, fovDeg: 70, sizePx: 24 };
    const expected = new Uint8Array(24 * 24 * 3);
    reprojectRows(pano, job.yawDeg, job.pitchDeg, job.fovDeg, job.sizePx, expected, 0, 24);
    const out = sharedViewBuffer(24);
    const worker = new Worker(pathToFileURL(built));
    try {
      const reply = await new Promise<BandReply>((done, fail) => {
        worker.once('message', done);
        worker.once('error', fail);
        worker.postMessage({ ...job, out, rowStart: 0, rowEnd: 24 } satisfies BandJob);
      });
      expect(reply).toEqual({ ok: true });
      expect(Buffer.from(out).equals(Buffer.from(expected))).toBe(true);
    } finally {
      await worker.terminate();
    }
  });
});

// docs/env.md, "Memory": a view worker's young generation is capped, since it allocates only its
// messages; left to V8 it grew to 8 MiB in each worker during a sweep. Capped, it still draws.
describe('a view worker', () => {
  it('runs with a small young generation and draws the same rows as reprojectRows', async () => {
    const worker = startViewWorker();
    try {
      expect(worker.resourceLimits?.maxYoungGenerationSizeMb).toBe(VIEW_WORKER_YOUNG_MB);
      expect(VIEW_WORKER_YOUNG_MB).toBeLessThanOrEqual(2);
      const pano = toShared(packRgb(paintPanorama(720, 360, (lon, lat) => [128 + lon / 2, 100 + lat, 50] as const)));
      const job = { pano, yawDeg: 30, pitchDeg: -10, fovDeg: 70, sizePx: 512 };
      const expected = new Uint8Array(512 * 512 * 3);
      reprojectRows(pano, job.yawDeg, job.pitchDeg, job.fovDeg, job.sizePx, expected, 0, 512);
      const out = sharedViewBuffer(512);
      // Many bands, so the worker allocates well past its young generation.
      for (let round = 0; round < 40; round++) {
        out.fill(0);
        const reply = await new Promise<BandReply>((done, fail) => {
          worker.once('message', (message: BandReply) => {
            worker.off('error', fail);
            done(message);
          });
          worker.once('error', fail);
          worker.postMessage({ ...job, out, rowStart: 0, rowEnd: 512 } satisfies BandJob);
        });
        expect(reply).toEqual({ ok: true });
      }
      expect(Buffer.from(out).equals(Buffer.from(expected))).toBe(true);
    } finally {
      await worker.terminate();
    }
  });
});
