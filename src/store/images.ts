/**
 * Content-addressed image store: every image an episode showed a model is written once, named by its
 * sha256, under `<workspace>/images/<sha[0..2]>/<sha>.jpg|.png`, with one row in `images`. Recorded
 * messages and turns refer to images by that hash only (docs/endpoints.md), never by inline base64.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GeolabError } from '../core/errors.js';
import { writeFileAtomic } from '../files.js';
import type { Db, Statement } from './db.js';
import type { Workspace } from './index.js';

export type ImageMime = 'image/jpeg' | 'image/png';

const SHA256_HEX = /^[0-9a-f]{64}$/;

export function sha256Hex(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Where an image lives, relative to the workspace's images directory (the `images.path` column). */
export function imageRelativePath(sha256: string, mime: ImageMime): string {
  return `${sha256.slice(0, 2)}/${sha256}${mime === 'image/png' ? '.png' : '.jpg'}`;
}

/** Stores the bytes once (skipped when already present) and returns their sha256. */
export function storeImage(ws: Workspace, bytes: Buffer, mime: ImageMime): string {
  const { image } = writeImageFile(ws, bytes, mime);
  insertImageRow(ws.db, image);
  return image.sha256;
}

/** An image file in the store and what its `images` row says of it. */
export interface StoredImageFile {
  sha256: string;
  mime: ImageMime;
  width: number | null;
  height: number | null;
  bytes: number;
  /** Relative to the images directory. */
  path: string;
}

/**
 * The file half of storeImage, for writers that must not touch files inside a write transaction
 * (an import): `created` says whether this call wrote the file, so a rolled-back import can remove it.
 */
export function writeImageFile(ws: Workspace, bytes: Buffer, mime: ImageMime): { image: StoredImageFile; created: boolean; file: string } {
  const sha256 = sha256Hex(bytes);
  const relative = imageRelativePath(sha256, mime);
  const file = join(ws.paths.images, relative);
  const created = !existsSync(file);
  if (created) writeAtomically(file, bytes);
  const size = imageSize(bytes, mime);
  return { image: { sha256, mime, width: size?.width ?? null, height: size?.height ?? null, bytes: bytes.length, path: relative }, created, file };
}

/** The row half of storeImage (a no-op when the row exists). */
export function insertImageRow(db: Db, image: StoredImageFile): void {
  statements(db).insert.run(image.sha256, image.mime, image.width, image.height, image.bytes, image.path, new Date().toISOString());
}

/** Absolute path of a stored image, or undefined when the store has no image with that hash. */
export function imagePath(ws: Workspace, sha256: string): string | undefined {
  // The hash becomes part of a path: anything but 64 hex digits cannot be a stored image.
  if (!SHA256_HEX.test(sha256)) return undefined;
  const row = statements(ws.db).path.get(sha256) as { path: string } | undefined;
  return row ? join(ws.paths.images, row.path) : undefined;
}

export function readImage(ws: Workspace, sha256: string): Buffer | undefined {
  const file = imagePath(ws, sha256);
  if (!file) return undefined;
  try {
    return readFileSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

export function hasImage(db: Db, sha256: string): boolean {
  return statements(db).exists.get(sha256) !== undefined;
}

/** The format the bytes really are, from their magic number; undefined for anything else. */
export function sniffImageMime(bytes: Buffer): ImageMime | undefined {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(PNG_SIGNATURE)) return 'image/png';
  return undefined;
}

/** Width and height read from the header alone (no decode); undefined when the header is not understood. */
export function imageSize(bytes: Buffer, mime: ImageMime): { width: number; height: number } | undefined {
  return mime === 'image/png' ? pngSize(bytes) : jpegSize(bytes);
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function pngSize(bytes: Buffer): { width: number; height: number } | undefined {
  // The IHDR chunk must come first: signature (8), length (4), "IHDR" (4), width (4), height (4).
  if (bytes.length < 24 || !bytes.subarray(0, 8).equals(PNG_SIGNATURE) || bytes.toString('latin1', 12, 16) !== 'IHDR') {
    return undefined;
  }
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

function jpegSize(bytes: Buffer): { width: number; height: number } | undefined {
  let at = 2;
  while (at + 9 <= bytes.length) {
    if (bytes[at] !== 0xff) return undefined;
    const marker = bytes[at + 1] as number;
    if (marker === 0xff) {
      at++; // fill byte before a marker
      continue;
    }
    // SOF0..SOF15 carry the frame size; C4 (DHT), C8 (JPG) and CC (DAC) share the range but do not.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: bytes.readUInt16BE(at + 5), width: bytes.readUInt16BE(at + 7) };
    }
    at += 2 + bytes.readUInt16BE(at + 2);
  }
  return undefined;
}

function writeAtomically(file: string, bytes: Buffer): void {
  try {
    writeFileAtomic(file, bytes);
  } catch (err) {
    throw new GeolabError(`cannot write image ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

interface ImageStatements {
  insert: Statement;
  path: Statement;
  exists: Statement;
}

// Prepared once per connection: recording and importing look images up for every turn.
const prepared = new WeakMap<Db, ImageStatements>();

function statements(db: Db): ImageStatements {
  let s = prepared.get(db);
  if (!s) {
    s = {
      insert: db.prepare(
        'INSERT OR IGNORE INTO images (sha256, mime, width, height, bytes, path, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ),
      path: db.prepare('SELECT path FROM images WHERE sha256 = ?'),
      exists: db.prepare('SELECT 1 FROM images WHERE sha256 = ?').pluck(),
    };
    prepared.set(db, s);
  }
  return s;
}
