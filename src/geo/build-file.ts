/**
 * The files `npm run build` writes to dist/ so that a table derived from a package's data loads as
 * a read instead of being rebuilt by every process (the outline index, the place table): four bytes
 * of magic, the JSON header's length (uint32 LE), the header, then typed arrays, each 8-byte
 * aligned. The header carries the size and mtime of the package file the table was made from
 * (`SourceStamp`): a file made from other data (an upgrade without a rebuild) is not used.
 */
import { readFileSync, statSync } from 'node:fs';

export type Column = Float64Array | Float32Array | Int32Array | Uint32Array | Int16Array | Uint16Array | Uint8Array;

type ColumnType = { new (buffer: ArrayBufferLike, byteOffset: number, length: number): Column; readonly BYTES_PER_ELEMENT: number };

export interface SourceStamp {
  readonly size: number;
  readonly mtimeMs: number;
}

export function sourceStamp(path: string): SourceStamp {
  const { size, mtimeMs } = statSync(path);
  return { size, mtimeMs };
}

export function sameSource(stamp: SourceStamp, path: string): boolean {
  const now = sourceStamp(path);
  return stamp.size === now.size && stamp.mtimeMs === now.mtimeMs;
}

export function encodeBuildFile(magic: string, header: object, columns: readonly Column[]): Buffer {
  const json = Buffer.from(JSON.stringify(header));
  const length = Buffer.alloc(4);
  length.writeUInt32LE(json.length);
  const parts: Buffer[] = [Buffer.from(magic, 'latin1'), length, json];
  let at = 8 + json.length;
  for (const column of columns) {
    const pad = (8 - (at % 8)) % 8;
    parts.push(Buffer.alloc(pad), Buffer.from(column.buffer, column.byteOffset, column.byteLength));
    at += pad + column.byteLength;
  }
  return Buffer.concat(parts);
}

export interface BuildFile<H> {
  readonly header: H;
  /** The arrays after the header, as `layout` says (type, element count), or null when the file's length disagrees (truncated, another layout). */
  columns(layout: readonly (readonly [ColumnType, number])[]): Column[] | null;
}

/** The file's header and arrays, or null when it is missing or of another format. */
export function readBuildFile<H>(file: string, magic: string): BuildFile<H> | null {
  let buf: Buffer;
  try {
    buf = readFileSync(file);
  } catch {
    return null;
  }
  if (buf.length < 8 || buf.toString('latin1', 0, 4) !== magic) return null;
  const headerEnd = 8 + buf.readUInt32LE(4);
  if (headerEnd > buf.length) return null;
  const header = JSON.parse(buf.toString('utf8', 8, headerEnd)) as H;
  // A fresh read of a large file is its own 8-byte aligned ArrayBuffer; copy once when it is not.
  const bytes = buf.byteOffset % 8 === 0 ? buf : Buffer.from(buf);
  return {
    header,
    columns(layout) {
      let at = headerEnd;
      const columns: Column[] = [];
      for (const [Type, length] of layout) {
        at = Math.ceil(at / 8) * 8;
        if (at + length * Type.BYTES_PER_ELEMENT > bytes.length) return null;
        columns.push(new Type(bytes.buffer, bytes.byteOffset + at, length));
        at += length * Type.BYTES_PER_ELEMENT;
      }
      return at === bytes.length ? columns : null;
    },
  };
}
