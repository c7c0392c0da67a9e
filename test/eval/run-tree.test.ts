/** A sweep's output folder: the lock, tidying a killed sweep's files for resuming, the status file. */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { recordKey } from '../../src/eval/run/plan.js';
import { lockSweep, previousRunId, readRecorded, StatusWriter } from '../../src/eval/run/tree.js';
import { tempDir } from '../helpers/fixtures.js';

/** The PID of a process that has ended. */
function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '0']).pid!;
}

const record = (index: number, sample: number, extra: Record<string, unknown>) => ({
  schema_version: 2,
  episode_id: `ep-${index}-${sample}`,
  model_name: 'qwen',
  task: { split: 'eval', index, sample },
  config: { prompt_version: 'geolab-tools-1' },
  ...extra,
});

describe('the sweep lock', () => {
  it('is taken, refused while its process runs, taken over from a dead one with a note, and released', () => {
    const out = tempDir();
    const file = join(out, 'sweep.lock');
    writeFileSync(file, JSON.stringify({ pid: process.ppid, host: hostname(), started_at: 'then' }));
    expect(() => lockSweep(out)).toThrow(`refusing to start: another sweep (PID ${process.ppid}, since then) is writing ${out}`);
    writeFileSync(file, JSON.stringify({ pid: 1, host: 'elsewhere', started_at: 'then' }));
    expect(() => lockSweep(out)).toThrow(/held by PID 1 on elsewhere/);

    const dead = deadPid();
    writeFileSync(file, JSON.stringify({ pid: dead, host: hostname(), started_at: 'then' }));
    const lock = lockSweep(out);
    expect(lock.note).toBe(`took over ${file} from PID ${dead}, which is no longer running`);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ pid: process.pid });
    lock.release();
    expect(existsSync(file)).toBe(false);
    const again = lockSweep(out);
    expect(again.note).toBeNull();
    again.release();
  });
});

describe('the lock of a shard', () => {
  it('lets shards share a folder, refuses a shard held twice, and keeps sharded and unsharded sweeps apart', () => {
    const out = tempDir();
    const zero = lockSweep(out, { index: 0, count: 3 });
    const one = lockSweep(out, { index: 1, count: 3 });
    expect(JSON.parse(readFileSync(join(out, 'shard-1.lock'), 'utf8'))).toMatchObject({ pid: process.pid, shard: '1/3' });
    // A live process (the runner's parent) holding shard 1: a second process given the same shard.
    const held = readFileSync(join(out, 'shard-1.lock'), 'utf8');
    writeFileSync(join(out, 'shard-1.lock'), JSON.stringify({ pid: process.ppid, host: hostname(), started_at: 'then', shard: '1/3' }));
    expect(() => lockSweep(out, { index: 1, count: 3 })).toThrow(`refusing to start: shard 1 of ${out} is already being played (PID ${process.ppid}, since then;`);
    writeFileSync(join(out, 'shard-1.lock'), held);
    expect(() => lockSweep(out)).toThrow(`refusing to start: a sharded sweep (PID ${process.pid}`);
    zero.release();
    one.release();
    expect(existsSync(join(out, 'shard-0.lock'))).toBe(false);
    const whole = lockSweep(out);
    expect(() => lockSweep(out, { index: 2, count: 3 })).toThrow(`refusing to start: an unsharded sweep (PID ${process.pid}`);
    whole.release();

    writeFileSync(join(out, 'shard-2.lock'), JSON.stringify({ pid: deadPid(), host: hostname(), started_at: 'then' }));
    const taken = lockSweep(out, { index: 2, count: 3 });
    expect(taken.note).toMatch(/^took over .*shard-2\.lock from PID \d+, which is no longer running$/);
    taken.release();
    // Its own PID in the file: a process that died before it (a restarted container's PID 1), taken over.
    writeFileSync(join(out, 'shard-2.lock'), JSON.stringify({ pid: process.pid, host: hostname(), started_at: 'then' }));
    const own = lockSweep(out, { index: 2, count: 3 });
    expect(own.note).toMatch(/which is no longer running$/);
    own.release();
  });
});

describe('what a folder already holds', () => {
  it("a shard tidies only its own files: another shard's line still being written and its failures are left alone", () => {
    const out = tempDir();
    const mine = join(out, 'pass-0', 'shard-0');
    const theirs = join(out, 'pass-0', 'shard-1');
    mkdirSync(mine, { recursive: true });
    mkdirSync(theirs, { recursive: true });
    const ownText = JSON.stringify(record(0, 0, { outcome: {} })) + '\n' + JSON.stringify(record(3, 0, { error: 'aborted', failure: 'aborted' })) + '\n';
    writeFileSync(join(mine, 'episodes.jsonl'), ownText);
    const theirText = JSON.stringify(record(1, 0, { outcome: {} })) + '\n' + JSON.stringify(record(4, 0, { error: 'gone', failure: 'unreachable' })) + '\n' + JSON.stringify(record(7, 0, { outcome: {} })).slice(0, 30);
    writeFileSync(join(theirs, 'episodes.jsonl'), theirText);

    const recorded = readRecorded(out, { index: 0 });
    expect([...recorded.done].sort()).toEqual([recordKey(record(0, 0, {}))!, recordKey(record(1, 0, {}))!].sort());
    expect(recorded.superseded).toEqual(['ep-3-0']);
    expect(readFileSync(join(mine, 'episodes.jsonl'), 'utf8')).toBe(JSON.stringify(record(0, 0, { outcome: {} })) + '\n');
    expect(readFileSync(join(theirs, 'episodes.jsonl'), 'utf8')).toBe(theirText);
    expect(existsSync(join(theirs, 'superseded.jsonl'))).toBe(false);
  });

  it('drops a line cut off by a kill, sets aside failures to play again, and keeps the rest as done', () => {
    const out = tempDir();
    const dir = join(out, 'run-1');
    mkdirSync(dir);
    const file = join(dir, 'episodes.jsonl');
    const kept = [record(0, 0, { outcome: { reward: 0.4 }, turns: [] }), record(1, 0, { error: 'KeyError', traceback: '' })];
    const retried = [record(2, 0, { error: 'aborted', failure: 'aborted' }), record(0, 1, { error: 'gone', failure: 'unreachable' })];
    const lines = [kept[0], retried[0], kept[1], retried[1]].map((r) => JSON.stringify(r));
    writeFileSync(file, lines.join('\n') + '\n' + JSON.stringify(record(1, 1, { outcome: {} })).slice(0, 40));

    const recorded = readRecorded(out);
    expect([...recorded.done].sort()).toEqual(kept.map((r) => recordKey(r)!).sort());
    expect(recorded.superseded).toEqual(['ep-2-0', 'ep-0-1']);
    expect(recorded.notes).toEqual([
      `${file}:5: dropped a line cut off when the sweep was killed`,
      `${file}: 2 failed episodes (aborted, or a service gone) will be played again; the records moved to superseded.jsonl`,
    ]);
    expect(readFileSync(file, 'utf8')).toBe(kept.map((r) => JSON.stringify(r) + '\n').join(''));
    expect(readFileSync(join(dir, 'superseded.jsonl'), 'utf8')).toBe(retried.map((r) => JSON.stringify(r) + '\n').join(''));
    // Tidy already: nothing changes the second time.
    expect(readRecorded(out).notes).toEqual([]);
  });

  it('refuses a broken line that is not the last, naming file and line', () => {
    const out = tempDir();
    const file = join(out, 'episodes.jsonl');
    writeFileSync(file, '{"x": \n' + JSON.stringify(record(0, 0, { outcome: {} })) + '\n');
    expect(() => readRecorded(out)).toThrow(new RegExp(`^${file}:1: not valid JSON`));
  });
});

describe('resume over a tree with symlinks', () => {
  it('follows no symlinked folder, reads a linked file once and returns what it skipped', () => {
    const out = tempDir();
    mkdirSync(join(out, 'run-1'));
    mkdirSync(join(out, 'run-2'));
    const file = join(out, 'run-1', 'episodes.jsonl');
    writeFileSync(file, JSON.stringify(record(0, 0, { outcome: { reward: 1 }, turns: [] })) + '\n');
    symlinkSync('..', join(out, 'run-1', 'loop'));
    symlinkSync('/proc', join(out, 'run-1', 'proc'));
    symlinkSync('../run-1/episodes.jsonl', join(out, 'run-2', 'episodes.jsonl'));
    const recorded = readRecorded(out);
    expect(recorded.done.size).toBe(1);
    expect(recorded.skipped).toEqual([
      { path: join(out, 'run-1', 'loop'), reason: 'a symlink to a directory, not followed' },
      { path: join(out, 'run-1', 'proc'), reason: 'a symlink to a directory in /proc, not followed' },
      { path: join(out, 'run-2', 'episodes.jsonl'), reason: `a symlink to the same file as ${file}, read once` },
    ]);
  });
});

describe('sweep.json', () => {
  it('holds the latest status once flushed, and names the run for a re-run', () => {
    const out = tempDir();
    expect(previousRunId(out)).toBeNull();
    const writer = new StatusWriter(out);
    const status = { run_id: 'r1', pid: 1, status: 'running' as const, started_at: 'a', updated_at: 'b', models: [] };
    writer.update(status);
    writer.update({ ...status, status: 'done' });
    writer.flush();
    expect(JSON.parse(readFileSync(join(out, 'sweep.json'), 'utf8'))).toEqual({ ...status, status: 'done' });
    expect(previousRunId(out)).toBe('r1');
  });
});
