import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PanoramaRenderer } from '../../src/env/render/panorama.js';
import { PanoramaSource } from '../../src/env/render/panorama-source.js';
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

  // The built package spawns dist/env/render/view-worker.js directly (test/global-setup.ts builds dist/).
  const built = join(PACKAGE_ROOT, 'dist', 'env', 'render', 'panorama.js');
  it.skipIf(!existsSync(built))('works from the compiled dist/ as well', async () => {
    const dist = (await import(pathToFileURL(built).href)) as typeof import('../../src/env/render/panorama.js');
    const source = (await import(pathToFileURL(join(PACKAGE_ROOT, 'dist', 'env', 'render', 'panorama-source.js')).href)) as typeof import('../../src/env/render/panorama-source.js');
    const pooled = new dist.PanoramaRenderer(new source.PanoramaSource(dir), { workers: 2 });
    const inProcess = await renderAll(new PanoramaRenderer(new PanoramaSource(dir)));
    const views = await renderAll(pooled);
    expect(views.map((v, i) => v.equals(inProcess[i]!))).toEqual(inProcess.map(() => true));
    await pooled.close();
  });
});
