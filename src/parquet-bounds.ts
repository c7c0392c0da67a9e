/**
 * Parquet metadata checked before hyparquet parses it (docs/reliability.md, "Parquet metadata").
 * hyparquet decodes the whole Thrift footer in one go and then plans every read over every row
 * group, so a small file declaring 100,000 row groups costs seconds to parse and minutes to read.
 * Here the footer is walked once with a compact-protocol skimmer that keeps only counts and byte
 * ranges: its length against the file's size and a maximum, the number of row groups and column
 * chunks against caps, and every column chunk's declared byte range against the file's data area.
 * Anything out of bounds is an InputError naming the file and what is wrong.
 */
import { open, stat } from 'node:fs/promises';
import { InputError } from './core/errors.js';

export interface ParquetLimits {
  /** The longest Thrift footer read. */
  footerBytes: number;
  rowGroups: number;
  /** Column chunks over all row groups. */
  columnChunks: number;
}

export const PARQUET_LIMITS: ParquetLimits = { footerBytes: 64 * 1024 * 1024, rowGroups: 10_000, columnChunks: 100_000 };

export interface ParquetShape {
  fileBytes: number;
  footerBytes: number;
  rowGroups: number;
  columnChunks: number;
}

const MAGIC = 'PAR1';
/** Structs nest a few levels in FileMetaData; deeper is hostile, and would cost the stack. */
const MAX_DEPTH = 32;

/**
 * Checks a parquet file's framing and footer against `limits`; throws an InputError naming `file`
 * and the cause. Anything but a regular file is left to the reader, which says what it is (a FIFO
 * is never opened here).
 */
export async function checkParquetBounds(file: string, limits: ParquetLimits = PARQUET_LIMITS): Promise<ParquetShape | undefined> {
  const info = await stat(file).catch(() => undefined);
  if (!info?.isFile()) return undefined;
  const handle = await open(file, 'r');
  try {
    const size = (await handle.stat()).size;
    const bad = (what: string) => new InputError(`not a usable parquet file: ${what}`, { file });
    if (size < 12) throw bad(`${size} bytes is too short (at least 12: PAR1, the footer length, PAR1)`);
    const read = async (at: number, length: number): Promise<Buffer> => {
      const bytes = Buffer.alloc(length);
      const { bytesRead } = await handle.read(bytes, 0, length, at);
      if (bytesRead !== length) throw bad(`the file changed while read (${bytesRead} of ${length} bytes at ${at})`);
      return bytes;
    };
    if ((await read(0, 4)).toString('latin1') !== MAGIC) throw bad('it does not start with PAR1');
    const tail = await read(size - 8, 8);
    if (tail.toString('latin1', 4) !== MAGIC) throw bad('it does not end with PAR1 (truncated?)');
    const footerBytes = tail.readUInt32LE(0);
    const dataEnd = size - 8 - footerBytes;
    if (dataEnd < 4) throw bad(`the footer length (${footerBytes} bytes) is more than the file holds (${size} bytes)`);
    if (footerBytes > limits.footerBytes) throw bad(`the footer is ${mib(footerBytes)}, more than the ${mib(limits.footerBytes)} read at most`);
    const footer = await read(dataEnd, footerBytes);
    const shape = skimFooter(footer, { dataEnd, limits, bad });
    return { fileBytes: size, footerBytes, ...shape };
  } finally {
    await handle.close();
  }
}

function mib(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MiB` : `${bytes} bytes`;
}

interface Context {
  dataEnd: number;
  limits: ParquetLimits;
  bad: (what: string) => InputError;
}

// Compact protocol types (apache/thrift, doc/specs/thrift-compact-protocol.md).
const TRUE = 1;
const FALSE = 2;
const BYTE = 3;
const I16 = 4;
const I32 = 5;
const I64 = 6;
const DOUBLE = 7;
const BINARY = 8;
const LIST = 9;
const SET = 10;
const MAP = 11;
const STRUCT = 12;

class Reader {
  at = 0;
  constructor(
    readonly bytes: Buffer,
    readonly bad: (what: string) => InputError,
  ) {}

  byte(): number {
    if (this.at >= this.bytes.length) throw this.bad(`the footer ends inside its metadata (at byte ${this.at})`);
    return this.bytes[this.at++] as number;
  }

  /** An unsigned varint as a number (exact to 2^53; beyond, large enough to fail any bound). */
  varint(): number {
    let value = 0;
    for (let shift = 0; shift < 70; shift += 7) {
      const b = this.byte();
      value += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return value;
    }
    throw this.bad(`a varint longer than 10 bytes in the footer (at byte ${this.at})`);
  }

  zigzag(): number {
    const n = this.varint();
    return n % 2 === 0 ? n / 2 : -(n + 1) / 2;
  }

  skipBytes(n: number): void {
    if (n > this.bytes.length - this.at) throw this.bad(`the footer declares ${n} bytes past its end (at byte ${this.at})`);
    this.at += n;
  }

  /** A list or set header: its element type and count. */
  listHeader(): { type: number; count: number } {
    const b = this.byte();
    const count = b >> 4 === 15 ? this.varint() : b >> 4;
    // Every element takes at least a byte: a count past the footer's end is a lie, said now.
    if (count > this.bytes.length - this.at) throw this.bad(`a list of ${count} elements in a footer of ${this.bytes.length} bytes`);
    return { type: b & 0x0f, count };
  }

  /** Calls `field` with each field id and type; the field must consume its value (skip() if unwanted). */
  struct(depth: number, field: (id: number, type: number) => void): void {
    if (depth > MAX_DEPTH) throw this.bad(`the footer's structs nest deeper than ${MAX_DEPTH}`);
    let last = 0;
    for (;;) {
      const b = this.byte();
      const type = b & 0x0f;
      if (type === 0) return;
      const delta = b >> 4;
      const id = delta === 0 ? this.zigzag() : last + delta;
      last = id;
      field(id, type);
    }
  }

  skip(type: number, depth: number): void {
    switch (type) {
      case TRUE:
      case FALSE:
        return;
      case BYTE:
        this.skipBytes(1);
        return;
      case I16:
      case I32:
      case I64:
        this.varint();
        return;
      case DOUBLE:
        this.skipBytes(8);
        return;
      case BINARY:
        this.skipBytes(this.varint());
        return;
      case LIST:
      case SET: {
        const { type: element, count } = this.listHeader();
        // Booleans in a list are a byte each, unlike in a struct.
        const bool = element === TRUE || element === FALSE;
        for (let i = 0; i < count; i++) {
          if (bool) this.skipBytes(1);
          else this.skip(element, depth + 1);
        }
        return;
      }
      case MAP: {
        const count = this.varint();
        if (count === 0) return;
        if (count * 2 > this.bytes.length - this.at) throw this.bad(`a map of ${count} entries in a footer of ${this.bytes.length} bytes`);
        const kinds = this.byte();
        for (let i = 0; i < count; i++) {
          this.skip(kinds >> 4, depth + 1);
          this.skip(kinds & 0x0f, depth + 1);
        }
        return;
      }
      case STRUCT:
        this.struct(depth + 1, (_, t) => this.skip(t, depth + 1));
        return;
      default:
        throw this.bad(`an unknown Thrift type ${type} in the footer (at byte ${this.at - 1})`);
    }
  }
}

/** FileMetaData (apache/parquet-format, parquet.thrift): field 4 is the row groups. */
function skimFooter(footer: Buffer, ctx: Context): { rowGroups: number; columnChunks: number } {
  const r = new Reader(footer, ctx.bad);
  let rowGroups = 0;
  const chunks = { count: 0 };
  r.struct(0, (id, type) => {
    if (id !== 4 || type !== LIST) return r.skip(type, 0);
    const { type: element, count } = r.listHeader();
    if (count > ctx.limits.rowGroups) throw ctx.bad(`the footer declares ${count} row groups, more than the ${ctx.limits.rowGroups} read at most`);
    if (element !== STRUCT && count > 0) throw ctx.bad('the row groups are not structs');
    rowGroups = count;
    for (let g = 0; g < count; g++) skimRowGroup(r, g, chunks, ctx);
  });
  return { rowGroups, columnChunks: chunks.count };
}

/** RowGroup: field 1 its column chunks, field 3 its row count. */
function skimRowGroup(r: Reader, group: number, chunks: { count: number }, ctx: Context): void {
  r.struct(1, (id, type) => {
    if (id === 3 && type === I64) {
      const rows = r.zigzag();
      if (rows < 0) throw ctx.bad(`row group ${group} declares ${rows} rows`);
      return;
    }
    if (id !== 1 || type !== LIST) return r.skip(type, 1);
    const { type: element, count } = r.listHeader();
    chunks.count += count;
    if (chunks.count > ctx.limits.columnChunks) throw ctx.bad(`the footer declares more than ${ctx.limits.columnChunks} column chunks (the most read), ${chunks.count} by row group ${group}`);
    if (element !== STRUCT && count > 0) throw ctx.bad(`row group ${group}'s column chunks are not structs`);
    for (let c = 0; c < count; c++) skimColumnChunk(r, group, c, ctx);
  });
}

/** ColumnChunk: field 3 its ColumnMetaData (7 compressed size, 9 data page offset, 11 dictionary page offset). */
function skimColumnChunk(r: Reader, group: number, column: number, ctx: Context): void {
  let meta: { size?: number; data?: number; dictionary?: number; path?: string } | undefined;
  r.struct(2, (id, type) => {
    if (id !== 3 || type !== STRUCT) return r.skip(type, 2);
    const m: NonNullable<typeof meta> = {};
    r.struct(3, (fid, ftype) => {
      if (ftype === I64 && fid === 7) m.size = r.zigzag();
      else if (ftype === I64 && fid === 9) m.data = r.zigzag();
      else if (ftype === I64 && fid === 11) m.dictionary = r.zigzag();
      else if (ftype === LIST && fid === 3) m.path = pathInSchema(r);
      else r.skip(ftype, 3);
    });
    meta = m;
  });
  const name = `row group ${group}, column ${meta?.path ?? column}`;
  if (!meta) throw ctx.bad(`${name} has no column metadata`);
  if (meta.size === undefined || meta.data === undefined) throw ctx.bad(`${name} does not declare its size and data page offset`);
  // As hyparquet plans a read: from the dictionary page when there is one, else the first data page.
  const start = meta.dictionary || meta.data;
  const end = start + meta.size;
  if (meta.size < 0 || start < 4 || end > ctx.dataEnd) {
    throw ctx.bad(`${name} declares bytes ${start} to ${end}, outside the file's data (bytes 4 to ${ctx.dataEnd})`);
  }
}

/** path_in_schema: a list of strings, joined with dots for messages. */
function pathInSchema(r: Reader): string {
  const { type, count } = r.listHeader();
  const parts: string[] = [];
  for (let i = 0; i < count; i++) {
    if (type !== BINARY) {
      r.skip(type, 4);
      continue;
    }
    const length = r.varint();
    const from = r.at;
    r.skipBytes(length);
    if (parts.length < 8) parts.push(r.bytes.toString('utf8', from, Math.min(r.at, from + 100)));
  }
  return parts.join('.');
}
