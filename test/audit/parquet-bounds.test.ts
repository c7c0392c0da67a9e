/**
 * Parquet metadata bounded before hyparquet reads it (docs/reliability.md, "Parquet metadata"):
 * hostile files written here end `geolab audit --completions` with exit 2 and a named cause, in
 * seconds, never "unexpected error".
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkParquetBounds, PARQUET_LIMITS } from '../../src/parquet-bounds.js';
import { geolab } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { writeParquet, type ParquetLies } from '../helpers/parquet.js';

const COLUMNS = ['prompt', 'completion'];
const ROWS = [{ prompt: '<|im_start|>user\nWhere?<|im_end|>\n', completion: 'Looking.' }];

function parquet(dir: string, name: string, lies: ParquetLies = {}): string {
  const file = join(dir, name);
  writeParquet(file, COLUMNS, [ROWS, ROWS], lies);
  return file;
}

/** The file's bytes changed by `edit`, written back. */
function edited(file: string, edit: (bytes: Buffer) => Buffer): string {
  writeFileSync(file, edit(readFileSync(file)));
  return file;
}

describe('parquet bounds', () => {
  it('passes a sane file, counting its row groups and chunks', async () => {
    const dir = tempDir();
    const file = parquet(dir, 'ok.parquet');
    const shape = await checkParquetBounds(file);
    expect(shape).toMatchObject({ rowGroups: 2, columnChunks: 4 });
    // Far more row groups than allowed pass with the caps raised: the skim reads the whole footer.
    const many = parquet(dir, 'many.parquet', { repeatLastGroup: 20_000 });
    await expect(checkParquetBounds(many)).rejects.toThrow(/20001 row groups, more than the 10000/);
    expect(await checkParquetBounds(many, { ...PARQUET_LIMITS, rowGroups: 50_000, columnChunks: 50_000 })).toMatchObject({ rowGroups: 20_001, columnChunks: 40_002 });
    await expect(checkParquetBounds(many, { ...PARQUET_LIMITS, rowGroups: 50_000, columnChunks: 10_000 })).rejects.toThrow(/more than 10000 column chunks \(the most read\), 10002 by row group 5000/);
    await expect(checkParquetBounds(file, { ...PARQUET_LIMITS, footerBytes: 16 })).rejects.toThrow(/more than the 16 bytes read at most/);
  });

  it('leaves what is not a regular file to the reader', async () => {
    expect(await checkParquetBounds(tempDir())).toBeUndefined();
    expect(await checkParquetBounds(join(tempDir(), 'missing.parquet'))).toBeUndefined();
  });

  const HOSTILE: [string, (dir: string) => string, RegExp][] = [
    ['a footer declaring 100,000 row groups', (dir) => parquet(dir, 'groups.parquet', { repeatLastGroup: 100_000 }), /100001 row groups, more than the 10000 read at most/],
    ['a column chunk declared past the end of the file', (dir) => parquet(dir, 'size.parquet', { compressedSize: 1e9 }), /row group 0, column prompt declares bytes 4 to 1000000004, outside the file's data/],
    ['a truncated file', (dir) => edited(parquet(dir, 'cut.parquet'), (b) => b.subarray(0, b.length - 20)), /does not end with PAR1 \(truncated\?\)/],
    [
      'a footer length larger than the file',
      (dir) =>
        edited(parquet(dir, 'long.parquet'), (b) => {
          b.writeUInt32LE(b.length * 4, b.length - 8);
          return b;
        }),
      /footer length \(\d+ bytes\) is more than the file holds/,
    ],
    [
      'a footer cut inside its metadata',
      (dir) =>
        edited(parquet(dir, 'inside.parquet'), (b) => {
          b.writeUInt32LE(b.readUInt32LE(b.length - 8) - 3, b.length - 8);
          return b;
        }),
      /not a usable parquet file|not a parquet file/,
    ],
    ['a file too short to be parquet', (dir) => edited(parquet(dir, 'short.parquet'), () => Buffer.from('PAR1PAR1')), /8 bytes is too short/],
  ];

  it.each(HOSTILE)('geolab audit --completions: %s is exit 2 in seconds, naming the file and the cause', (_, make, cause) => {
    const dir = tempDir();
    const file = make(dir);
    const started = performance.now();
    const r = geolab(['audit', '--completions', file, '--json'], { home: dir, timeoutMs: 30_000 });
    const seconds = (performance.now() - started) / 1000;
    expect(r.stderr).not.toMatch(/unexpected error/);
    expect(r.stderr).toContain(file);
    expect(r.stderr).toMatch(cause);
    expect(r.code).toBe(2);
    expect(seconds).toBeLessThan(10);
  });
});
