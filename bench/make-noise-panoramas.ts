/**
 * `makeNoisePanoramas(dir, n)`: n distinct 2048x1024 JPEG panoramas (pano0000.jpg ...) of smooth
 * pseudo-random noise, for memory benches and tests that need many distinct panoramas on disk.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';

export async function makeNoisePanoramas(dir: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const file = join(dir, `pano${String(i).padStart(4, '0')}.jpg`);
    if (existsSync(file)) continue;
    // 128x64 noise scaled up: distinct pixels, a small file and a quick decode.
    const small = new Uint8Array(128 * 64 * 3);
    let s = (i + 1) * 2654435761;
    for (let k = 0; k < small.length; k++) {
      s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
      small[k] = s >>> 24;
    }
    await sharp(small, { raw: { width: 128, height: 64, channels: 3 } })
      .resize(2048, 1024, { kernel: 'cubic' })
      .jpeg({ quality: 85 })
      .toFile(file);
  }
}
