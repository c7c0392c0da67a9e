/**
 * The image as a model gets it (docs/sweeps.md, the end of "How many episodes at once"): a JPEG at
 * quality 85 whose longer side is at most the model's image size (never enlarged), flattened onto
 * white (JPEG has no transparency) and carrying no metadata (sharp writes none unless asked).
 *
 * One pipeline for the two places that make such images: the agent preparing whatever the
 * environment returned (agent/images.ts), and the embedded environment of a sweep drawing its maps
 * straight at the model's size (map.ts), which would otherwise encode a PNG only for the agent to
 * decode and re-encode it. The same pixels through the same pipeline give the same bytes, so a
 * sweep's records are the same either way.
 */
import type { Sharp } from 'sharp';

const JPEG_QUALITY = 85;

export function modelJpeg(image: Sharp, sizePx: number): Promise<Buffer> {
  return image
    .resize({ width: sizePx, height: sizePx, fit: 'inside', withoutEnlargement: true })
    .flatten({ background: '#ffffff' })
    .jpeg({ quality: JPEG_QUALITY })
    .toBuffer();
}
