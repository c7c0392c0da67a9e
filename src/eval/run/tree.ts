/**
 * A sweep's output folder: the harness's layout (`<out>/<run-id>/episodes.jsonl` + run.json, or
 * `<out>/pass-<p>/shard-<i>/...` when sharded), the lock that keeps it to one sweep at a time
 * (`sweep.lock`, holding the PID; a sharded sweep's shards share the folder, each holding its own
 * `shard-<i>.lock`), the status file the TUI reads (`sweep.json`), and what is already
 * recorded in it, for resuming.
 */
import { closeSync, fstatSync, openSync, readFileSync, readdirSync, readSync, unlinkSync, writeFileSync, appendFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { GeolabError, InputError } from '../../core/errors.js';
import { byteLinesSync, EPISODE_FILE, runTreeEpisodeFiles, writeFileAtomic, type SkippedEntry } from '../../files.js';
import { isSettled, recordKey } from './plan.js';
import { readSweepStatus, SWEEP_FILE, type SweepStatus } from '../sweep-status.js';
import { processAlive } from '../../processes.js';

export const LOCK_FILE = 'sweep.lock';
/** The lock of shard `index` of a sweep whose shards share one folder. */
export const shardLockFile = (index: number): string => `shard-${index}.lock`;
const SHARD_LOCK = /^shard-(\d+)\.lock$/;
/** Failed records a re-run played again: kept beside the episodes, out of every report's way. */
export const SUPERSEDED_FILE = 'superseded.jsonl';

/** Where a sample's episodes go. */
export function runDirFor(out: string, runId: string, shard: { index: number } | undefined, sample: number): string {
  return shard ? join(out, `pass-${sample}`, `shard-${shard.index}`) : join(out, runId);
}

export interface SweepLock {
  /** Said when the lock was taken over from a process that is gone. */
  note: string | null;
  release(): void;
}

interface LockHolder {
  pid: number;
  host: string;
  started_at: string;
  shard?: string;
}

/**
 * Takes `<out>/sweep.lock` for this process, or with a shard `<out>/shard-<i>.lock`, so the shards of
 * one sweep write one folder side by side while two processes never play the same shard. A lock whose
 * process is no longer running on this machine is taken over (with a note); a live one, or one from
 * another machine, refuses. An unsharded sweep and a sharded one do not share a folder: each refuses
 * while the other kind's lock is held by a live process (or one on another machine).
 */
export function lockSweep(out: string, shard?: { index: number; count: number }): SweepLock {
  const name = shard ? shardLockFile(shard.index) : LOCK_FILE;
  const file = join(out, name);
  const what = shard ? `shard ${shard.index}` : 'sweep';
  const mine: LockHolder = { pid: process.pid, host: hostname(), started_at: new Date().toISOString(), ...(shard ? { shard: `${shard.index}/${shard.count}` } : {}) };
  refuseOtherKind(out, shard !== undefined, mine.host);
  let note: string | null = null;
  try {
    writeFileSync(file, JSON.stringify(mine) + '\n', { flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const holder = readHolder(file);
    if (holder && holder.host !== mine.host) {
      throw new GeolabError(`refusing to start: ${file} is held by PID ${holder.pid} on ${holder.host}, so another ${what} is writing ${out}; remove the file if that ${what} is over`);
    }
    // Our own PID in the file on this host is a process that died with it (a container restarted as PID 1).
    if (holder && holder.pid !== process.pid && processAlive(holder.pid)) {
      throw new GeolabError(
        shard
          ? `refusing to start: shard ${shard.index} of ${out} is already being played (PID ${holder.pid}, since ${holder.started_at}; ${file}); two processes were given the same shard`
          : `refusing to start: another sweep (PID ${holder.pid}, since ${holder.started_at}) is writing ${out}; give another --out, or wait for it`,
      );
    }
    note = `took over ${file} from PID ${holder?.pid ?? '?'}, which is no longer running`;
    writeFileAtomic(file, JSON.stringify(mine) + '\n');
    // Two sweeps taking over at once: the one whose PID the file holds goes on.
    if (readHolder(file)?.pid !== process.pid) throw new GeolabError(`refusing to start: another ${what} took ${file} over at the same time`);
  }
  return {
    note,
    release() {
      if (readHolder(file)?.pid === process.pid) unlinkSync(file);
    },
  };
}

/** A live lock of the other kind (sharded vs not) in the folder refuses the start. */
function refuseOtherKind(out: string, sharded: boolean, host: string): void {
  const names = sharded ? [LOCK_FILE] : readdirSync(out).filter((n) => SHARD_LOCK.test(n));
  for (const name of names) {
    const holder = readHolder(join(out, name));
    if (!holder || (holder.host === host && !processAlive(holder.pid))) continue;
    throw new GeolabError(
      sharded
        ? `refusing to start: an unsharded sweep (PID ${holder.pid} on ${holder.host}) is writing ${out} (${LOCK_FILE}); shards share a folder only with other shards`
        : `refusing to start: a sharded sweep (PID ${holder.pid} on ${holder.host}, ${join(out, name)}) is writing ${out}; give --shard, or another --out`,
    );
  }
}

function readHolder(file: string): LockHolder | null {
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as Partial<LockHolder>;
    return typeof value.pid === 'number' ? { pid: value.pid, host: String(value.host ?? ''), started_at: String(value.started_at ?? '?') } : null;
  } catch {
    return null;
  }
}

export interface Recorded {
  /** Keys of the episodes that count as done. */
  done: Set<string>;
  /** What was tidied: a torn last line dropped, failed records set aside to be played again. */
  notes: string[];
  /** Episode ids of the failed records set aside. */
  superseded: string[];
  /** What the walk of the tree passed over, and why (a symlinked folder, a file reached twice). */
  skipped: SkippedEntry[];
}

/**
 * Reads every episode file under `out` (the lock held) for the resume set. A last line cut off by a
 * killed process is dropped; failed records a re-run plays again (aborted, service gone) move to
 * superseded.jsonl, so the tree keeps one record per episode. A file is rewritten only when it changes,
 * in one step. With a shard, only that shard's files (`pass-<p>/shard-<i>/`) are tidied: the other
 * shards' files are being appended to by their own processes, so they are only read, their settled
 * complete lines counted as done and the rest (a line still being written, a failure their shard will
 * play again) left alone.
 */
export function readRecorded(out: string, shard?: { index: number }): Recorded {
  const done = new Set<string>();
  const notes: string[] = [];
  const supersededIds: string[] = [];
  const own = shard === undefined ? null : new RegExp(`(^|/)pass-\\d+/shard-${shard.index}/${EPISODE_FILE.replace('.', '\\.')}$`);
  // The one walk and the one line reader (src/files.ts): no symlinked folder followed, no line past the cap.
  const { files, skipped } = runTreeEpisodeFiles(out);
  for (const file of files) {
    const torn = !endsWithNewline(file);
    if (own && !own.test(file.slice(out.length + 1))) {
      // Only complete lines count: the last one of a torn file may still be being written.
      let pending: string | null = null;
      for (const { bytes } of byteLinesSync(file)) {
        if (pending) done.add(pending);
        pending = null;
        const text = bytes.toString('utf8');
        if (!text.trim()) continue;
        let record: unknown;
        try {
          record = JSON.parse(text);
        } catch {
          continue;
        }
        pending = isSettled(record) ? recordKey(record) : null;
      }
      if (pending && !torn) done.add(pending);
      continue;
    }
    const kept: string[] = [];
    const superseded: string[] = [];
    let dropped = false;
    // A line that is not JSON is an error unless it is the last line of a torn file: known at the next line.
    let bad: { line: number; err: Error } | null = null;
    for (const { line: number, bytes } of byteLinesSync(file)) {
      if (bad) throw new InputError(`not valid JSON: ${bad.err.message}`, { file, line: bad.line });
      const line = bytes.toString('utf8');
      if (!line.trim()) continue;
      let record: unknown;
      try {
        record = JSON.parse(line);
      } catch (err) {
        bad = { line: number, err: err as Error };
        continue;
      }
      if (!isSettled(record)) {
        superseded.push(line);
        supersededIds.push(String((record as { episode_id?: unknown }).episode_id));
        continue;
      }
      const key = recordKey(record);
      if (key) done.add(key);
      kept.push(line);
    }
    if (bad) {
      if (!torn) throw new InputError(`not valid JSON: ${bad.err.message}`, { file, line: bad.line });
      dropped = true;
      notes.push(`${file}:${bad.line}: dropped a line cut off when the sweep was killed`);
    }
    if (superseded.length > 0) {
      appendFileSync(join(file, '..', SUPERSEDED_FILE), superseded.map((l) => l + '\n').join(''));
      notes.push(`${file}: ${superseded.length} failed episode${superseded.length === 1 ? '' : 's'} (aborted, or a service gone) will be played again; the records moved to ${SUPERSEDED_FILE}`);
    }
    if (superseded.length > 0 || dropped) writeFileAtomic(file, kept.map((l) => l + '\n').join(''));
  }
  return { done, notes, superseded: supersededIds, skipped };
}

/** Whether a file is empty or its last byte is a newline (a file cut off mid-line is not). */
function endsWithNewline(file: string): boolean {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    if (size === 0) return true;
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    return last[0] === 0x0a;
  } finally {
    closeSync(fd);
  }
}

/** The run id a sweep in this folder used before (its own or a shard's status), so a re-run without --run-id resumes it. */
export function previousRunId(out: string): string | null {
  try {
    return readSweepStatus(out)?.run_id ?? null;
  } catch {
    return null;
  }
}

/** Rewrites sweep.json in one step, at most once a second unless told it is the last time. */
export class StatusWriter {
  private lastMs = -Infinity;
  private timer: NodeJS.Timeout | null = null;
  private pending: SweepStatus | null = null;

  constructor(
    private readonly out: string,
    /** sweep.json, or a shard's own file (shardStatusFile). */
    private readonly file = SWEEP_FILE,
    private readonly intervalMs = 1_000,
  ) {}

  update(status: SweepStatus): void {
    this.pending = status;
    const wait = this.lastMs + this.intervalMs - performance.now();
    if (wait <= 0) return this.flush();
    this.timer ??= setTimeout(() => this.flush(), wait);
  }

  /** Writes the latest status now (the last one of a sweep). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (!this.pending) return;
    writeFileAtomic(join(this.out, this.file), JSON.stringify(this.pending, null, 2) + '\n');
    this.pending = null;
    this.lastMs = performance.now();
  }
}
