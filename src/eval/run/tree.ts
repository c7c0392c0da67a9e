/**
 * A sweep's output folder: the harness's layout (`<out>/<run-id>/episodes.jsonl` + run.json, or
 * `<out>/pass-<p>/shard-<i>/...` when sharded), the lock that keeps it to one sweep at a time
 * (`sweep.lock`, holding the PID), the status file the TUI reads (`sweep.json`), and what is already
 * recorded in it, for resuming.
 */
import { existsSync, readFileSync, readdirSync, unlinkSync, writeFileSync, appendFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { GeolabError, InputError } from '../../core/errors.js';
import { EPISODE_FILE, writeFileAtomic } from '../../files.js';
import { isSettled, recordKey } from './plan.js';
import { SWEEP_FILE, type SweepStatus } from '../sweep-status.js';
import { processAlive } from '../../processes.js';

export const LOCK_FILE = 'sweep.lock';
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
}

/**
 * Takes `<out>/sweep.lock` for this process. A lock whose process is no longer running on this
 * machine is taken over (with a note); a live one, or one from another machine, refuses.
 */
export function lockSweep(out: string): SweepLock {
  const file = join(out, LOCK_FILE);
  const mine: LockHolder = { pid: process.pid, host: hostname(), started_at: new Date().toISOString() };
  let note: string | null = null;
  try {
    writeFileSync(file, JSON.stringify(mine) + '\n', { flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const holder = readHolder(file);
    if (holder && holder.host !== mine.host) {
      throw new GeolabError(`refusing to start: ${file} is held by PID ${holder.pid} on ${holder.host}, so another sweep is writing ${out}; remove the file if that sweep is over`);
    }
    if (holder && processAlive(holder.pid)) {
      throw new GeolabError(`refusing to start: another sweep (PID ${holder.pid}, since ${holder.started_at}) is writing ${out}; give another --out, or wait for it`);
    }
    note = `took over ${file} from PID ${holder?.pid ?? '?'}, which is no longer running`;
    writeFileAtomic(file, JSON.stringify(mine) + '\n');
    // Two sweeps taking over at once: the one whose PID the file holds goes on.
    if (readHolder(file)?.pid !== process.pid) throw new GeolabError(`refusing to start: another sweep took ${file} over at the same time`);
  }
  return {
    note,
    release() {
      if (readHolder(file)?.pid === process.pid) unlinkSync(file);
    },
  };
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
}

/**
 * Reads every episode file under `out` (the lock held) for the resume set. A last line cut off by a
 * killed process is dropped; failed records a re-run plays again (aborted, service gone) move to
 * superseded.jsonl, so the tree keeps one record per episode. A file is rewritten only when it changes,
 * in one step.
 */
export function readRecorded(out: string): Recorded {
  const done = new Set<string>();
  const notes: string[] = [];
  const supersededIds: string[] = [];
  for (const file of episodeFiles(out)) {
    const text = readFileSync(file, 'utf8');
    const lines = text.split('\n');
    const torn = !text.endsWith('\n') && text.length > 0;
    const kept: string[] = [];
    const superseded: string[] = [];
    let dropped = false;
    lines.forEach((line, i) => {
      if (!line.trim()) return;
      let record: unknown;
      try {
        record = JSON.parse(line);
      } catch (err) {
        if (torn && i === lines.length - 1) {
          dropped = true;
          notes.push(`${file}:${i + 1}: dropped a line cut off when the sweep was killed`);
          return;
        }
        throw new InputError(`not valid JSON: ${(err as Error).message}`, { file, line: i + 1 });
      }
      if (!isSettled(record)) {
        superseded.push(line);
        supersededIds.push(String((record as { episode_id?: unknown }).episode_id));
        return;
      }
      const key = recordKey(record);
      if (key) done.add(key);
      kept.push(line);
    });
    if (superseded.length > 0) {
      appendFileSync(join(file, '..', SUPERSEDED_FILE), superseded.map((l) => l + '\n').join(''));
      notes.push(`${file}: ${superseded.length} failed episode${superseded.length === 1 ? '' : 's'} (aborted, or a service gone) will be played again; the records moved to ${SUPERSEDED_FILE}`);
    }
    if (superseded.length > 0 || dropped) writeFileAtomic(file, kept.map((l) => l + '\n').join(''));
  }
  return { done, notes, superseded: supersededIds };
}

function episodeFiles(out: string): string[] {
  if (!existsSync(out)) return [];
  return (readdirSync(out, { recursive: true }) as string[])
    .filter((entry) => entry === EPISODE_FILE || entry.endsWith(`/${EPISODE_FILE}`))
    .sort()
    .map((entry) => join(out, entry));
}

/** The run id a sweep in this folder used before, so a re-run without --run-id resumes it. */
export function previousRunId(out: string): string | null {
  try {
    const status = JSON.parse(readFileSync(join(out, SWEEP_FILE), 'utf8')) as { run_id?: unknown };
    return typeof status.run_id === 'string' ? status.run_id : null;
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
    writeFileAtomic(join(this.out, SWEEP_FILE), JSON.stringify(this.pending, null, 2) + '\n');
    this.pending = null;
    this.lastMs = performance.now();
  }
}
