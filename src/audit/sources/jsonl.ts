/** The JSON lines of an input file, parsed one at a time; a bad line is an InputError naming file:line. */
import { randomUUID } from 'node:crypto';
import { InputError } from '../../core/errors.js';
import { assertReadableFile, byteLinesSync, parseJsonLine, type ByteRange } from '../../files.js';
import { imageOfBase64 } from '../images.js';
import type { AuditImage } from '../types.js';
import { MessageError } from './messages.js';

/**
 * Images sliced out of a line before parsing, by the placeholder string that stands for each in the
 * parsed value; decoded (as far as the detectors read) when a reader asks for one.
 */
export type InlineImages = ReadonlyMap<string, () => AuditImage>;

export interface JsonLine {
  line: number;
  value: unknown;
  /** With `inlineImages`: the data URL images that placeholders stand for in `value`, readable until the next line is asked for. */
  images?: InlineImages;
}

/** Counts what a reader has consumed, for the progress line's rate and ETA. */
export type OnBytes = (bytes: number) => void;

export interface JsonLinesOptions {
  /**
   * Slice base64 data URLs that are the value of an image key (`url`, `image_url`, `image`) out of
   * each line before parsing: a prompt's views are most of its bytes (tens of kB each) and the audit
   * reads only a JPEG's header, so decoding them to strings and parsing them is most of a read.
   */
  inlineImages?: boolean;
  /** Told of each line that is not JSON, which is then skipped (`--skip-invalid`); absent, such a line throws. */
  onInvalid?: OnInvalid;
  /** Read only these bytes of the file, whole lines numbered from 1 within them (a parallel audit's share). */
  range?: ByteRange;
}

/** Hears of a bad input line that is skipped: the error names file:line (and the field). */
export type OnInvalid = (error: InputError) => void;

/** Yields the parsed lines; returns how many lines were read (blank and skipped ones counted). */
export async function* jsonLines(file: string, what: string, onBytes?: OnBytes, options: JsonLinesOptions = {}): AsyncGenerator<JsonLine, number> {
  await assertReadableFile(file, what);
  const lines = byteLinesSync(file, undefined, undefined, options.range);
  for (;;) {
    const next = lines.next();
    if (next.done) return next.value;
    const { line, bytes } = next.value;
    onBytes?.(bytes.length + 1);
    const sliced = options.inlineImages ? sliceImages(bytes) : null;
    if (sliced) {
      let value: unknown;
      try {
        value = JSON.parse(line === 1 ? sliced.text.replace(/^\uFEFF/, '') : sliced.text);
      } catch {
        // The error as the whole line gives it, positions included.
        value = parsed(decode(bytes, line), file, line, options.onInvalid);
        if (value === INVALID) continue;
      }
      yield { line, value, images: sliced.images };
      // The line's bytes are about to be reused (byteLines): its images can no longer be read.
      sliced.expire();
      continue;
    }
    const text = decode(bytes, line);
    if (text.trim() === '') continue;
    const value = parsed(text, file, line, options.onInvalid);
    if (value !== INVALID) yield { line, value };
  }
}

const INVALID = Symbol('invalid line');

/** The line's value, or INVALID once `onInvalid` has heard why it is not JSON (without it, the error is thrown). */
function parsed(text: string, file: string, line: number, onInvalid: OnInvalid | undefined): unknown {
  try {
    return parseJsonLine(text, file, line);
  } catch (err) {
    if (!onInvalid || !(err instanceof InputError)) throw err;
    onInvalid(err);
    return INVALID;
  }
}

function decode(bytes: Buffer, line: number): string {
  const text = bytes.toString('utf8');
  return line === 1 ? text.replace(/^\uFEFF/, '') : text;
}

/** A buffer needle: Buffer#indexOf searches natively for one, byte by byte for a number (see files.ts). */
const QUOTE = Buffer.from('"');
const DATA_URL_START = Buffer.from('"data:');
const HEADER = /^data:[^;,"\\]+(?:;[^;,"\\]*)*?;base64,/;
const IMAGE_KEY = /"(?:url|image_url|image)"\s*:\s*$/;
/** Below this, a payload is not worth slicing out. */
const MIN_PAYLOAD_BYTES = 1024;
/** Unique to this process, so that no string of the input can pass for a placeholder. */
const PLACEHOLDER = `\u0000inline-image:${randomUUID()}:`;

/**
 * The line's text with each large data URL that is an image key's value replaced by a placeholder,
 * and what each placeholder stands for; null when nothing was sliced. A payload is sliced only when
 * it is plain ASCII without escapes or control characters up to its closing quote, so the parsed
 * value is what parsing the whole line gives, that one string apart.
 */
function sliceImages(bytes: Buffer): { text: string; images: InlineImages; expire: () => void } | null {
  let at = bytes.indexOf(DATA_URL_START);
  if (at === -1) return null;
  const parts: string[] = [];
  const images = new Map<string, () => AuditImage>();
  let expired = false;
  let copied = 0;
  for (; at !== -1; at = bytes.indexOf(DATA_URL_START, at + 1)) {
    const start = at + 1;
    const header = HEADER.exec(bytes.toString('latin1', start, Math.min(bytes.length, start + 256)));
    if (!header || !IMAGE_KEY.test(bytes.toString('latin1', Math.max(copied, at - 24), at))) continue;
    const end = plainStringEnd(bytes, start + header[0].length);
    if (end === -1 || end - start < MIN_PAYLOAD_BYTES) continue;
    const key = `${PLACEHOLDER}${images.size}`;
    const payloadStart = start + header[0].length;
    images.set(key, () => {
      if (expired) throw new Error('jsonLines: an inline image was read after its line');
      return imageOfBase64(bytes.toString('latin1', start, start + 64), (from, to) => bytes.toString('latin1', payloadStart + from, Math.min(end, payloadStart + to)), end - payloadStart);
    });
    parts.push(bytes.toString('utf8', copied, start), JSON.stringify(key).slice(1, -1));
    copied = end;
    at = end;
  }
  if (images.size === 0) return null;
  parts.push(bytes.toString('utf8', copied));
  return { text: parts.join(''), images, expire: () => (expired = true) };
}

/**
 * Where the JSON string whose content goes on at `from` closes, or -1 if it holds anything but
 * printable ASCII other than a backslash (an escape, a control character or a wider character:
 * such a payload is not sliced). Checked four bytes at a time: a byte loop, or a latin1 string of the
 * payload and a regex over it, was the read's largest cost.
 */
function plainStringEnd(bytes: Buffer, from: number): number {
  const quote = bytes.indexOf(QUOTE, from);
  return quote !== -1 && isPlain(bytes, from, quote) ? quote : -1;
}

function isPlainByte(c: number): boolean {
  return c >= 0x20 && c <= 0x7e && c !== 0x5c;
}

/** Whether bytes [from, to) are all printable ASCII other than a backslash. */
export function isPlain(bytes: Buffer, from: number, to: number): boolean {
  let i = from;
  // Byte by byte up to a four-byte boundary of the underlying memory, then by words, then the tail.
  for (; i < to && ((bytes.byteOffset + i) & 3) !== 0; i++) if (!isPlainByte(bytes[i] as number)) return false;
  // (A run that ends before the boundary leaves i unaligned and no words.)
  const count = ((bytes.byteOffset + i) & 3) === 0 ? (to - i) >> 2 : 0;
  const words = new Uint32Array(bytes.buffer, count ? bytes.byteOffset + i : 0, count);
  for (let k = 0; k < words.length; k++) {
    const w = words[k] as number;
    // A byte of 0x80 or more; then (all bytes below 0x80) one below 0x20, one equal to 0x7f or to 0x5c:
    // the classic "has a zero byte" test on w, and on w xor the byte repeated.
    if ((w & 0x80808080) !== 0 || ((w - 0x20202020) & ~w & 0x80808080) !== 0) return false;
    const del = w ^ 0x7f7f7f7f;
    const backslash = w ^ 0x5c5c5c5c;
    if (((del - 0x01010101) & ~del & 0x80808080) !== 0 || ((backslash - 0x01010101) & ~backslash & 0x80808080) !== 0) return false;
  }
  for (i += words.length * 4; i < to; i++) if (!isPlainByte(bytes[i] as number)) return false;
  return true;
}

/** Runs `read` on one line's value, turning a MessageError into an InputError naming file:line and field. */
export function atLine<T>(file: string, line: number, read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof MessageError) throw new InputError(err.message, { file, line, field: err.field });
    throw err;
  }
}
