/**
 * A large prompt file audited on several threads (docs/audit.md, "Speed"). The file is cut into
 * ranges of whole lines; the main thread and its workers (audit-worker.ts) claim ranges one at a
 * time from a shared counter and examine their prompts (examine.ts), each thread with a session of
 * its own. The main thread hands the examined prompts to the run in the file's order, range after
 * range, with each range's lines renumbered from the file's start, so the run (repeats within an
 * episode, template counts, bad lines, repeated ids) sees exactly what a read on one thread gives.
 *
 * A worker that cannot start or dies leaves its ranges to the main thread: the audit is then slower,
 * never different.
 */
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { formatWhere, type InputError } from '../core/errors.js';
import { lineStartAtOrAfter, type ByteRange } from '../files.js';
import { startModuleWorker } from '../workers.js';
import { Examiner, type Examined } from './examine.js';
import type { OnBytes } from './sources/jsonl.js';
import { readPromptFile } from './sources/prompt-file.js';
import type { PlainTaskLookup, TaskLookup } from './sources/tasks.js';

/** How a large file is read on several threads. */
export interface ParallelPlan {
  /** Below this a file is read on one thread: a worker's start (its modules, dictionaries, tasks) would cost more than it saves. */
  minBytes: number;
  /** A range claimed at a time: small enough that the threads finish together, large enough that claiming costs nothing. */
  rangeBytes: number;
  /** Threads in all, the main one included. */
  threads: number;
  /** Whether the main thread examines ranges too (false leaves them to the workers while any is alive: tests of the workers). */
  mainExamines: boolean;
}

/** Threads at most by default: the run's own bookkeeping on the main thread bounds what more would give. */
const MAX_THREADS = 4;
/**
 * Fewer cores than this read on one thread by default. Two threads on 2 cores are a gain where the
 * second core is free: 100,000 prompts in 4.0 s against 5.1-6.1 s on one thread (7.2 s of CPU
 * against 5.8). On a machine whose cores slow each other down (two busy processes each about 1.6x
 * slower) they broke even, 4.8 s against 4.7, never a loss worth keeping a core idle for.
 */
const MIN_CORES = 2;

/** The plan: with MIN_CORES or more, the machine's cores (at most MAX_THREADS); GEOLAB_AUDIT_THREADS overrides; 32 MiB files and up, 4 MiB ranges. */
export function parallelPlan(given: Partial<ParallelPlan> = {}): ParallelPlan {
  const asked = Number(process.env.GEOLAB_AUDIT_THREADS);
  const cores = availableParallelism();
  const threads = Number.isInteger(asked) && asked >= 1 ? asked : cores >= MIN_CORES ? Math.min(cores, MAX_THREADS) : 1;
  return { minBytes: 32 * 2 ** 20, rangeBytes: 4 * 2 ** 20, threads, mainExamines: true, ...given };
}

/** A bad line of the file, as a range's read met it (its line numbered within the range until renumbered). */
export interface BadLine {
  bad: { line: number; field?: string; message: string };
}

export type RangeItem = Examined | BadLine;

/** What a thread sends for one range it examined. */
export interface RangeResult {
  index: number;
  /** Lines in the range (blank and bad ones counted), to number the next range's from. */
  lines: number;
  items: RangeItem[];
}

/** What a worker is started with (audit-worker.ts). */
export interface WorkerSetup {
  file: string;
  source: string;
  radiusKm: number;
  tasks: PlainTaskLookup;
  ranges: ByteRange[];
  /** Int32Array[1] over it: the next range to claim. */
  claims: SharedArrayBuffer;
  skipInvalid: boolean;
}

/** A worker's message: a range examined, or why it stopped. */
export type WorkerMessage = { range: WireRange } | { error: string };

/**
 * A range as sent between threads: place-line arrays by number, each array's lines sent once (with
 * the range that first holds it), so the run can keep using an array as the key it is on one thread.
 */
export interface WireRange {
  index: number;
  lines: number;
  items: (BadLine | WireExamined)[];
  newLines: [number, readonly string[]][];
}

type WireExamined = Omit<Examined, 'placeLines'> & { placeLines: number[] };

export interface ParallelOptions {
  file: string;
  source: string;
  tasks: TaskLookup;
  radiusKm: number;
  /** The main thread's examiner (its session is reused). */
  examiner: Examiner;
  skipInvalid: boolean;
  plan: ParallelPlan;
  onBytes?: OnBytes;
  /** Told, once the file is read, how many workers examined some of it. */
  onWorkers?: (workers: number) => void;
}

/** The file's prompts examined, in its order, lines numbered from its start. */
export async function* examineInParallel(options: ParallelOptions): AsyncGenerator<RangeItem> {
  const { file, source, examiner } = options;
  const ranges = splitFile(file, options.plan.rangeBytes);
  const claims = new SharedArrayBuffer(4);
  const next = new Int32Array(claims);
  const done = new Map<number, RangeResult>();
  const setup: WorkerSetup = { file, source, radiusKm: options.radiusKm, tasks: options.tasks.toPlain(), ranges, claims, skipInvalid: options.skipInvalid };
  let failure: Error | undefined;
  let wake: (() => void) | undefined;
  const workers = new Set<Worker>();
  const arrays = new Map<Worker, Map<number, readonly string[]>>();
  const examiners = new Set<Worker>();
  const workerCount = Math.max(0, Math.min(options.plan.threads - 1, ranges.length - 1));
  for (let i = 0; i < workerCount; i++) {
    let worker: Worker;
    try {
      worker = startModuleWorker(import.meta.url, 'audit-worker', { workerData: setup });
    } catch {
      break; // the main thread reads on alone
    }
    workers.add(worker);
    arrays.set(worker, new Map());
    const gone = () => {
      workers.delete(worker);
      wake?.();
    };
    worker.on('message', (message: WorkerMessage) => {
      if ('error' in message) failure ??= new Error(message.error);
      else {
        done.set(message.range.index, fromWire(message.range, arrays.get(worker) as Map<number, readonly string[]>));
        examiners.add(worker);
      }
      wake?.();
    });
    worker.on('error', gone);
    worker.on('exit', gone);
  }
  try {
    let base = 0;
    for (let index = 0; index < ranges.length; index++) {
      let result = done.get(index);
      while (!result) {
        if (failure) throw failure;
        const claimed = options.plan.mainExamines || workers.size === 0 ? Atomics.add(next, 0, 1) : ranges.length;
        if (claimed < ranges.length) {
          done.set(claimed, await examineRange(file, source, examiner, ranges, claimed, options.skipInvalid));
          // Let the workers' messages in between ranges.
          await new Promise((resolve) => setImmediate(resolve));
        } else if (workers.size > 0) {
          await new Promise<void>((resolve) => (wake = resolve));
          wake = undefined;
        } else {
          // Claimed by a worker that is gone: read here.
          done.set(index, await examineRange(file, source, examiner, ranges, index, options.skipInvalid));
        }
        result = done.get(index);
      }
      done.delete(index);
      options.onBytes?.(byteSize(ranges[index] as ByteRange));
      for (const item of result.items) yield renumbered(item, base);
      base += result.lines;
    }
    options.onWorkers?.(examiners.size);
  } finally {
    for (const worker of workers) void worker.terminate();
  }
}

/**
 * One range's prompts examined (on whichever thread claimed it). A bad line ends the range unless
 * bad lines are skipped: a run that stops on it never reads past it.
 */
export async function examineRange(file: string, source: string, examiner: Examiner, ranges: readonly ByteRange[], index: number, skipInvalid: boolean): Promise<RangeResult> {
  const items: RangeItem[] = [];
  const stop = new Error('stop at the bad line');
  const onInvalid = (error: InputError) => {
    const where = error.where;
    items.push({ bad: { line: where.line ?? 0, ...(where.field !== undefined ? { field: where.field } : {}), message: error.message.slice(formatWhere(where).length) } });
    if (!skipInvalid) throw stop;
  };
  const prompts = readPromptFile(file, source, undefined, onInvalid, ranges[index]);
  try {
    for (;;) {
      const next = await prompts.next();
      if (next.done) return { index, lines: next.value, items };
      items.push(await examiner.examine(next.value));
    }
  } catch (err) {
    if (err !== stop) throw err;
    return { index, lines: 0, items };
  }
}

/** A range for another thread: place-line arrays by number, those not sent before with their lines. */
export function toWire(result: RangeResult, ids: Map<readonly string[], number>): WireRange {
  const newLines: [number, readonly string[]][] = [];
  const idOf = (lines: readonly string[]) => {
    let id = ids.get(lines);
    if (id === undefined) {
      id = ids.size;
      ids.set(lines, id);
      newLines.push([id, lines]);
    }
    return id;
  };
  const items = result.items.map((item) => ('bad' in item ? item : { ...item, placeLines: item.placeLines.map(idOf) }));
  return { index: result.index, lines: result.lines, items, newLines };
}

function fromWire(wire: WireRange, arrays: Map<number, readonly string[]>): RangeResult {
  for (const [id, lines] of wire.newLines) arrays.set(id, lines);
  const items = wire.items.map((item) => ('bad' in item ? item : { ...item, placeLines: item.placeLines.map((id) => arrays.get(id) as readonly string[]) }));
  return { index: wire.index, lines: wire.lines, items };
}

function renumbered(item: RangeItem, base: number): RangeItem {
  if (base === 0) return item;
  if ('bad' in item) return { bad: { ...item.bad, line: item.bad.line + base } };
  return item.line === undefined ? item : { ...item, line: item.line + base };
}

/** The file cut into ranges of whole lines of about `bytes` each. */
export function splitFile(file: string, bytes: number): ByteRange[] {
  const ranges: ByteRange[] = [];
  let start = 0;
  for (;;) {
    const end = lineStartAtOrAfter(file, start + bytes);
    if (end <= start) break;
    ranges.push({ start, end });
    start = end;
  }
  return ranges;
}

function byteSize(range: ByteRange): number {
  return range.end - range.start;
}
