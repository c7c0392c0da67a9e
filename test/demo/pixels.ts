/** Shared helpers for the demo tests: decoding panoramas and the docs/protocol.md pixel convention. */
import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import type { DemoTask } from '../../src/demo/tasks.js';

export const W = 2048;
export const H = 1024;

export type Pixel = readonly [number, number, number];

export interface Raster {
  data: Buffer;
  width: number;
  height: number;
}

export async function decode(jpeg: Buffer): Promise<Raster> {
  const { data, info } = await sharp(jpeg).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

export function pixelAt(raster: Raster, x: number, y: number): Pixel {
  const col = ((Math.round(x) % raster.width) + raster.width) % raster.width;
  const row = Math.min(raster.height - 1, Math.max(0, Math.round(y)));
  const i = (row * raster.width + col) * 3;
  return [raster.data[i]!, raster.data[i + 1]!, raster.data[i + 2]!];
}

/** x = W/2 + ((A - compass)/360) W, mod W: where true azimuth A appears. */
export function columnOf(azimuthDeg: number, compassDeg: number): number {
  const x = W / 2 + ((azimuthDeg - compassDeg) / 360) * W;
  return ((x % W) + W) % W;
}

/** y = H/2 - elevation/180 H. */
export function rowOf(elevationDeg: number): number {
  return H / 2 - (elevationDeg / 180) * H;
}

/** Shortest horizontal distance between two columns, across the seam if need be. */
export function columnGap(a: number, b: number): number {
  const d = Math.abs(a - b) % W;
  return Math.min(d, W - d);
}

export const isYellow = ([r, g, b]: Pixel): boolean => r > 170 && g > 120 && b < 120 && r - b > 90;
export const isWhite = ([r, g, b]: Pixel): boolean => Math.min(r, g, b) > 185 && Math.max(r, g, b) - Math.min(r, g, b) < 45;
export const isCarAhead = ([r, g, b]: Pixel): boolean => r > 120 && g < 70 && b < 75;
export const isCarOncoming = ([r, g, b]: Pixel): boolean => b > 110 && r < 80 && g < 110 && b - r > 60;

export interface Blob {
  column: number;
  row: number;
  size: number;
}

/** Mean column (circular, so a blob across the seam averages right) and mean row of some pixels. */
export function centroid(points: readonly (readonly [number, number])[]): Blob {
  let sx = 0;
  let sy = 0;
  let rows = 0;
  for (const [x, y] of points) {
    sx += Math.sin((2 * Math.PI * (x + 0.5)) / W);
    sy += Math.cos((2 * Math.PI * (x + 0.5)) / W);
    rows += y + 0.5;
  }
  const angle = Math.atan2(sx, sy);
  return { column: (((angle / (2 * Math.PI)) * W) + W) % W, row: rows / points.length, size: points.length };
}

/** The largest 4-connected blob of pixels passing `test` in rows [y0, y1), wrapping across the seam. */
export function largestBlob(raster: Raster, test: (p: Pixel) => boolean, y0 = 0, y1 = raster.height): Blob | undefined {
  const seen = new Uint8Array(raster.width * raster.height);
  let best: [number, number][] = [];
  for (let y = y0; y < y1; y++) {
    for (let x = 0; x < raster.width; x++) {
      if (seen[y * raster.width + x] || !test(pixelAt(raster, x, y))) continue;
      const blob: [number, number][] = [];
      const stack: [number, number][] = [[x, y]];
      seen[y * raster.width + x] = 1;
      while (stack.length > 0) {
        const [cx, cy] = stack.pop()!;
        blob.push([cx, cy]);
        for (const [nx, ny] of [[(cx + 1) % raster.width, cy], [(cx - 1 + raster.width) % raster.width, cy], [cx, cy + 1], [cx, cy - 1]] as const) {
          if (ny < y0 || ny >= y1 || seen[ny * raster.width + nx] || !test(pixelAt(raster, nx, ny))) continue;
          seen[ny * raster.width + nx] = 1;
          stack.push([nx, ny]);
        }
      }
      if (blob.length > best.length) best = blob;
    }
  }
  return best.length > 0 ? centroid(best) : undefined;
}

export function readDemoTasksText(): string {
  return readFileSync(new URL('../../datasets/demo/tasks.jsonl', import.meta.url), 'utf8');
}

export function readDemoTasks(): DemoTask[] {
  return readDemoTasksText()
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as DemoTask);
}

/** Countries that drive on the left (independent of the renderer's own table). */
export const LEFT_DRIVING = new Set(['United Kingdom', 'Ireland', 'South Africa', 'Kenya', 'Australia', 'New Zealand']);
/** Countries whose centre lines are yellow on ordinary two-lane roads. */
export const YELLOW_CENTRE = new Set(['United States of America', 'Canada', 'Brazil', 'Argentina', 'Norway']);
