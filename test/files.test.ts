/** textLines and byteLines: the line splitting every JSONL reader shares. */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { byteLines, byteLinesSync, lineStartAtOrAfter, linkOrCopy, streamLines, textLines, type StreamLine } from '../src/files.js';
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

async function byteLinesOf(content: Buffer, chunkBytes: number): Promise<string[]> {
  const file = join(tempDir(), 'lines.txt');
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
function splitLines(content: Buffer): string[] {
  const text = content.toString('latin1');
  if (text === '') return [];
  const parts = text.split(/\r\n|\n|\r/);
  if (/(\r\n|\n|\r)$/.test(text)) parts.pop();
  return parts;
}

describe('byteLines', () => {
  it('cuts lines as splitting the whole file does, for random files and buffers smaller and larger than a line', async () => {
    let seed = 5;
    const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const pieces = ['a', 'bc', '{"k": "v"}', 'é', '\n', '\r\n', '\r', 'x'.repeat(50), 'y'.repeat(300)];
    for (let trial = 0; trial < 120; trial++) {
      const count = Math.floor(rand() * 40);
      const content = Buffer.from(Array.from({ length: count }, () => pieces[Math.floor(rand() * pieces.length)]).join(''), 'latin1');
      const chunkBytes = [1, 2, 3, 7, 16, 64, 1024][trial % 7] as number;
      expect(await byteLinesOf(content, chunkBytes), JSON.stringify(content.toString('latin1'))).toEqual(splitLines(content));
    }
  });

  it('reads the ranges lineStartAtOrAfter cuts as the whole file, each numbered from 1 and counted', () => {
    let seed = 11;
    const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const pieces = ['a', 'bc', 'é', '\n', '\r\n', '\r', 'x'.repeat(50)];
    for (let trial = 0; trial < 120; trial++) {
      const content = Buffer.from(Array.from({ length: Math.floor(rand() * 40) }, () => pieces[Math.floor(rand() * pieces.length)]).join(''), 'latin1');
      const file = join(tempDir(), 'ranges.txt');
      writeFileSync(file, content);
      const step = 1 + Math.floor(rand() * 60);
      const lines: string[] = [];
      for (let start = 0; start < content.length; ) {
        const end = lineStartAtOrAfter(file, start + step);
        const read = byteLinesSync(file, 4, undefined, { start, end });
        let numbered = 0;
        for (let next = read.next(); ; next = read.next()) {
          if (next.done) {
            expect(next.value).toBe(numbered);
            break;
          }
          expect(next.value.line).toBe(++numbered);
          lines.push(next.value.bytes.toString('latin1'));
        }
        start = end;
      }
      expect(lines, JSON.stringify(content.toString('latin1'))).toEqual(splitLines(content));
    }
  });

  it('reads an empty file as no lines and a file without a final line end to its last byte', async () => {
    expect(await byteLinesOf(Buffer.alloc(0), 4)).toEqual([]);
    expect(await byteLinesOf(Buffer.from('one\ntwo'), 4)).toEqual(['one', 'two']);
    expect(await byteLinesOf(Buffer.from('\n\n'), 4)).toEqual(['', '']);
  });
});

/** A folder on another filesystem than the temp dir's, when the machine has one (tmpfs /dev/shm). */
function otherFilesystem(): string | null {
  try {
    if (statSync('/dev/shm').dev === statSync(tempDir()).dev) return null;
    return mkdtempSync('/dev/shm/geolab-test-');
  } catch {
    return null;
  }
}

async function streamed(chunks: readonly Buffer[], cap: number): Promise<StreamLine[]> {
  const out: StreamLine[] = [];
  for await (const l of streamLines((async function* () { yield* chunks; })(), cap)) out.push(l);
  return out;
}

describe('streamLines (stdin)', () => {
  it('gives the lines textLines gives for the same bytes, however the stream cuts them', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom('a', 'é', '1', ',', ' ', '\n', '\r', '\r\n'), { maxLength: 60 }), fc.array(fc.nat(), { maxLength: 8 }), async (parts, cuts) => {
        const bytes = Buffer.from(parts.join(''));
        const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
        const chunks = [0, ...at].map((from, i, all) => bytes.subarray(from, all[i + 1] ?? bytes.length));
        expect(await streamed(chunks, 1 << 20)).toEqual(await linesOf(bytes));
      }),
      { numRuns: 300, seed: 5 },
    );
  });

  it('drops a line past the cap as it comes, naming it, and goes on with the next', async () => {
    const long = Buffer.alloc(50_000, 'x');
    const chunks = [Buffer.from('1,2\n'), long, long, Buffer.from('x\n3,4\n'), long];
    expect(await streamed(chunks, 4096)).toEqual([{ line: 1, text: '1,2' }, { line: 2, tooLong: true }, { line: 3, text: '3,4' }, { line: 4, tooLong: true }]);
  });
});

describe('linkOrCopy', () => {
  it('hard-links on one filesystem, making the folders it needs, and keeps a file already there', () => {
    const dir = tempDir();
    const src = join(dir, 'a.jpg');
    writeFileSync(src, 'bytes');
    const dest = join(dir, 'run', 'images', 'a.jpg');
    expect(linkOrCopy(src, dest)).toBe('linked');
    expect(statSync(dest).ino).toBe(statSync(src).ino);
    expect(linkOrCopy(src, dest)).toBe('present');
  });

  const other = otherFilesystem();
  it.skipIf(other === null)('copies across filesystems, leaving no temp file behind', () => {
    const src = join(tempDir(), 'a.png');
    writeFileSync(src, 'png bytes');
    const dest = join(other!, 'images', 'a.png');
    try {
      expect(linkOrCopy(src, dest)).toBe('copied');
      expect(readFileSync(dest, 'utf8')).toBe('png bytes');
      expect(statSync(dest).ino).not.toBe(statSync(src).ino);
      expect(readdirSync(join(other!, 'images'))).toEqual(['a.png']);
    } finally {
      rmSync(other!, { recursive: true, force: true });
    }
  });

  it('fails on a source that is not there, writing nothing', () => {
    const dir = tempDir();
    expect(() => linkOrCopy(join(dir, 'gone.jpg'), join(dir, 'images', 'gone.jpg'))).toThrow(/ENOENT/);
    expect(existsSync(join(dir, 'images', 'gone.jpg'))).toBe(false);
  });
});
