/** byteLines cuts lines as splitting the whole file would, whatever the chunk size and line lengths. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { byteLines } from '../src/files.js';

const dir = mkdtempSync(join(tmpdir(), 'geolab-bytelines-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function lines(content: Buffer, chunkBytes: number): Promise<string[]> {
  const file = join(dir, 'lines.txt');
  writeFileSync(file, content);
  const out: string[] = [];
  let expected = 1;
  for await (const { line, bytes } of byteLines(file, chunkBytes)) {
    expect(line).toBe(expected++);
    out.push(bytes.toString('latin1'));
  }
  return out;
}

/** What the lines are: split at "\r\n", "\n" or a lone "\r", no line after a final line end. */
function reference(content: Buffer): string[] {
  const text = content.toString('latin1');
  if (text === '') return [];
  const parts = text.split(/\r\n|\n|\r/);
  if (/(\r\n|\n|\r)$/.test(text)) parts.pop();
  return parts;
}

describe('byteLines', () => {
  it('agrees with splitting the whole file, for random files and chunk sizes smaller and larger than a line', async () => {
    let seed = 5;
    const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const pieces = ['a', 'bc', '{"k": "v"}', 'é', '\n', '\r\n', '\r', 'x'.repeat(50), 'y'.repeat(300)];
    for (let trial = 0; trial < 120; trial++) {
      const count = Math.floor(rand() * 40);
      const content = Buffer.from(Array.from({ length: count }, () => pieces[Math.floor(rand() * pieces.length)]).join(''), 'latin1');
      const chunkBytes = [1, 2, 3, 7, 16, 64, 1024][trial % 7] as number;
      expect(await lines(content, chunkBytes), JSON.stringify(content.toString('latin1'))).toEqual(reference(content));
    }
  });

  it('reads an empty file as no lines and a file without a final line end to its last byte', async () => {
    expect(await lines(Buffer.alloc(0), 4)).toEqual([]);
    expect(await lines(Buffer.from('one\ntwo'), 4)).toEqual(['one', 'two']);
    expect(await lines(Buffer.from('\n\n'), 4)).toEqual(['', '']);
  });
});
