/**
 * Images on their way to a model: downscaled to the size the model was trained on (docs/training.md: 448 px)
 * and re-encoded as JPEG, which also drops any metadata (sharp writes none unless asked). Recorded
 * messages refer to them by sha256; the bytes go to the recorder once.
 */
import sharp from 'sharp';
import { sha256Hex } from '../store/images.js';

export const DEFAULT_IMAGE_SIZE_PX = 448;
const JPEG_QUALITY = 85;

export interface PreparedImage {
  sha256: string;
  bytes: Buffer;
  mime: 'image/jpeg';
}

/** The image as the model gets it: its longer side at most `sizePx`, never enlarged. */
export async function prepareImage(bytes: Buffer, sizePx: number): Promise<PreparedImage> {
  const jpeg = await sharp(bytes)
    .resize({ width: sizePx, height: sizePx, fit: 'inside', withoutEnlargement: true })
    // Maps are PNG with transparency on some renderers: JPEG has none, so flatten onto white.
    .flatten({ background: '#ffffff' })
    .jpeg({ quality: JPEG_QUALITY })
    .toBuffer();
  return { sha256: sha256Hex(jpeg), bytes: jpeg, mime: 'image/jpeg' };
}

export function dataUrl(image: { bytes: Buffer; mime: string }): string {
  return `data:${image.mime};base64,${image.bytes.toString('base64')}`;
}
