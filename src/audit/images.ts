/**
 * Image metadata (docs/audit.md): EXIF/XMP/IPTC in the images of a prompt. Two steps, so that a
 * clean image (sharp writes none unless asked) costs a walk over its header and nothing more:
 * - `metadataSegments` (sync) walks a JPEG's header segments up to the scan data, or a PNG's
 *   chunks, and says which metadata blocks are there;
 * - `readImageTags` (async) parses those blocks with exifr (and a PNG's compressed text chunks,
 *   which exifr does not read) and keeps the tags with the image's bytes, for the detector to
 *   classify: GPS, maker and serial tags, and any text of the tags.
 * A data URL is base64-decoded only as far as the JPEG header reaches (`imageOfDataUrl`). exifr
 * (about 50 ms to load) is imported only when an image has a block to parse.
 */
import { inflateSync } from 'node:zlib';
import type { AuditImage } from './types.js';
import { exifrModule } from '../vendor/commonjs.js';

export type SegmentKind = 'exif' | 'xmp' | 'iptc' | 'comment' | 'app1' | 'png_text' | 'png_exif';

export interface ImageHeader {
  format: 'jpeg' | 'png' | 'other';
  segments: { kind: SegmentKind; description: string }[];
  /** The header could not be walked to its end (truncated or malformed). */
  problem?: string;
  /** A JPEG's frame size, from its SOF segment (absent when the header has none). */
  width?: number;
  height?: number;
}

const JPEG_SOS = 0xda;
const JPEG_EOI = 0xd9;

/** Where a JPEG's header ends (the SOS marker), or null when the bytes end before it. */
function jpegHeaderEnd(bytes: Uint8Array): number | null {
  let at = 2;
  while (at + 4 <= bytes.length) {
    if (bytes[at] !== 0xff) return -1;
    const marker = bytes[at + 1] as number;
    if (marker === 0xff) {
      at++;
      continue;
    }
    if (marker === JPEG_SOS || marker === JPEG_EOI) return at;
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2;
      continue;
    }
    at += 2 + (((bytes[at + 2] as number) << 8) | (bytes[at + 3] as number));
  }
  return null;
}

/** Facts of an image's bytes, kept with the Buffer (weakly): the same in any run, so no AuditSession state. */
const headers = new WeakMap<Buffer, ImageHeader>();

/** The metadata blocks of an image (remembered with its bytes: a view is often sent again). */
export function metadataSegments(bytes: Buffer): ImageHeader {
  let header = headers.get(bytes);
  if (!header) {
    header = readHeader(bytes);
    headers.set(bytes, header);
  }
  return header;
}

function readHeader(bytes: Buffer): ImageHeader {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8) return jpegSegments(bytes);
  if (bytes.length >= 8 && bytes.toString('latin1', 1, 4) === 'PNG') return pngSegments(bytes);
  return { format: 'other', segments: [], problem: 'is neither JPEG nor PNG' };
}

function jpegSegments(bytes: Buffer): ImageHeader {
  const segments: ImageHeader['segments'] = [];
  let size: { width: number; height: number } | object = {};
  let at = 2;
  while (at + 4 <= bytes.length) {
    if (bytes[at] !== 0xff) return { format: 'jpeg', segments, problem: 'has a malformed JPEG header' };
    const marker = bytes[at + 1] as number;
    if (marker === 0xff) {
      at++;
      continue;
    }
    if (marker === JPEG_SOS || marker === JPEG_EOI) return { format: 'jpeg', segments, ...size };
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2;
      continue;
    }
    const length = bytes.readUInt16BE(at + 2);
    // SOF0..SOF15 but DHT (C4), JPG (C8) and DAC (CC): precision, height, width.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc && at + 9 <= bytes.length) {
      size = { height: bytes.readUInt16BE(at + 5), width: bytes.readUInt16BE(at + 7) };
    }
    if (marker === 0xe1) {
      const payload = bytes.toString('latin1', at + 4, Math.min(bytes.length, at + 4 + 32));
      if (payload.startsWith('Exif')) segments.push({ kind: 'exif', description: 'carries EXIF (APP1)' });
      else if (payload.startsWith('http://ns.adobe.com/xap') || payload.startsWith('http://ns.adobe.com/xmp')) segments.push({ kind: 'xmp', description: 'carries XMP (APP1)' });
      else segments.push({ kind: 'app1', description: 'carries an APP1 segment' });
    } else if (marker === 0xed) segments.push({ kind: 'iptc', description: 'carries IPTC (APP13)' });
    else if (marker === 0xfe) segments.push({ kind: 'comment', description: 'carries a JPEG comment' });
    at += 2 + length;
  }
  // Header bytes only (a data URL decoded as far as needed) end here without a problem.
  return { format: 'jpeg', segments, ...size };
}

function pngSegments(bytes: Buffer): ImageHeader {
  const segments: ImageHeader['segments'] = [];
  let at = 8;
  while (at + 8 <= bytes.length) {
    const length = bytes.readUInt32BE(at);
    const type = bytes.toString('latin1', at + 4, at + 8);
    if (type === 'tEXt' || type === 'iTXt' || type === 'zTXt') segments.push({ kind: 'png_text', description: `carries a PNG ${type} chunk` });
    else if (type === 'eXIf') segments.push({ kind: 'png_exif', description: 'carries a PNG eXIf chunk' });
    if (type === 'IEND') break;
    at += 12 + length;
  }
  return { format: 'png', segments };
}

/** What each metadata block of an image says, in words ("carries EXIF (APP1)"); empty for a clean image. */
export function imageMetadata(bytes: Buffer): string[] {
  const header = metadataSegments(bytes);
  return [...header.segments.map((s) => s.description), ...(header.problem ? [header.problem] : [])];
}

const DATA_URL = /^data:([^;,]+)((?:;[^;,]*)*?);base64,/;
/** Base64 characters decoded first: 3 KB of bytes, enough for a JPEG header without EXIF. */
const FIRST_CHARS = 4096;

/**
 * An image of a prompt from its data URL. A JPEG is decoded only up to its scan data (header and
 * metadata are all the detectors read); anything else whole. Not a base64 data URL: no bytes.
 */
export function imageOfDataUrl(url: string): AuditImage {
  const ref = url.slice(0, 64);
  const m = DATA_URL.exec(url);
  if (!m) return { ref, bytes: null };
  const payload = m[0].length;
  return imageOfBase64(ref, (from, to) => url.slice(payload + from, payload + to), url.length - payload);
}

/**
 * The same for a base64 payload of `length` characters read through `chars` (a reader may hold it
 * as bytes of its input line rather than as a string).
 */
export function imageOfBase64(ref: string, chars: (from: number, to: number) => string, length: number): AuditImage {
  // Multiples of 4 characters decode to whole bytes.
  for (let count = FIRST_CHARS; ; count *= 4) {
    const end = Math.min(length, count);
    const bytes = Buffer.from(chars(0, end), 'base64');
    const complete = end === length;
    if (!(bytes[0] === 0xff && bytes[1] === 0xd8)) return { ref, bytes: complete ? bytes : Buffer.from(chars(0, length), 'base64') };
    const headerEnd = jpegHeaderEnd(bytes);
    // The SOS marker is kept, so the header walk ends where the image data starts.
    if (headerEnd !== null && headerEnd >= 0) return { ref, bytes: bytes.subarray(0, headerEnd + 2) };
    if (headerEnd === -1 || complete) return { ref, bytes };
  }
}

// ---------------------------------------------------------------------------------------------
// Tags (exifr)

export interface ImageTags {
  /** GPS position when the tags give one (EXIF's GPS block, or XMP's `exif:GPSLatitude` and `exif:GPSLongitude`). */
  gps: { lat: number; lon: number } | null;
  /** Any GPS tag, named ("GPSLatitude", "exif:GPSLongitude"), also without a usable position. */
  gpsTags: string[];
  /** Maker, model, lens and serial tags: `Make Canon`. */
  maker: string[];
  /** The camera the maker tags name, "Canon EOS 5D": make and model (the model alone when it starts with the make). */
  camera: string | null;
  /** Every other text value, `Artist alpine_walker`, searched like the prompt's text. */
  texts: { tag: string; value: string }[];
}

/** An image's tags as exifr read them (readImageTags), kept with the Buffer like `headers`. */
const tagsOf = new WeakMap<Buffer, ImageTags | { error: string }>();

// An owner's name is not the camera's: it is searched like text (it may be the contributor's).
const MAKER_TAG = /^(?:.*:)?(?:Make|Model|LensMake|LensModel|LensInfo|BodySerialNumber|SerialNumber|LensSerialNumber|CameraSerialNumber|InternalSerialNumber|UniqueCameraModel|LocalizedCameraModel)$/i;
const GPS_TAG = /^(?:.*:)?GPS|^(?:latitude|longitude)$/i;

const EXIFR_OPTIONS = {
  tiff: true,
  ifd0: {},
  exif: true,
  gps: true,
  interop: false,
  ifd1: false,
  xmp: true,
  iptc: true,
  icc: false,
  jfif: false,
  makerNote: false,
  userComment: true,
  mergeOutput: false,
  translateValues: false,
} as const;

const XMP_SIDECAR_OPTIONS = { mergeOutput: false, translateValues: false } as const;

/** Parses the metadata of every image that has some and was not parsed yet; keeps the tags with the bytes. */
export async function readImageTags(images: readonly AuditImage[]): Promise<void> {
  for (const { bytes } of images) {
    if (!bytes || tagsOf.has(bytes) || metadataSegments(bytes).segments.length === 0) continue;
    try {
      const exifr = exifrModule();
      const { sidecar } = exifr;
      const output = (await exifr.parse(bytes, EXIFR_OPTIONS)) as Record<string, unknown> | undefined;
      const xmp = (packet: Buffer) => sidecar(packet, XMP_SIDECAR_OPTIONS, 'xmp');
      const compressed = metadataSegments(bytes).format === 'png' ? await compressedPngTexts(bytes, xmp) : null;
      tagsOf.set(bytes, classify(compressed ? { ...output, compressed } : output));
    } catch (err) {
      tagsOf.set(bytes, { error: err instanceof Error ? err.message : String(err) });
    }
  }
}

/** The tags read for these bytes: undefined when not read yet, `{error}` when they could not be read. */
export function imageTags(bytes: Buffer): ImageTags | { error: string } | undefined {
  return tagsOf.get(bytes);
}

/** The keyword under which PNG files carry an XMP packet. */
const PNG_XMP_KEYWORD = 'XML:com.adobe.xmp';
/** Inflated text beyond this is not metadata a camera wrote: the tags are reported unreadable (a zip bomb costs nothing). */
const PNG_TEXT_MAX_BYTES = 1 << 20;

/**
 * The zTXt chunks of a PNG (keyword, zlib-compressed text), which exifr leaves unread: sharp and
 * libvips write a PNG's XMP packet as one. An XMP packet is parsed as exifr parses a sidecar file;
 * any other text is kept under its keyword. Null when the PNG has none.
 */
async function compressedPngTexts(bytes: Buffer, xmp: (packet: Buffer) => Promise<object | undefined>): Promise<Record<string, unknown> | null> {
  let found: Record<string, unknown> | null = null;
  for (let at = 8; at + 8 <= bytes.length; ) {
    const length = bytes.readUInt32BE(at);
    const type = bytes.toString('latin1', at + 4, at + 8);
    if (type === 'IEND') break;
    if (type === 'zTXt') {
      const data = bytes.subarray(at + 8, Math.min(bytes.length, at + 8 + length));
      const nul = data.indexOf(0);
      // Compression method 0 (zlib) is the only one PNG defines.
      if (nul > 0 && data[nul + 1] === 0) {
        const keyword = data.toString('latin1', 0, nul);
        const text = inflateSync(data.subarray(nul + 2), { maxOutputLength: PNG_TEXT_MAX_BYTES });
        found ??= {};
        if (keyword === PNG_XMP_KEYWORD) Object.assign(found, await xmp(text));
        else found[keyword] = text.toString('latin1');
      }
    }
    at += 12 + length;
  }
  return found;
}

function classify(output: unknown): ImageTags {
  const tags: ImageTags = { gps: null, gpsTags: [], maker: [], camera: null, texts: [] };
  let make: string | undefined;
  let model: string | undefined;
  let xmpLat: string | undefined;
  let xmpLon: string | undefined;
  const visit = (value: unknown, tag: string) => {
    if (value === null || value === undefined) return;
    if (value instanceof Uint8Array) return;
    if (Array.isArray(value)) {
      if (GPS_TAG.test(tag)) tags.gpsTags.push(tag);
      else value.forEach((v) => visit(v, tag));
      return;
    }
    if (typeof value === 'object') {
      // XMP's namespace URIs say which vocabularies a packet uses, nothing about the image.
      for (const [key, v] of Object.entries(value)) if (key !== 'xmlns') visit(v, key);
      return;
    }
    const text = String(value).trim();
    if (GPS_TAG.test(tag)) {
      tags.gpsTags.push(tag);
      if (typeof value === 'string' && /GPSLatitude$/.test(tag)) xmpLat = text;
      if (typeof value === 'string' && /GPSLongitude$/.test(tag)) xmpLon = text;
    } else if (MAKER_TAG.test(tag)) {
      tags.maker.push(`${tag} ${text}`);
      if (/(?:^|:)Make$/.test(tag)) make ??= text;
      if (/(?:^|:)Model$/.test(tag)) model ??= text;
    } else if (typeof value === 'string' && text !== '') tags.texts.push({ tag, value });
  };
  visit(output, '');
  const gps = (output as { gps?: { latitude?: unknown; longitude?: unknown } } | undefined)?.gps;
  const lat = typeof gps?.latitude === 'number' ? gps.latitude : xmpLat !== undefined ? xmpCoordinate(xmpLat, 'N', 'S') : null;
  const lon = typeof gps?.longitude === 'number' ? gps.longitude : xmpLon !== undefined ? xmpCoordinate(xmpLon, 'E', 'W') : null;
  if (lat !== null && lon !== null && Math.abs(lat) <= 90 && Math.abs(lon) <= 180) tags.gps = { lat, lon };
  tags.camera = cameraOf(make, model);
  return tags;
}

/** "Canon EOS 5D" from make "Canon" and model "EOS 5D" (or model "Canon EOS 5D"). */
function cameraOf(make: string | undefined, model: string | undefined): string | null {
  if (!make) return model || null;
  if (!model) return make;
  return model.toLowerCase().startsWith(make.toLowerCase()) ? model : `${make} ${model}`;
}

/**
 * XMP writes a GPS coordinate as degrees, minutes (with decimals, or then seconds) and a hemisphere
 * letter, `43,19.25N` or `43,19,15N`; some writers a signed decimal. Null when it is neither.
 */
function xmpCoordinate(value: string, positive: string, negative: string): number | null {
  const m = /^(\d{1,3}),(\d{1,2}(?:\.\d+)?)(?:,(\d{1,2}(?:\.\d+)?))?([A-Z])$/.exec(value);
  if (m) {
    const hemisphere = m[4] as string;
    if (hemisphere !== positive && hemisphere !== negative) return null;
    const deg = Number(m[1]) + Number(m[2]) / 60 + Number(m[3] ?? 0) / 3600;
    return hemisphere === negative ? -deg : deg;
  }
  const deg = Number(value);
  return value !== '' && Number.isFinite(deg) ? deg : null;
}
