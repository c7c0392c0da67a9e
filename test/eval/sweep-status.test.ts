/**
 * The reader of a sweep's sweep.json: a whole file as written, no file yet, a file that does not
 * parse or has a wrong field (named with the file), and a writer that is gone.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/core/errors.js';
import { parseSweepStatus, readSweepStatus, sweepPhase } from '../../src/eval/sweep-status.js';
import { tempDir } from '../helpers/fixtures.js';

const STATUS = {
  run_id: 'sweep-7',
  pid: 4242,
  status: 'running',
  started_at: '2026-12-01T10:00:00Z',
  updated_at: '2026-12-01T10:05:00Z',
  models: [
    { name: 'qwen', done: 40, failed: 2, aborted: 1, total: 100, retries: 17, provider_errors: 3, per_min: 12.5, eta_s: 288 },
    { name: 'claude', done: 0, failed: 0, aborted: 0, total: 100, retries: 0, provider_errors: 0, per_min: 0, eta_s: null },
  ],
};

function written(value: unknown): string {
  const dir = tempDir();
  writeFileSync(join(dir, 'sweep.json'), typeof value === 'string' ? value : JSON.stringify(value));
  return dir;
}

function problem(value: unknown): string {
  try {
    readSweepStatus(written(value));
  } catch (err) {
    expect(err).toBeInstanceOf(InputError);
    return (err as Error).message;
  }
  throw new Error('expected an error');
}

describe('sweep.json', () => {
  it('reads what the writer wrote', () => {
    expect(readSweepStatus(written(STATUS))).toEqual(STATUS);
  });

  it('reads a file written before retries, provider errors and aborts were counted as counting none', () => {
    const old = { ...STATUS, models: [{ name: 'qwen', done: 40, failed: 2, total: 100, per_min: 12.5, eta_s: 288 }] };
    expect(readSweepStatus(written(old))?.models).toEqual([{ ...old.models[0], aborted: 0, retries: 0, provider_errors: 0 }]);
    expect(problem({ ...STATUS, models: [{ ...STATUS.models[0], retries: -1 }] })).toMatch(/field models\[0\]\.retries: expected a whole number >= 0, got -1$/);
  });

  it('is no status, not an error, before the sweep wrote one', () => {
    expect(readSweepStatus(tempDir())).toBeNull();
  });

  it('names the file and the field of what is wrong', () => {
    const dir = written('{"run_id": "sweep-7", "pid": ');
    expect(() => readSweepStatus(dir)).toThrow(`${join(dir, 'sweep.json')}: not valid JSON`);
    expect(problem({ ...STATUS, status: 'paused' })).toMatch(/field status: expected "running", "done", "failed", "interrupted", got "paused"$/);
    expect(problem({ ...STATUS, pid: -1 })).toMatch(/field pid: expected a process id/);
    expect(problem({ ...STATUS, models: [{ ...STATUS.models[0], done: 1.5 }] })).toMatch(/field models\[0\]\.done: expected a whole number >= 0, got 1\.5$/);
    expect(problem({ ...STATUS, models: [{ ...STATUS.models[0], name: undefined }] })).toMatch(/field models\[0\]\.name: expected a string, got nothing$/);
    expect(problem([STATUS])).toMatch(/expected a JSON object/);
  });

  it('is "stopped" when it says running and its process is gone', () => {
    const dead = spawnSync(process.execPath, ['-e', '']).pid!;
    const status = parseSweepStatus(JSON.stringify({ ...STATUS, pid: dead }), 'sweep.json');
    expect(sweepPhase(status)).toBe('stopped');
    expect(sweepPhase({ ...status, pid: process.pid })).toBe('running');
    // A sweep that ended says so itself, whatever became of its process.
    expect(sweepPhase({ ...status, status: 'done' })).toBe('done');
    expect(sweepPhase({ ...status, status: 'interrupted' })).toBe('interrupted');
  });

  it("reads shards' status files as one sweep's: counts summed, the state of the shard still running", () => {
    const dir = tempDir();
    const shard = (i: number, status: string, done: number, eta: number | null) => ({
      ...STATUS,
      pid: 4000 + i,
      status,
      started_at: `2026-12-01T10:0${i}:00Z`,
      updated_at: `2026-12-01T11:0${i}:00Z`,
      models: [{ name: 'qwen', done, failed: i, aborted: 0, total: 50, retries: 2, provider_errors: 1, per_min: 5, eta_s: eta }],
    });
    writeFileSync(join(dir, 'sweep-shard-0.json'), JSON.stringify(shard(0, 'done', 50, 0)));
    writeFileSync(join(dir, 'sweep-shard-2.json'), JSON.stringify(shard(2, 'running', 20, 360)));
    writeFileSync(join(dir, 'sweep-shard-1.json'), JSON.stringify(shard(1, 'interrupted', 30, 240)));
    expect(readSweepStatus(dir)).toEqual({
      run_id: 'sweep-7',
      pid: 4002,
      status: 'running',
      started_at: '2026-12-01T10:00:00Z',
      updated_at: '2026-12-01T11:02:00Z',
      models: [{ name: 'qwen', done: 100, failed: 3, aborted: 0, total: 150, retries: 6, provider_errors: 3, per_min: 15, eta_s: 360 }],
    });
    // One shard alone reads as it is; a bad shard file is named.
    const one = tempDir();
    writeFileSync(join(one, 'sweep-shard-3.json'), JSON.stringify(shard(3, 'done', 50, 0)));
    expect(readSweepStatus(one)).toMatchObject({ pid: 4003, status: 'done' });
    writeFileSync(join(dir, 'sweep-shard-4.json'), '{');
    expect(() => readSweepStatus(dir)).toThrow(`${join(dir, 'sweep-shard-4.json')}: not valid JSON`);
  });
});
