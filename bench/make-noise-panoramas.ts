/**
 * `makeNoisePanoramas(dir, n)`: n distinct 2048x1024 JPEG panoramas (pano0000.jpg ...) of smooth
 * pseudo-random noise, for memory benches and tests that need many distinct panoramas on disk.
 * Files already there are kept, so a later run reuses the set.
 */
import { existsSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';

export const noisePanoramaId = (i: number): string => `pano${String(i).padStart(4, '0')}`;

export async function makeNoisePanoramas(dir: string, n: number): Promise<void> {
  let next = 0;
  // Two at a time: sharp encodes off the main thread, and the machine may have only two cores.
  await Promise.all(
    [0, 1].map(async () => {
      for (let i = next++; i < n; i = next++) await makeOne(dir, i);
    }),
  );
}

async function makeOne(dir: string, i: number): Promise<void> {
  const file = join(dir, `${noisePanoramaId(i)}.jpg`);
  if (existsSync(file)) return;
  // 128x64 noise scaled up: distinct pixels, yet a small file and a quick decode.
  const small = new Uint8Array(128 * 64 * 3);
  let s = Math.imul(i + 1, 2654435761) >>> 0;
  for (let k = 0; k < small.length; k++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    small[k] = s >>> 24;
  }
  const partial = `${file}.${process.pid}.part`;
  await sharp(small, { raw: { width: 128, height: 64, channels: 3 } })
    .resize(2048, 1024, { kernel: 'cubic' })
    .jpeg({ quality: 85 })
    .toFile(partial);
  renameSync(partial, file); // a run cut short leaves no truncated panorama behind
}
