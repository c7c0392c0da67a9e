/** textLines: the line splitting every JSONL reader shares. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { textLines } from '../src/files.js';
import { tempDir } from './helpers/fixtures.js';

async function linesOf(content: string | Buffer): Promise<{ line: number; text: string }[]> {
  const file = join(tempDir(), 'lines.txt');
  writeFileSync(file, content);
  const out: { line: number; text: string }[] = [];
  for await (const l of textLines(file)) out.push(l);
  return out;
}

describe('textLines', () => {
  it('ends lines at \\n, \\r\\n and a lone \\r, drops a leading BOM, keeps empty lines and a last line without a newline', async () => {
    expect(await linesOf('\uFEFFa\r\nb\rc\n\nd')).toEqual([
      { line: 1, text: 'a' },
      { line: 2, text: 'b' },
      { line: 3, text: 'c' },
      { line: 4, text: '' },
      { line: 5, text: 'd' },
    ]);
    expect(await linesOf('')).toEqual([]);
    expect(await linesOf('x\n')).toEqual([{ line: 1, text: 'x' }]);
  });

  it('keeps multi-byte characters whole across read chunks, in lines longer than a chunk', async () => {
    const long = 'Niš → Beograd, '.repeat(150_000);
    const lines = await linesOf(`${long}\r\nshort\n${long}`);
    expect(lines.map((l) => l.text.length)).toEqual([long.length, 5, long.length]);
    expect(lines[0]!.text).toBe(long);
    expect(lines[2]!.text).toBe(long);
  });
});
