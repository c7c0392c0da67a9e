/** The JSON lines of an input file, parsed one at a time; a bad line is an InputError naming file:line. */
import { randomUUID } from 'node:crypto';
import { InputError } from '../../core/errors.js';
import { assertReadableFile, byteLines, parseJsonLine } from '../../files.js';
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
  /** With `inlineImages`: the data URL images that placeholders stand for in `value`. */
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
}

export async function* jsonLines(file: string, what: string, onBytes?: OnBytes, options: JsonLinesOptions = {}): AsyncGenerator<JsonLine> {
  await assertReadableFile(file, what);
  for await (const { line, bytes } of byteLines(file)) {
    onBytes?.(bytes.length + 1);
    const sliced = options.inlineImages ? sliceImages(bytes) : null;
    if (sliced) {
      let value: unknown;
      try {
        value = JSON.parse(line === 1 ? sliced.text.replace(/^\uFEFF/, '') : sliced.text);
      } catch {
        // The error as the whole line gives it, positions included.
        value = parseJsonLine(decode(bytes, line), file, line);
      }
      yield { line, value, images: sliced.images };
      continue;
    }
    const text = decode(bytes, line);
    if (text.trim() === '') continue;
    yield { line, value: parseJsonLine(text, file, line) };
  }
}

function decode(bytes: Buffer, line: number): string {
  const text = bytes.toString('utf8');
  return line === 1 ? text.replace(/^\uFEFF/, '') : text;
}

const QUOTE = 0x22;
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
function sliceImages(bytes: Buffer): { text: string; images: InlineImages } | null {
  let at = bytes.indexOf(DATA_URL_START);
  if (at === -1) return null;
  const parts: string[] = [];
  const images = new Map<string, () => AuditImage>();
  let copied = 0;
  for (; at !== -1; at = bytes.indexOf(DATA_URL_START, at + 1)) {
    const start = at + 1;
    const header = HEADER.exec(bytes.toString('latin1', start, Math.min(bytes.length, start + 256)));
    if (!header || !IMAGE_KEY.test(bytes.toString('latin1', Math.max(copied, at - 24), at))) continue;
    const end = plainStringEnd(bytes, start + header[0].length);
    if (end === -1 || end - start < MIN_PAYLOAD_BYTES) continue;
    const key = `${PLACEHOLDER}${images.size}`;
    const payloadStart = start + header[0].length;
    images.set(key, () =>
      imageOfBase64(bytes.toString('latin1', start, start + 64), (from, to) => bytes.toString('latin1', payloadStart + from, Math.min(end, payloadStart + to)), end - payloadStart),
    );
    parts.push(bytes.toString('utf8', copied, start), JSON.stringify(key).slice(1, -1));
    copied = end;
    at = end;
  }
  if (images.size === 0) return null;
  parts.push(bytes.toString('utf8', copied));
  return { text: parts.join(''), images };
}

/** Anything but printable ASCII other than a backslash: a payload with one is not sliced. */
const NOT_PLAIN = /[^\x20-\x5b\x5d-\x7e]/;

/**
 * Where the JSON string whose content goes on at `from` closes, or -1 if it holds anything but plain
 * ASCII. Native search and a regex over the payload: a byte loop here was the read's largest cost.
 */
function plainStringEnd(bytes: Buffer, from: number): number {
  const quote = bytes.indexOf(QUOTE, from);
  if (quote === -1 || NOT_PLAIN.test(bytes.toString('latin1', from, quote))) return -1;
  return quote;
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
