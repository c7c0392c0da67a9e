/**
 * A minimal parquet writer for fixtures: required UTF-8 string columns, one row group per call of
 * `groups`, PLAIN encoding, uncompressed, data page v1, metadata in Thrift's compact protocol
 * (apache/parquet-format). Enough to stand in for TRL's completions logs without pyarrow.
 */
import { writeFileSync } from 'node:fs';

type Field = [id: number, write: (out: Compact) => number];

const T = { i32: 5, i64: 6, binary: 8, list: 9, struct: 12 } as const;

class Compact {
  readonly bytes: number[] = [];

  varint(n: bigint): void {
    let v = n;
    while (v >= 0x80n) {
      this.bytes.push(Number((v & 0x7fn) | 0x80n));
      v >>= 7n;
    }
    this.bytes.push(Number(v));
  }

  int(n: number | bigint): void {
    const v = BigInt(n);
    this.varint(v >= 0n ? v << 1n : ((-v) << 1n) - 1n);
  }

  binary(text: string): void {
    const b = Buffer.from(text, 'utf8');
    this.varint(BigInt(b.length));
    this.bytes.push(...b);
  }

  struct(fields: Field[]): void {
    let last = 0;
    for (const [id, write] of fields) {
      const at = this.bytes.length;
      this.bytes.push(0);
      this.bytes[at] = ((id - last) << 4) | write(this);
      last = id;
    }
    this.bytes.push(0);
  }

  list<V>(type: number, values: V[], write: (v: V) => void): void {
    this.bytes.push(values.length < 15 ? (values.length << 4) | type : 0xf0 | type);
    if (values.length >= 15) this.varint(BigInt(values.length));
    values.forEach(write);
  }
}

const i32 = (n: number): Field[1] => (o) => (o.int(n), T.i32);
const i64 = (n: number): Field[1] => (o) => (o.int(n), T.i64);
const str = (s: string): Field[1] => (o) => (o.binary(s), T.binary);
const struct = (fields: Field[]): Field[1] => (o) => (o.struct(fields), T.struct);

function encode(write: (o: Compact) => void): Buffer {
  const o = new Compact();
  write(o);
  return Buffer.from(o.bytes);
}

/** Hostile shapes for the bounds tests: the last row group's entry repeated, a chunk's compressed size declared. */
export interface ParquetLies {
  /** The footer lists the last row group this many times in all (each entry pointing at the same bytes). */
  repeatLastGroup?: number;
  /** Every column chunk declares this compressed size instead of its own. */
  compressedSize?: number;
}

/** Writes `groups` (row groups of rows keyed by column name) with the given string columns. */
export function writeParquet(file: string, columns: string[], groups: Record<string, string>[][], lies: ParquetLies = {}): void {
  const parts: Buffer[] = [Buffer.from('PAR1')];
  let offset = 4;
  const rowGroups: Field[][] = [];
  for (const rows of groups) {
    const chunks: Field[][] = [];
    let groupBytes = 0;
    for (const column of columns) {
      const data = Buffer.concat(
        rows.flatMap((row) => {
          const value = Buffer.from(row[column] ?? '', 'utf8');
          const length = Buffer.alloc(4);
          length.writeUInt32LE(value.length);
          return [length, value];
        }),
      );
      const header = encode((o) =>
        o.struct([
          [1, i32(0)], // DATA_PAGE
          [2, i32(data.length)],
          [3, i32(data.length)],
          [5, struct([[1, i32(rows.length)], [2, i32(0)], [3, i32(3)], [4, i32(3)]])], // PLAIN values, RLE levels
        ]),
      );
      const size = header.length + data.length;
      chunks.push([
        [2, i64(offset)],
        [
          3,
          struct([
            [1, i32(6)], // BYTE_ARRAY
            [2, (o) => (o.list(T.i32, [0, 3], (e) => o.int(e)), T.list)],
            [3, (o) => (o.list(T.binary, [column], (n) => o.binary(n)), T.list)],
            [4, i32(0)], // UNCOMPRESSED
            [5, i64(rows.length)],
            [6, i64(size)],
            [7, i64(lies.compressedSize ?? size)],
            [9, i64(offset)],
          ]),
        ],
      ]);
      parts.push(header, data);
      offset += size;
      groupBytes += size;
    }
    rowGroups.push([
      [1, (o) => (o.list(T.struct, chunks, (c) => o.struct(c)), T.list)],
      [2, i64(groupBytes)],
      [3, i64(rows.length)],
    ]);
  }
  const schema: Field[][] = [
    [
      [4, str('schema')],
      [5, i32(columns.length)],
    ],
    ...columns.map((name): Field[] => [
      [1, i32(6)],
      [3, i32(0)], // REQUIRED
      [4, str(name)],
      [6, i32(0)], // UTF8
    ]),
  ];
  const repeat = Math.max(1, lies.repeatLastGroup ?? 1);
  const last = rowGroups.length - 1;
  // The struct is written by hand around the row groups so that a repeated one is encoded once.
  const head = encode((o) => {
    o.bytes.push((1 << 4) | T.i32);
    o.int(1);
    o.bytes.push((1 << 4) | T.list);
    o.list(T.struct, schema, (s) => o.struct(s));
    o.bytes.push((1 << 4) | T.i64);
    o.int(groups.reduce((n, g) => n + g.length, 0));
    o.bytes.push((1 << 4) | T.list);
    const count = rowGroups.length - 1 + repeat;
    o.bytes.push(count < 15 ? (count << 4) | T.struct : 0xf0 | T.struct);
    if (count >= 15) o.varint(BigInt(count));
  });
  const encoded = rowGroups.map((g) => encode((o) => o.struct(g)));
  const body = last < 0 ? [] : [...encoded.slice(0, last), ...Array<Buffer>(repeat).fill(encoded[last] as Buffer)];
  const metadata = Buffer.concat([head, ...body, Buffer.from([0])]);
  const length = Buffer.alloc(4);
  length.writeUInt32LE(metadata.length);
  parts.push(metadata, length, Buffer.from('PAR1'));
  writeFileSync(file, Buffer.concat(parts));
}
