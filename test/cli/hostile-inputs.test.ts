/**
 * Every command that reads a user's files, over hostile inputs (docs/reliability.md): a line past
 * the JSONL cap, binary garbage, a FIFO (which must never be opened for a read that waits forever),
 * a folder whose only entry is a symlink loop, a truncated parquet file, an image whose EXIF lies
 * about its own layout. Each ends with exit 2 (or 3) and a message naming the cause, within its
 * time limit, and never with "unexpected error" or a stack trace. The lying EXIF is the exception
 * that is no input error: the audit reports the image's metadata as a finding.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, symlinkSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { spawnGeolab } from '../helpers/cli.js';
import { makeTask, tempDir } from '../helpers/fixtures.js';
import { writeParquet } from '../helpers/parquet.js';

const DIR = tempDir('geolab-hostile-');
const HOME = join(DIR, 'home');
const TIME_LIMIT_MS = 30_000;
const f = (name: string) => join(DIR, name);

beforeAll(async () => {
  // A first line of 65 MiB (past the 64 MiB cap), written in pieces.
  const huge = openSync(f('huge.jsonl'), 'w');
  writeSync(huge, '{"x":"');
  const piece = 'a'.repeat(2 ** 20);
  for (let i = 0; i < 65; i++) writeSync(huge, piece);
  writeSync(huge, '"}\n');
  closeSync(huge);
  writeFileSync(f('garbage.jsonl'), Buffer.from(Array.from({ length: 65_536 }, (_, i) => (i * 7919 + 13) % 256)));
  execFileSync('mkfifo', [f('fifo.jsonl')]);
  mkdirSync(f('loop'));
  symlinkSync('..', join(f('loop'), 'up'));
  // A parquet file cut in the middle: no footer, no closing PAR1.
  writeParquet(f('whole.parquet'), ['prompt', 'completion'], [[{ prompt: 'Where?', completion: 'Looking.' }]]);
  const parquet = readFileSync(f('whole.parquet'));
  writeFileSync(f('truncated.parquet'), parquet.subarray(0, Math.floor(parquet.length / 2)));
  writeFileSync(f('tasks.jsonl'), JSON.stringify(makeTask(0)) + '\n');
  // EXIF whose IFD claims 60,000 entries and points past its own end.
  const jpeg = await sharp({ create: { width: 32, height: 32, channels: 3, background: '#468' } }).jpeg().toBuffer();
  const tiff = Buffer.from([0x49, 0x49, 0x2a, 0x00, 0x08, 0x00, 0x00, 0x00, 0x60, 0xea, 0x01, 0x00, 0x25, 0x88, 0x04, 0x00, 0x01, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0x7f]);
  const body = Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), tiff]);
  const app1 = Buffer.concat([Buffer.from([0xff, 0xe1, (body.length + 2) >> 8, (body.length + 2) & 0xff]), body]);
  const lying = Buffer.concat([jpeg.subarray(0, 2), app1, jpeg.subarray(2)]);
  const prompt = {
    id: 'p1',
    task_id: 'fx-00000',
    messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/jpeg;base64,${lying.toString('base64')}` } }] }],
  };
  writeFileSync(f('lying-exif.jsonl'), JSON.stringify(prompt) + '\n');
}, 60_000);

interface Case {
  command: string[];
  /** What the message must say (besides the file's name). */
  cause: RegExp;
  codes?: number[];
}

const cases: Record<string, Case[]> = {
  'a line past the cap': [
    { command: ['audit', '--prompts', f('huge.jsonl'), '--tasks', f('tasks.jsonl')], cause: /huge\.jsonl:1: line longer than the cap of 64 MiB/ },
    { command: ['episodes', 'import', f('huge.jsonl')], cause: /huge\.jsonl:1: line longer than the cap of 64 MiB/ },
    { command: ['tasks', 'import', f('huge.jsonl'), '--name', 'h'], cause: /huge\.jsonl:1.*line longer than the cap of 64 MiB/ },
    { command: ['tasks', 'validate', f('huge.jsonl')], cause: /huge\.jsonl:1.*line longer than the cap of 64 MiB/ },
    { command: ['splits', 'check', '--train', f('huge.jsonl'), '--eval', f('tasks.jsonl')], cause: /huge\.jsonl:1.*line longer than the cap of 64 MiB/ },
    { command: ['eval', 'report', f('huge.jsonl')], cause: /huge\.jsonl:1: line longer than the cap of 64 MiB/ },
  ],
  'binary garbage': [
    { command: ['audit', '--prompts', f('garbage.jsonl'), '--tasks', f('tasks.jsonl')], cause: /garbage\.jsonl:\d+: not valid JSON/ },
    { command: ['episodes', 'import', f('garbage.jsonl')], cause: /garbage\.jsonl:\d+: not valid JSON/ },
    { command: ['tasks', 'import', f('garbage.jsonl'), '--name', 'g'], cause: /garbage\.jsonl:\d+.*unparseable JSON/ },
    { command: ['splits', 'check', '--train', f('garbage.jsonl'), '--eval', f('tasks.jsonl')], cause: /garbage\.jsonl:\d+/ },
    { command: ['eval', 'report', f('garbage.jsonl')], cause: /garbage\.jsonl:\d+: not valid JSON/ },
    // Pre-flight reports a config that does not parse as its failed check (exit 1 on any failed check).
    { command: ['train', 'preflight', f('garbage.jsonl')], cause: /fail\s+config\.valid\s+.*garbage\.jsonl:1: not valid JSON/, codes: [1] },
  ],
  'a FIFO': [
    { command: ['audit', '--prompts', f('fifo.jsonl'), '--tasks', f('tasks.jsonl')], cause: /fifo\.jsonl: .*not a regular file/ },
    { command: ['episodes', 'import', f('fifo.jsonl')], cause: /fifo\.jsonl: .*not a regular file/ },
    { command: ['tasks', 'import', f('fifo.jsonl'), '--name', 'f'], cause: /fifo\.jsonl.*not a regular file/ },
    { command: ['tasks', 'validate', f('fifo.jsonl')], cause: /fifo\.jsonl.*not a regular file/ },
    { command: ['splits', 'check', '--train', f('fifo.jsonl'), '--eval', f('tasks.jsonl')], cause: /fifo\.jsonl.*not a regular file/ },
    { command: ['eval', 'report', f('fifo.jsonl')], cause: /fifo\.jsonl.*not a regular file/ },
    { command: ['train', 'preflight', f('fifo.jsonl')], cause: /fifo\.jsonl.*not a regular file/ },
  ],
  'a symlink loop': [
    { command: ['audit', '--episodes', f('loop')], cause: /skipped .*loop\/up: a symlink to a directory, not followed/ },
    { command: ['episodes', 'import', f('loop')], cause: /skipped .*loop\/up: a symlink to a directory, not followed/ },
    { command: ['eval', 'report', f('loop')], cause: /skipped .*loop\/up: a symlink to a directory, not followed/ },
  ],
  'a truncated parquet file': [{ command: ['audit', '--completions', f('truncated.parquet'), '--tasks', f('tasks.jsonl')], cause: /truncated\.parquet/ }],
  // Not an input error: the audit reads what it can of the EXIF and reports it as a finding.
  'an image whose EXIF lies': [{ command: ['audit', '--prompts', f('lying-exif.jsonl'), '--tasks', f('tasks.jsonl')], cause: /image_metadata.*\n.*EXIF \(APP1\)/, codes: [0, 1] }],
};

describe.each(Object.entries(cases))('%s', (_input, list) => {
  it.each(list.map((c) => [c.command.slice(0, 2).join(' '), c] as const))('%s: exit 2 naming the cause, in bounded time', async (_name, c) => {
    const started = performance.now();
    const result = await spawnGeolab(c.command, { home: HOME, timeoutMs: TIME_LIMIT_MS }).done;
    const output = result.stderr + result.stdout;
    expect(performance.now() - started).toBeLessThan(TIME_LIMIT_MS);
    expect(c.codes ?? [2, 3], output).toContain(result.code);
    expect(output).toMatch(c.cause);
    expect(output).not.toMatch(/unexpected error|\n\s+at /);
  }, TIME_LIMIT_MS + 10_000);
});
