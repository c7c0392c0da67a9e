/** Synthetic panoramas with known colours per direction, and an independent float reprojection. */
import { writeFile } from 'node:fs/promises';
import sharp from 'sharp';
import type { RgbImage } from '../../src/env/render/reproject.js';

export type Rgb = readonly [number, number, number];

/**
 * An equirectangular panorama painted per pixel centre from its direction: lon in degrees from the
 * centre column (positive right, -180..180), lat in degrees (row 0 at the top).
 */
export function paintPanorama(width: number, height: number, colour: (lonDeg: number, latDeg: number) => Rgb): RgbImage {
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    const lat = 90 - ((y + 0.5) / height) * 180;
    for (let x = 0; x < width; x++) {
      const lon = ((x + 0.5) / width - 0.5) * 360;
      data.set(colour(lon, lat).map(Math.round), (y * width + x) * 3);
    }
  }
  return { data, width, height };
}

export async function writeJpeg(path: string, image: RgbImage, quality = 95): Promise<void> {
  await writeFile(path, await sharp(image.data, { raw: { width: image.width, height: image.height, channels: 3 } }).jpeg({ quality }).toBuffer());
}

export async function decodeJpeg(jpeg: Buffer): Promise<RgbImage> {
  const { data, info } = await sharp(jpeg).raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

export function pixel(image: RgbImage, x: number, y: number): Rgb {
  const i = (y * image.width + x) * 3;
  return [image.data[i]!, image.data[i + 1]!, image.data[i + 2]!];
}

export function row(image: RgbImage, y: number): Rgb[] {
  return Array.from({ length: image.width }, (_, x) => pixel(image, x, y));
}

/**
 * Reference view in plain floating point, straight from the geometry of shared/bench/numpy_remap.py
 * (normalised rays, pitch about x then yaw about y, Math.atan2 and Math.asin), sampled bilinearly at
 * pixel centres with horizontal wrap and vertical clamp.
 */
export function referenceView(pano: RgbImage, yawDeg: number, pitchDeg: number, fovDeg: number, size: number): Uint8Array {
  const { data, width: w, height: h } = pano;
  const out = new Uint8Array(size * size * 3);
  const f = (0.5 * size) / Math.tan((fovDeg * Math.PI) / 360);
  const p = (pitchDeg * Math.PI) / 180;
  const t = (yawDeg * Math.PI) / 180;
  for (let i = 0; i < size; i++) {
    for (let j = 0; j < size; j++) {
      const x0 = j - size / 2 + 0.5;
      const y0 = -(i - size / 2 + 0.5);
      const n = Math.hypot(x0, y0, f);
      const [x, y, z] = [x0 / n, y0 / n, f / n];
      const y2 = y * Math.cos(p) + z * Math.sin(p);
      const z2 = -y * Math.sin(p) + z * Math.cos(p);
      const x3 = x * Math.cos(t) + z2 * Math.sin(t);
      const z3 = -x * Math.sin(t) + z2 * Math.cos(t);
      const lon = Math.atan2(x3, z3);
      const lat = Math.asin(Math.max(-1, Math.min(1, y2)));
      const u = (lon / (2 * Math.PI) + 0.5) * w - 0.5;
      const v = Math.max(0, Math.min(h - 1, (0.5 - lat / Math.PI) * h - 0.5));
      const u0 = Math.floor(u);
      const v0 = Math.floor(v);
      const fu = u - u0;
      const fv = v - v0;
      const xa = ((u0 % w) + w) % w;
      const xb = (xa + 1) % w;
      const yb = Math.min(v0 + 1, h - 1);
      for (let c = 0; c < 3; c++) {
        const at = (yy: number, xx: number): number => data[(yy * w + xx) * 3 + c]!;
        const top = at(v0, xa) * (1 - fu) + at(v0, xb) * fu;
        const bottom = at(yb, xa) * (1 - fu) + at(yb, xb) * fu;
        out[(i * size + j) * 3 + c] = Math.round(top * (1 - fv) + bottom * fv);
      }
    }
  }
  return out;
}

export function maxAbsDiff(a: Uint8Array, b: Uint8Array): number {
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs(a[i]! - b[i]!));
  return max;
}

/** Every APPn segment of a JPEG but JFIF (APP0): where EXIF, XMP or ICC data would be. */
export function appSegments(jpeg: Buffer): number[] {
  const found: number[] = [];
  let at = 2;
  while (jpeg[at] === 0xff && jpeg[at + 1] !== 0xda) {
    const marker = jpeg[at + 1]!;
    if (marker >= 0xe1 && marker <= 0xef) found.push(marker - 0xe0);
    at += 2 + jpeg.readUInt16BE(at + 2);
  }
  return found;
}
