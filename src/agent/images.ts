/**
 * Images on their way to a model: downscaled to the size the model was trained on (docs/training.md: 448 px)
 * and re-encoded as JPEG, which also drops any metadata (sharp writes none unless asked). Recorded
 * messages refer to them by sha256; the bytes go to the recorder once.
 */
import { metadataSegments } from '../audit/images.js';
import { modelJpeg } from '../env/render/model-jpeg.js';
import { sha256Hex } from '../store/images.js';
import { sharpModule } from '../vendor/commonjs.js';
import type { WireMessage } from './openai.js';
import type { RecordedMessage } from './types.js';

const sharp = sharpModule();

export interface PreparedImage {
  sha256: string;
  bytes: Buffer;
  mime: 'image/jpeg';
}

/**
 * The image as the model gets it: its longer side at most `sizePx`, never enlarged. A JPEG that
 * already fits and carries nothing but its pixels (as an environment that draws views at the model's
 * size sends them) goes as it is: decoding and encoding it again would only lose quality and time.
 */
export async function prepareImage(bytes: Buffer, sizePx: number): Promise<PreparedImage> {
  if (plainJpegWithin(bytes, sizePx)) return { sha256: sha256Hex(bytes), bytes, mime: 'image/jpeg' };
  const jpeg = await modelJpeg(sharp(bytes), sizePx);
  return { sha256: sha256Hex(jpeg), bytes: jpeg, mime: 'image/jpeg' };
}

/**
 * Whether `bytes` is a JPEG no larger than `sizePx` on either side with no metadata block (EXIF,
 * XMP, IPTC, a comment, or another APP1: what can carry a camera's GPS position), its header read
 * to the scan data without a problem, and whole (it ends with its end-of-image marker).
 */
export function plainJpegWithin(bytes: Buffer, sizePx: number): boolean {
  if (bytes.length < 4 || bytes[bytes.length - 2] !== 0xff || bytes[bytes.length - 1] !== 0xd9) return false;
  const header = metadataSegments(bytes);
  return (
    header.format === 'jpeg' &&
    header.segments.length === 0 &&
    header.problem === undefined &&
    header.width !== undefined &&
    header.height !== undefined &&
    header.width > 0 &&
    header.height > 0 &&
    header.width <= sizePx &&
    header.height <= sizePx
  );
}

export function dataUrl(image: { bytes: Buffer; mime: string }): string {
  return `data:${image.mime};base64,${image.bytes.toString('base64')}`;
}

/**
 * A recorded message as the endpoint gets it: image parts (referenced by sha256) become data URLs
 * from `images`. The one conversion the agent and `episodes retry` share, so a retried request is
 * byte for byte what the agent sent.
 */
export function wireMessage(message: RecordedMessage, images: ReadonlyMap<string, { bytes: Buffer; mime: string }>): WireMessage {
  const content =
    typeof message.content === 'string'
      ? // An assistant turn that only called tools has no text; the API wants null there.
        message.content === '' && message.tool_calls?.length
        ? null
        : message.content
      : message.content.map((part) => {
          if (part.type === 'text') return part;
          const image = images.get(part.sha256);
          if (!image) throw new Error(`image ${part.sha256} is referenced but was never prepared`);
          return { type: 'image_url' as const, image_url: { url: dataUrl(image) } };
        });
  return { ...message, content };
}
