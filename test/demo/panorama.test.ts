import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { initialBearingDeg } from '../../src/core/geodesy.js';
import { columnOfAzimuth, renderDemoPanorama, rowOfElevation } from '../../src/demo/panorama.js';
import { CAMERA_HEIGHT_M, DemoSceneError, LANE_WIDTH_M, demoScene } from '../../src/demo/scenes.js';
import type { DemoTask } from '../../src/demo/tasks.js';
import {
  H, LEFT_DRIVING, W, YELLOW_CENTRE, columnGap, columnOf, decode, isCarAhead, isCarOncoming, isWhite, isYellow,
  largestBlob, pixelAt, readDemoTasks, rowOf, type Pixel, type Raster,
} from './pixels.js';

const tasks = readDemoTasks();
const rendered = new Map<string, { jpeg: Buffer; raster: Raster }>();

/** Every task's start frame, rendered once for the whole file. */
beforeAll(async () => {
  for (const task of tasks) {
    const jpeg = await renderDemoPanorama(task, task.start_frame);
    rendered.set(task.task_id, { jpeg, raster: await decode(jpeg) });
  }
}, 120_000);

const view = (task: DemoTask): Raster => rendered.get(task.task_id)!.raster;
const startOf = (task: DemoTask) => task.frames[task.start_frame]!;
const roadBearing = (task: DemoTask): number => {
  const first = task.frames[0]!;
  const last = task.frames[task.frames.length - 1]!;
  return initialBearingDeg(first.lat, first.lon, last.lat, last.lon);
};

/** Our own reading of the documented geometry: the camera drives in its lane, 2.5 m up. */
const cameraLateral = (task: DemoTask): number => (LEFT_DRIVING.has(task.country) ? -1 : 1) * (LANE_WIDTH_M / 2);

/** Pixel of the ground point `aheadM` along the road and `lateralM` from the centre line (right positive). */
function groundPixel(task: DemoTask, raster: Raster, aheadM: number, lateralM: number): Pixel {
  const du = lateralM - cameraLateral(task);
  const azimuth = roadBearing(task) + (Math.atan2(du, aheadM) * 180) / Math.PI;
  const elevation = (-Math.atan2(CAMERA_HEIGHT_M, Math.hypot(aheadM, du)) * 180) / Math.PI;
  return pixelAt(raster, columnOf(azimuth, startOf(task).compass_angle), rowOf(elevation));
}

function samplesAlong(task: DemoTask, raster: Raster, laterals: readonly number[]): Pixel[] {
  const samples: Pixel[] = [];
  for (let ahead = 2; ahead <= 20; ahead += 0.25) for (const u of laterals) samples.push(groundPixel(task, raster, ahead, u));
  return samples;
}

const count = (pixels: readonly Pixel[], test: (p: Pixel) => boolean): number => pixels.filter(test).length;
const isAsphalt = ([r, g, b]: Pixel): boolean => Math.max(r, g, b) - Math.min(r, g, b) < 22 && (r + g + b) / 3 > 45 && (r + g + b) / 3 < 125;

describe('the pixel convention', () => {
  it('puts the compass angle in the centre column and true azimuth A at W/2 + (A - compass)/360 W', () => {
    expect(columnOfAzimuth(123, 123)).toBe(W / 2);
    expect(columnOfAzimuth(213, 123)).toBe(W / 2 + W / 4);
    expect(columnOfAzimuth(33, 123)).toBe(W / 4);
    expect(columnOfAzimuth(303, 123)).toBe(0);
    expect(rowOfElevation(0)).toBe(H / 2);
    expect(rowOfElevation(90)).toBe(0);
    expect(rowOfElevation(-45)).toBe((3 * H) / 4);
  });
});

describe('demo panoramas', () => {
  it('are 2048x1024 JPEGs without EXIF, XMP or any other APPn segment but JFIF', async () => {
    const { jpeg } = rendered.get(tasks[0]!.task_id)!;
    const meta = await sharp(jpeg).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', W, H]);
    expect(meta.exif).toBeUndefined();
    expect(meta.xmp).toBeUndefined();
    expect(jpeg.includes(Buffer.from('Exif\0\0'))).toBe(false);
    let at = 2;
    expect(jpeg.readUInt16BE(0)).toBe(0xffd8);
    while (jpeg[at] === 0xff && jpeg[at + 1] !== 0xda) {
      const marker = jpeg[at + 1]!;
      if (marker >= 0xe1 && marker <= 0xef) throw new Error(`APP${marker - 0xe0} segment written`);
      at += 2 + jpeg.readUInt16BE(at + 2);
    }
    expect(jpeg[at + 1]).toBe(0xda);
  });

  it('are deterministic: the same frame twice gives the same bytes, another frame other bytes', async () => {
    const task = tasks[5]!;
    const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
    const a = await renderDemoPanorama(task, 0);
    const b = await renderDemoPanorama(structuredClone(task), 0);
    expect(sha(a)).toBe(sha(b));
    expect(sha(await renderDemoPanorama(task, 1))).not.toBe(sha(a));
  });

  it('draw the noon sun at its true azimuth and elevation, south or north by hemisphere and month', () => {
    const halves = { south: 0, north: 0 };
    for (const task of tasks) {
      const frame = startOf(task);
      const month = Number(frame.captured_at.slice(5, 7));
      const day = [15, 46, 74, 105, 135, 166, 196, 227, 258, 288, 319, 349][month - 1]!;
      const declination = -23.44 * Math.cos(((2 * Math.PI) / 365) * (day + 10));
      const azimuth = frame.lat > declination ? 180 : 0;
      const elevation = 90 - Math.abs(frame.lat - declination);
      // Above 15 degrees: the sky, clear of the white-bordered sign; every demo sun is higher.
      expect(elevation, task.task_id).toBeGreaterThan(20);
      const sun = largestBlob(view(task), ([r, g, b]) => Math.min(r, g, b) >= 245, 0, Math.floor(rowOf(15)));
      expect(sun, task.task_id).toBeDefined();
      const where = `${task.task_id} ${task.country}`;
      expect(columnGap(sun!.column, columnOf(azimuth, frame.compass_angle)), where).toBeLessThanOrEqual(3);
      expect(Math.abs(sun!.row - rowOf(elevation)), where).toBeLessThanOrEqual(3);
      const nearerSouth = columnGap(sun!.column, columnOf(180, frame.compass_angle)) < columnGap(sun!.column, columnOf(0, frame.compass_angle));
      expect(nearerSouth, where).toBe(azimuth === 180);
      halves[nearerSouth ? 'south' : 'north']++;
    }
    expect(halves.south).toBeGreaterThan(3);
    expect(halves.north).toBeGreaterThan(3);
  });

  it('put the car ahead in our lane and the oncoming car and the other lane on the side the country drives', () => {
    for (const task of tasks) {
      const raster = view(task);
      const where = `${task.task_id} ${task.country}`;
      const forward = columnOf(roadBearing(task), startOf(task).compass_angle);
      const ahead = largestBlob(raster, isCarAhead, H / 2, H / 2 + 120);
      const oncoming = largestBlob(raster, isCarOncoming, H / 2 + 14, H / 2 + 60);
      expect(ahead && oncoming, where).toBeTruthy();
      expect(columnGap(ahead!.column, forward), where).toBeLessThanOrEqual(6);
      // Right-hand traffic: oncoming traffic and the centre line are on our left.
      const towardOtherLane = LEFT_DRIVING.has(task.country) ? 1 : -1;
      expect(Math.sign(oncoming!.column - forward), where).toBe(towardOtherLane);
      expect(Math.abs(oncoming!.column - forward), where).toBeGreaterThan(20);
      const otherLane = samplesAlong(task, raster, [cameraLateral(task) + towardOtherLane * LANE_WIDTH_M]);
      const beyondOurEdge = samplesAlong(task, raster, [cameraLateral(task) - towardOtherLane * LANE_WIDTH_M]);
      expect(count(otherLane, isAsphalt) / otherLane.length, where).toBeGreaterThan(0.9);
      expect(count(beyondOurEdge, isAsphalt) / beyondOurEdge.length, where).toBeLessThan(0.1);
    }
  });

  it('paint the centre line yellow in the Americas and Norway and white elsewhere', () => {
    let yellowTasks = 0;
    for (const task of tasks) {
      const samples = samplesAlong(task, view(task), [-0.15, 0, 0.15]);
      const [expected, other] = YELLOW_CENTRE.has(task.country) ? [isYellow, isWhite] : [isWhite, isYellow];
      const where = `${task.task_id} ${task.country}`;
      expect(count(samples, expected), where).toBeGreaterThanOrEqual(8);
      expect(count(samples, other), where).toBeLessThanOrEqual(1);
      if (YELLOW_CENTRE.has(task.country)) yellowTasks++;
    }
    expect(yellowTasks).toBeGreaterThanOrEqual(6);
  });

  it('paint yellow edge lines in Ireland, South Africa and Israel, none in Kenya, white elsewhere', () => {
    const edge = LANE_WIDTH_M - 0.175;
    for (const task of tasks) {
      const samples = samplesAlong(task, view(task), [-edge, edge]);
      const where = `${task.task_id} ${task.country}`;
      const yellow = count(samples, isYellow);
      const white = count(samples, isWhite);
      if (task.country === 'Kenya') expect(yellow + white, where).toBeLessThanOrEqual(1);
      else if (['Ireland', 'South Africa', 'Israel'].includes(task.country)) expect([yellow > 40, white <= 1], where).toEqual([true, true]);
      else expect([white > 40, yellow <= 1], where).toEqual([true, true]);
    }
  });

  it('stand a direction sign with text on our side of the road', () => {
    for (const task of tasks) {
      const raster = view(task);
      const scene = demoScene(task, task.start_frame);
      const where = `${task.task_id} ${task.country}`;
      const { sign, camera } = scene;
      const corner = (lateral: number, height: number): [number, number] => {
        const du = lateral - camera.lateralM;
        const ds = sign.alongM - camera.alongM;
        const azimuth = roadBearing(task) + (Math.atan2(du, ds) * 180) / Math.PI;
        return [columnOf(azimuth, startOf(task).compass_angle), rowOf((Math.atan2(height - CAMERA_HEIGHT_M, Math.hypot(ds, du)) * 180) / Math.PI)];
      };
      const [xa, y0] = corner(sign.lateralM - sign.widthM / 2, sign.topM);
      const [xb, y1] = corner(sign.lateralM + sign.widthM / 2, sign.bottomM);
      const [x0, x1] = [Math.min(xa, xb) + 3, Math.max(xa, xb) - 3];
      const pixels: Pixel[] = [];
      for (let y = Math.ceil(y0) + 3; y < y1 - 3; y++) for (let x = Math.ceil(x0); x < x1; x++) pixels.push(pixelAt(raster, x, y));
      expect(pixels.length, where).toBeGreaterThan(2000);
      const [br, bg, bb] = scene.clues.sign.background;
      const background = count(pixels, ([r, g, b]) => Math.abs(r - br) + Math.abs(g - bg) + Math.abs(b - bb) < 60);
      const text = pixels.length - background;
      expect(background / pixels.length, where).toBeGreaterThan(0.5);
      expect(text / pixels.length, where).toBeGreaterThan(0.05);
      const forward = columnOf(roadBearing(task), startOf(task).compass_angle);
      expect(Math.sign((x0 + x1) / 2 - forward), where).toBe(LEFT_DRIVING.has(task.country) ? -1 : 1);
    }
  });

  it('close up seamlessly where the right edge wraps to the left', () => {
    for (const task of tasks) {
      const raster = view(task);
      let total = 0;
      for (let y = 0; y < H; y++) {
        const [a, b] = [pixelAt(raster, W - 1, y), pixelAt(raster, 0, y)];
        total += Math.abs(a[0] - b[0]) + Math.abs(a[1] - b[1]) + Math.abs(a[2] - b[2]);
      }
      expect(total / (3 * H), task.task_id).toBeLessThan(3);
    }
  });

  it('refuse tasks that are not demo tasks instead of inventing clues', async () => {
    const task = tasks[0]!;
    await expect(renderDemoPanorama({ ...task, country: 'Atlantis' }, 0)).rejects.toThrow(DemoSceneError);
    const moved = { ...task, frames: task.frames.map((f) => ({ ...f, lat: f.lat + 1 })) };
    await expect(renderDemoPanorama(moved, 0)).rejects.toThrow(/not a demo task/);
    await expect(renderDemoPanorama(task, task.frames.length)).rejects.toThrow(/out of range/);
  });
});
