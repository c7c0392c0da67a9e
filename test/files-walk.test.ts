/** walkFiles (the one directory walk) and the line cap of byteLines (the one JSONL line reader): docs/reliability.md. */
import { existsSync, linkSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { byteLines, byteLinesSync, runTreeFiles, walkFiles, type SkippedEntry } from '../src/files.js';
import { tempDir } from './helpers/fixtures.js';

const everything = () => true;
const reasons = (skipped: SkippedEntry[], root: string) => Object.fromEntries(skipped.map((s) => [s.path.slice(root.length + 1), s.reason]));

describe('walkFiles', () => {
  it('follows no symlinked folder, enters nothing of /proc, takes a linked file once and says what it skipped', () => {
    const root = tempDir();
    mkdirSync(join(root, 'a', 'deep'), { recursive: true });
    mkdirSync(join(root, 'b'));
    writeFileSync(join(root, 'a', 'one.jsonl'), '1\n');
    writeFileSync(join(root, 'a', 'deep', 'two.jsonl'), '2\n');
    symlinkSync('..', join(root, 'a', 'loop'));
    symlinkSync(root, join(root, 'b', 'to-root'));
    symlinkSync('/proc', join(root, 'b', 'proc'));
    symlinkSync('/proc/self/status', join(root, 'b', 'status.jsonl'));
    symlinkSync('/dev/zero', join(root, 'b', 'zero.jsonl'));
    symlinkSync('../a/one.jsonl', join(root, 'b', 'same.jsonl'));
    linkSync(join(root, 'a', 'deep', 'two.jsonl'), join(root, 'b', 'hard.jsonl'));
    symlinkSync('nowhere', join(root, 'b', 'dangling.jsonl'));
    symlinkSync('self-loop', join(root, 'b', 'self-loop'));
    const started = performance.now();
    const { files, skipped } = walkFiles(root, everything);
    expect(performance.now() - started).toBeLessThan(2_000);
    // a/deep/two.jsonl and b/hard.jsonl are one file: the first in walk order is taken.
    expect(files.map((f) => f.slice(root.length + 1)).sort()).toEqual(['a/deep/two.jsonl', 'a/one.jsonl']);
    expect(reasons(skipped, root)).toEqual({
      'a/loop': 'a symlink to a directory, not followed',
      'b/to-root': 'a symlink to a directory, not followed',
      'b/proc': 'a symlink to a directory in /proc, not followed',
      'b/status.jsonl': 'a symlink into /proc, never read',
      'b/zero.jsonl': 'a symlink into /dev, never read',
      'b/same.jsonl': `a symlink to the same file as ${join(root, 'a', 'one.jsonl')}, read once`,
      'b/hard.jsonl': `the same file as ${join(root, 'a', 'deep', 'two.jsonl')}, read once`,
      'b/dangling.jsonl': 'a symlink to nothing (dangling)',
      'b/self-loop': 'a symlink loop',
    });
  });

  it('takes only what `accept` takes, in path order, and walks no root in /proc', () => {
    const root = tempDir();
    for (const dir of ['z', 'a', 'm/n']) mkdirSync(join(root, dir), { recursive: true });
    for (const file of ['z/episodes.jsonl', 'a/episodes.jsonl', 'm/n/episodes.jsonl', 'a/other.jsonl']) writeFileSync(join(root, file), '');
    const { files } = walkFiles(root, (rel) => rel.endsWith('episodes.jsonl'));
    expect(files).toEqual(['a/episodes.jsonl', 'm/n/episodes.jsonl', 'z/episodes.jsonl'].map((f) => join(root, f)));
    expect(walkFiles('/proc/self', everything)).toEqual({ files: [], skipped: [{ path: '/proc/self', reason: 'lies in /proc, which is never walked' }] });
  });

  it.runIf(existsSync('/dev/shm'))('walks a tree in /dev/shm, a memory file system of ordinary files', () => {
    const root = mkdtempSync('/dev/shm/geolab-walk-');
    try {
      writeFileSync(join(root, 'episodes.jsonl'), '');
      expect(walkFiles(root, everything)).toEqual({ files: [join(root, 'episodes.jsonl')], skipped: [] });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('runTreeFiles tells the caller each entry skipped', () => {
    const root = tempDir();
    mkdirSync(join(root, 'run'));
    writeFileSync(join(root, 'run', 'episodes.jsonl'), '');
    symlinkSync(root, join(root, 'run', 'up'));
    const skipped: SkippedEntry[] = [];
    expect(runTreeFiles(root, (entry) => skipped.push(entry))).toEqual([join(root, 'run', 'episodes.jsonl')]);
    expect(skipped).toEqual([{ path: join(root, 'run', 'up'), reason: 'a symlink to a directory, not followed' }]);
  });
});

describe('the line cap', () => {
  const collect = async (file: string, chunk: number, cap: number) => {
    const out: string[] = [];
    for await (const { bytes } of byteLines(file, chunk, cap)) out.push(bytes.toString());
    return out;
  };

  it('takes a line of exactly the cap, and refuses a longer one naming file:line and the cap', async () => {
    const file = join(tempDir(), 'lines.jsonl');
    writeFileSync(file, `ok\n${'x'.repeat(1024)}\n${'y'.repeat(1025)}\nlast\n`);
    await expect(collect(file, 16, 1024)).rejects.toThrow(`${file}:3: line longer than the cap of 1 KiB`);
    const seen: number[] = [];
    expect(() => {
      for (const { line } of byteLinesSync(file, 16, 1024)) seen.push(line);
    }).toThrow(`${file}:3: line longer than the cap of 1 KiB`);
    expect(seen).toEqual([1, 2]);
  });

  it('counts lines ended by a lone \\r as lines of their own, and a \\r\\n cut by a read as one end', async () => {
    const file = join(tempDir(), 'cr.txt');
    const lines = Array.from({ length: 50 }, (_, i) => `line ${i} `.repeat(5));
    writeFileSync(file, lines.join('\r') + '\r\n' + lines.join('\r\n') + '\n');
    expect(await collect(file, 7, 64)).toEqual([...lines, ...lines]);
  });
});
