import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { noonSun } from '../../src/demo/scenes.js';
import { ByteLru } from '../../src/env/render/lru.js';
import { PanoramaRenderer } from '../../src/env/render/panorama.js';
import { PanoramaSource } from '../../src/env/render/panorama-source.js';
import { packRgb, reprojectRows, type PackedPanorama, type RgbImage } from '../../src/env/render/reproject.js';
import { EnvError, type Camera, type PanoramaRef } from '../../src/env/types.js';
import { DEMO_TASKS_FILE } from '../../src/paths.js';
import { loadTasksStrict } from '../../src/tasks/load.js';
import {
  appSegments, decodeJpeg, maxAbsDiff, paintPanorama, pixel, referenceView, row, writeJpeg, type Rgb,
} from './render-view-helpers.js';

const GREY: Rgb = [128, 128, 128];
const RED: Rgb = [220, 30, 30];
const SKY: Rgb = [40, 90, 220];
const EARTH: Rgb = [120, 80, 40];
const isRed = ([r, g, b]: Rgb): boolean => r > 150 && g < 100 && b < 100;
const isSky = ([r, , b]: Rgb): boolean => b > 170 && r < 100;
const isEarth = ([r, , b]: Rgb): boolean => r > 90 && r < 160 && b < 80;
const near = (a: Rgb, b: Rgb, tolerance: number): boolean => a.every((v, i) => Math.abs(v - b[i]!) <= tolerance);

/** Shortest signed difference of two angles in degrees. */
const angleDiff = (a: number, b: number): number => ((((a - b) % 360) + 540) % 360) - 180;

/** A red vertical stripe `halfWidthDeg` either side of `lonDeg` (from the centre column) on grey. */
const stripe = (lonDeg: number, halfWidthDeg: number) => (lon: number): Rgb =>
  Math.abs(angleDiff(lon, lonDeg)) <= halfWidthDeg ? RED : GREY;
/** Sky above 30 degrees, earth below -30, grey between. */
const skyAndEarth = (_lon: number, lat: number): Rgb => (lat > 30 ? SKY : lat < -30 ? EARTH : GREY);
/** Smooth and periodic in longitude, so a seam would show as a jump. */
const smooth = (lon: number, lat: number): Rgb => {
  const a = (lon * Math.PI) / 180;
  const b = (lat * Math.PI) / 180;
  return [128 + 100 * Math.cos(a), 128 + 100 * Math.sin(a), 128 + 90 * Math.sin(2 * b)];
};

/** Periodic in longitude with fast bands in latitude: reading a wrong row at the seam shows. */
const banded = (lon: number, lat: number): Rgb => {
  const a = (lon * Math.PI) / 180;
  return [128 + 100 * Math.cos(a), 128 + 100 * Math.sin(a), 128 + 120 * Math.sin((12 * lat * Math.PI) / 180)];
};

/** Columns of the middle row that pass `test`, and their mean. */
function middleRowHits(view: RgbImage, test: (p: Rgb) => boolean): { count: number; mean: number } {
  const hits = row(view, view.height >> 1)
    .map((p, x) => (test(p) ? x : -1))
    .filter((x) => x >= 0);
  return { count: hits.length, mean: hits.reduce((s, x) => s + x, 0) / hits.length };
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'geolab-render-view-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function rendererWith(panoramas: Record<string, RgbImage>, cacheBytes?: number): Promise<PanoramaRenderer> {
  for (const [name, image] of Object.entries(panoramas)) await writeJpeg(join(dir, `${name}.jpg`), image);
  return new PanoramaRenderer(new PanoramaSource(dir), { cacheBytes });
}

const look = (headingDeg: number, pitchDeg = 0, fovDeg = 90): Camera => ({ headingDeg, pitchDeg, fovDeg });
const ref = (imageId: string, compassAngle = 0): PanoramaRef => ({ imageId, compassAngle });

/** The whole view of a packed panorama, in a buffer of its own. */
function reprojectPacked(pano: PackedPanorama, yaw: number, pitch: number, fov: number, size: number): Uint8Array {
  const out = new Uint8Array(size * size * 3);
  reprojectRows(pano, yaw, pitch, fov, size, out, 0, size);
  return out;
}

/** The view of an RGB test image (packed on each call). */
const reproject = (pano: RgbImage, yaw: number, pitch: number, fov: number, size: number): Uint8Array =>
  reprojectPacked(packRgb(pano), yaw, pitch, fov, size);

describe('reproject', () => {
  it('matches a floating-point bilinear reference within one level on a smooth panorama', () => {
    const pano = paintPanorama(512, 256, smooth);
    for (const [yaw, pitch, fov, size] of [[0, 0, 90, 64], [137.3, 5, 90, 80], [-170, 60, 30, 51], [180, -89, 120, 64], [33, 90, 75, 33]] as const) {
      expect(maxAbsDiff(reproject(pano, yaw, pitch, fov, size), referenceView(pano, yaw, pitch, fov, size)), `${yaw}/${pitch}/${fov}`).toBeLessThanOrEqual(1);
    }
  });

  it('interpolates between pixel centres: halfway between two columns gives their mean', () => {
    // Two columns only: black at lon -90, white at lon +90; straight ahead (lon 0) is halfway.
    const pano = { data: new Uint8Array([0, 0, 0, 250, 250, 250]), width: 2, height: 1 };
    const centre = reproject(pano, 0, 0, 1, 1);
    expect([...centre]).toEqual([125, 125, 125]);
    expect([...reproject(pano, 90, 0, 1, 1)]).toEqual([250, 250, 250]);
  });

  it('wraps around the seam: the view across it equals the same view of the panorama rolled half a turn', () => {
    const pano = paintPanorama(512, 256, banded);
    const rolled = paintPanorama(512, 256, (lon, lat) => banded(lon + 180, lat));
    // An odd size puts the middle column's sample right on the seam, between the last and first columns.
    const acrossSeam = reproject(pano, 180, 10, 90, 97);
    expect(Buffer.from(acrossSeam).equals(Buffer.from(reproject(rolled, 0, 10, 90, 97)))).toBe(true);
    const middle = row({ data: acrossSeam, width: 97, height: 97 }, 48);
    const steps = middle.slice(1).map((p, x) => Math.max(...p.map((v, c) => Math.abs(v - middle[x]![c]!))));
    expect(Math.max(...steps)).toBeLessThanOrEqual(3);
  });

  it('gives the same bytes for the same input', () => {
    const pano = paintPanorama(512, 256, smooth);
    expect(Buffer.from(reproject(pano, 77.7, -12, 65, 101)).equals(Buffer.from(reproject(pano, 77.7, -12, 65, 101)))).toBe(true);
  });

  it('refuses arguments it cannot draw', () => {
    const pano = paintPanorama(8, 4, smooth);
    expect(() => reproject(pano, 0, 0, 0, 10)).toThrow(RangeError);
    expect(() => reproject(pano, 0, 0, 180, 10)).toThrow(RangeError);
    expect(() => reproject(pano, Number.NaN, 0, 90, 10)).toThrow(RangeError);
    expect(() => reproject(pano, 0, 0, 90, 2.5)).toThrow(RangeError);
    expect(() => reprojectPacked({ ...packRgb(pano), width: 9 }, 0, 0, 90, 10)).toThrow(/not 9x4/);
    expect(() => packRgb({ ...pano, width: 9 })).toThrow(/not 9x4 RGB/);
  });
});

describe('PanoramaRenderer views', () => {
  it('reuses its view buffers without one view leaking into the next, whatever the sizes', async () => {
    const panoramas = { a: paintPanorama(720, 360, smooth), b: paintPanorama(720, 360, banded) };
    const sequence = [['a', 0, 96], ['b', 40, 64], ['a', 200, 96], ['b', 300, 96], ['a', 10, 64]] as const;
    const reused = await rendererWith(panoramas);
    for (const [id, heading, size] of sequence) {
      const fresh = await (await rendererWith(panoramas)).renderView(ref(id), look(heading), size);
      expect((await reused.renderView(ref(id), look(heading), size)).equals(fresh), `${id} ${heading} ${size}`).toBe(true);
    }
  });

  it('centres the direction looked at: a stripe at yaw 90 is in the middle of the view at heading 90', async () => {
    const renderer = await rendererWith({ pano: paintPanorama(720, 360, stripe(90, 5)) });
    const view = await decodeJpeg(await renderer.renderView(ref('pano'), look(90), 200));
    expect(isRed(pixel(view, 100, 100))).toBe(true);
    expect(middleRowHits(view, isRed).mean).toBeCloseTo(99.5, 0);
    const ahead = await decodeJpeg(await renderer.renderView(ref('pano'), look(0), 200));
    expect(middleRowHits(ahead, isRed).count).toBe(0);
  });

  it('honours the compass angle: true heading H is centred at yaw H - compass_angle', async () => {
    // The stripe is 90 degrees right of a centre column that faces 250: true azimuth 340.
    const renderer = await rendererWith({ pano: paintPanorama(720, 360, stripe(90, 5)) });
    const view = await decodeJpeg(await renderer.renderView(ref('pano', 250), look(340), 200));
    expect(middleRowHits(view, isRed).mean).toBeCloseTo(99.5, 0);
    // Were the compass angle ignored, heading 90 would show the stripe.
    const ignored = await decodeJpeg(await renderer.renderView(ref('pano', 250), look(90), 200));
    expect(middleRowHits(ignored, isRed).count).toBe(0);
  });

  it('looks up at the sky with positive pitch and down at the ground with negative pitch', async () => {
    const renderer = await rendererWith({ pano: paintPanorama(720, 360, skyAndEarth) });
    const up = await decodeJpeg(await renderer.renderView(ref('pano'), look(0, 60, 40), 100));
    const down = await decodeJpeg(await renderer.renderView(ref('pano'), look(0, -60, 40), 100));
    expect(isSky(pixel(up, 50, 50)) && isSky(pixel(up, 50, 5))).toBe(true);
    expect(isEarth(pixel(down, 50, 50)) && isEarth(pixel(down, 50, 95))).toBe(true);
  });

  it('shows a narrower slice at a narrower field of view', async () => {
    // A stripe 20 degrees wide spans 2 tan(10°) / (2 tan(fov/2)) of the view's width.
    const renderer = await rendererWith({ pano: paintPanorama(1440, 720, stripe(0, 10)) });
    for (const fov of [90, 30]) {
      const view = await decodeJpeg(await renderer.renderView(ref('pano'), look(0, 0, fov), 200));
      const expected = (200 * Math.tan((10 * Math.PI) / 180)) / Math.tan((fov * Math.PI) / 360);
      expect(Math.abs(middleRowHits(view, isRed).count - expected), `fov ${fov}`).toBeLessThanOrEqual(3);
    }
  });

  it('draws no seam when looking at the back of the panorama (yaw 180)', async () => {
    const renderer = await rendererWith({ pano: paintPanorama(720, 360, banded) });
    const view = await decodeJpeg(await renderer.renderView(ref('pano'), look(180), 121));
    const middle = row(view, 60);
    const steps = middle.slice(1).map((p, x) => Math.max(...p.map((v, c) => Math.abs(v - middle[x]![c]!))));
    expect(Math.max(...steps)).toBeLessThanOrEqual(6);
    expect(near(pixel(view, 60, 60), banded(180, 0), 8)).toBe(true);
  });

  it('answers a square JPEG of the requested size without EXIF or other metadata, the same bytes every time', async () => {
    const renderer = await rendererWith({ pano: paintPanorama(720, 360, smooth) });
    const jpeg = await renderer.renderView(ref('pano', 12), look(33, 7, 70), 333);
    const meta = await sharp(jpeg).metadata();
    expect([meta.format, meta.width, meta.height, meta.channels]).toEqual(['jpeg', 333, 333, 3]);
    expect(meta.exif).toBeUndefined();
    expect(meta.xmp).toBeUndefined();
    expect(appSegments(jpeg)).toEqual([]);
    expect(jpeg.equals(await renderer.renderView(ref('pano', 12), look(33, 7, 70), 333))).toBe(true);
  });

  it('refuses view sizes beyond its limits', async () => {
    const renderer = await rendererWith({ pano: paintPanorama(72, 36, smooth) });
    await expect(renderer.renderView(ref('pano'), look(0), 0)).rejects.toThrow(RangeError);
    await expect(renderer.renderView(ref('pano'), look(0), 5000)).rejects.toThrow(RangeError);
  });
});

describe('PanoramaSource', () => {
  const GREEN: Rgb = [30, 200, 40];
  const MAGENTA: Rgb = [210, 40, 200];

  it('uses <id>.orig.jpg for a field of view of 45 degrees or less when it exists, <id>.jpg otherwise', async () => {
    const renderer = await rendererWith({ pano: paintPanorama(360, 180, () => GREEN), 'pano.orig': paintPanorama(720, 360, () => MAGENTA) });
    const centre = async (fov: number): Promise<Rgb> => pixel(await decodeJpeg(await renderer.renderView(ref('pano'), look(0, 0, fov), 64)), 32, 32);
    expect(near(await centre(45), MAGENTA, 12)).toBe(true);
    expect(near(await centre(10), MAGENTA, 12)).toBe(true);
    expect(near(await centre(46), GREEN, 12)).toBe(true);
    expect(near(await centre(90), GREEN, 12)).toBe(true);
    await rm(join(dir, 'pano.orig.jpg'));
    renderer.clearCache();
    expect(near(await centre(30), GREEN, 12)).toBe(true);
  });

  it('refuses path-like ids without touching the file system outside the cache', async () => {
    const source = new PanoramaSource(dir);
    for (const bad of ['../x', '../../etc/passwd', 'a/b', 'a\\b', '..', '.hidden', '', 'x'.repeat(200)]) {
      const attempt = source.resolve(bad, { orig: false });
      await expect(attempt, bad).rejects.toThrow(EnvError);
      await expect(attempt, bad).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    }
  });

  it('names the missing file when a panorama is not in the cache', async () => {
    const source = new PanoramaSource(dir);
    await expect(source.resolve('nowhere-1', { orig: true })).rejects.toThrow(join(dir, 'nowhere-1.jpg'));
  });

  it("draws a demo task's missing panorama on first use", async () => {
    const { tasks } = await loadTasksStrict(DEMO_TASKS_FILE);
    const task = tasks[3]!;
    const frame = task.frames[task.start_frame]!;
    const renderer = new PanoramaRenderer(new PanoramaSource(dir, { demoTasks: tasks }));
    expect(existsSync(join(dir, `${frame.image_id}.jpg`))).toBe(false);
    const jpeg = await renderer.renderView(ref(frame.image_id, frame.compass_angle), look(0), 128);
    expect((await sharp(jpeg).metadata()).width).toBe(128);
    expect(existsSync(join(dir, `${frame.image_id}.jpg`))).toBe(true);
  }, 30_000);
});

describe('decoded-panorama cache', () => {
  it('evicts the least recently used entries past its byte cap and keeps nothing larger than the cap', () => {
    const lru = new ByteLru<string>(10);
    lru.set('a', 'A', 4);
    lru.set('b', 'B', 4);
    expect(lru.get('a')).toBe('A'); // a is now the most recent
    lru.set('c', 'C', 4);
    expect([lru.get('a'), lru.get('b'), lru.get('c')]).toEqual(['A', undefined, 'C']);
    expect([lru.size, lru.bytes]).toEqual([2, 8]);
    lru.set('huge', 'H', 11);
    expect([lru.get('huge'), lru.size, lru.bytes]).toEqual([undefined, 2, 8]);
    lru.set('a', 'A2', 6); // replacing counts the new size only
    expect([lru.get('a'), lru.get('c'), lru.bytes]).toEqual(['A2', 'C', 10]);
    lru.clear();
    expect([lru.size, lru.bytes]).toEqual([0, 0]);
  });

  it('tells its owner of every value that leaves it, so the renderer can collect them', () => {
    const gone: string[] = [];
    const lru = new ByteLru<string>(10, (key, value, bytes) => gone.push(`${key}=${value}:${bytes}`));
    lru.set('a', 'A', 4);
    lru.set('b', 'B', 4);
    lru.set('c', 'C', 4); // evicts a
    lru.set('b', 'B2', 2); // replaces B
    lru.delete('c');
    lru.set('d', 'D', 3);
    lru.clear();
    expect(gone).toEqual(['a=A:4', 'b=B:4', 'c=C:4', 'b=B2:2', 'd=D:3']);
  });

  it('keeps decoded panoramas for warm looks and evicts them past the byte cap', async () => {
    const bytes = 360 * 180 * 4;
    const renderer = await rendererWith({ a: paintPanorama(360, 180, smooth), b: paintPanorama(360, 180, skyAndEarth) }, bytes * 1.5);
    const first = await renderer.panorama('a', false);
    expect(await renderer.panorama('a', false)).toBe(first);
    await renderer.panorama('b', false);
    expect(renderer.cachedBytes).toBe(bytes);
    const again = await renderer.panorama('a', false);
    expect(again).not.toBe(first);
    expect(Buffer.from(again.data).equals(Buffer.from(first.data))).toBe(true);
  });

  it('shares one decode between concurrent requests for the same panorama', async () => {
    const renderer = await rendererWith({ a: paintPanorama(720, 360, smooth) });
    const images = await Promise.all(Array.from({ length: 6 }, () => renderer.panorama('a', false)));
    expect(new Set(images).size).toBe(1);
    expect(renderer.cachedBytes).toBe(720 * 360 * 4);
  });
});

describe('a real demo panorama', () => {
  /** Centroid of the near-white pixels (the sun's disc is the only pure white in a demo sky). */
  function whiteCentroid(view: RgbImage): { x: number; y: number; count: number } {
    let sx = 0;
    let sy = 0;
    let count = 0;
    for (let y = 0; y < view.height; y++) {
      for (let x = 0; x < view.width; x++) {
        if (Math.min(...pixel(view, x, y)) < 245) continue;
        sx += x + 0.5;
        sy += y + 0.5;
        count++;
      }
    }
    return { x: sx / count, y: sy / count, count };
  }

  it('shows the noon sun in the middle of the view when looking at its azimuth and elevation', async () => {
    const { tasks } = await loadTasksStrict(DEMO_TASKS_FILE);
    const renderer = new PanoramaRenderer(new PanoramaSource(dir, { demoTasks: tasks }));
    // Brazil (sun due north) and Ireland (due south), both with the centre column far from the sun.
    for (const task of [tasks[4]!, tasks[11]!]) {
      const frame = task.frames[task.start_frame]!;
      const sun = noonSun(frame.lat, Number(frame.captured_at.slice(5, 7)));
      const at = ref(frame.image_id, frame.compass_angle);
      const view = await decodeJpeg(await renderer.renderView(at, look(sun.azimuthDeg, sun.elevationDeg, 60), 256));
      const disc = whiteCentroid(view);
      expect(disc.count, task.task_id).toBeGreaterThan(50);
      expect(Math.hypot(disc.x - 128, disc.y - 128), task.task_id).toBeLessThan(8);
      const away = await decodeJpeg(await renderer.renderView(at, look(sun.azimuthDeg + 180, sun.elevationDeg, 60), 256));
      expect(whiteCentroid(away).count, task.task_id).toBe(0);
    }
  }, 60_000);
});
