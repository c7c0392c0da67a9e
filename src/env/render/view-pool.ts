/**
 * Reprojection on worker threads: each view is cut into one band of rows per worker, drawn in
 * parallel into shared memory, so a single view uses every core and concurrent sessions keep them
 * all busy (docs/budgets.md), while the main thread stays free for the protocol. Panoramas are shared,
 * not copied: their pixels must live in a SharedArrayBuffer (see toShared). JPEG encoding stays
 * with sharp, which already works off the main thread.
 */
import type { Worker } from 'node:worker_threads';
import { startModuleWorker } from '../../workers.js';
import type { PackedPanorama } from './reproject.js';

export interface ViewJob {
  pano: PackedPanorama;
  yawDeg: number;
  pitchDeg: number;
  fovDeg: number;
  sizePx: number;
}

/** One worker's share of a view: rows [rowStart, rowEnd) drawn into the shared `out`. */
export interface BandJob extends ViewJob {
  out: Uint8Array;
  rowStart: number;
  rowEnd: number;
}

export type BandReply = { ok: true } | { error: string };

/** Asks a worker to collect its garbage, i.e. to let go of the panoramas it was sent; no reply. */
export interface CollectMessage {
  collect: true;
}

interface Pending {
  job: BandJob;
  resolve: () => void;
  reject: (error: Error) => void;
}

/** A panorama whose pixels every worker can read in place. */
export function toShared(image: PackedPanorama): PackedPanorama {
  const data = new Uint32Array(new SharedArrayBuffer(image.data.byteLength));
  data.set(image.data);
  return { data, width: image.width, height: image.height };
}

/** A view buffer (sizePx * sizePx RGB bytes) the workers can draw into: ViewPool.run's `out`. */
export function sharedViewBuffer(sizePx: number): Uint8Array {
  return new Uint8Array(new SharedArrayBuffer(sizePx * sizePx * 3));
}

export class ViewPool {
  private readonly idle: Worker[] = [];
  private readonly busy = new Map<Worker, Pending>();
  private readonly queue: Pending[] = [];
  /** Workers that have answered at least once: only those are replaced when they die. */
  private readonly proven = new WeakSet<Worker>();
  private failure: Error | undefined;

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`worker count must be a positive integer, got ${size}`);
    for (let i = 0; i < size; i++) this.idle.push(this.spawn());
  }

  /** Draws the view's RGB pixels into `out` (from sharedViewBuffer), in one band per worker. */
  async run(job: ViewJob, out: Uint8Array): Promise<void> {
    if (this.failure) throw this.failure;
    if (!(out.buffer instanceof SharedArrayBuffer) || out.length !== job.sizePx * job.sizePx * 3) {
      throw new RangeError(`a ${job.sizePx} px view needs a shared buffer of ${job.sizePx * job.sizePx * 3} bytes`);
    }
    const bands = Math.min(this.size, job.sizePx);
    await Promise.all(
      Array.from({ length: bands }, (_, b) => {
        const rowStart = Math.floor((b * job.sizePx) / bands);
        const rowEnd = Math.floor(((b + 1) * job.sizePx) / bands);
        return new Promise<void>((resolve, reject) => {
          this.queue.push({ job: { ...job, out, rowStart, rowEnd }, resolve, reject });
          this.dispatch();
        });
      }),
    );
  }

  /**
   * Has every worker collect its garbage after its current band: a worker keeps a handle to every
   * panorama it was sent until it collects, which, allocating little, it otherwise seldom does.
   */
  collect(): void {
    for (const worker of [...this.idle, ...this.busy.keys()]) worker.postMessage({ collect: true } satisfies CollectMessage);
  }

  /** Stops the workers; views queued or in flight are rejected. */
  async close(): Promise<void> {
    this.fail(new Error('the view renderer was closed'));
    for (const pending of this.busy.values()) pending.reject(this.failure!);
    const workers = [...this.idle, ...this.busy.keys()];
    this.idle.length = 0;
    this.busy.clear();
    await Promise.all(workers.map((worker) => worker.terminate()));
  }

  private dispatch(): void {
    while (this.idle.length > 0 && this.queue.length > 0) {
      const worker = this.idle.pop()!;
      const pending = this.queue.shift()!;
      this.busy.set(worker, pending);
      worker.ref(); // an answer is awaited: keep the process alive until it comes
      worker.postMessage(pending.job);
    }
  }

  private spawn(): Worker {
    const worker = startViewWorker();
    worker.unref(); // an idle pool must not keep the process alive
    worker.on('message', (reply: BandReply) => {
      const pending = this.busy.get(worker);
      this.busy.delete(worker);
      this.proven.add(worker);
      worker.unref();
      this.idle.push(worker);
      if ('ok' in reply) pending?.resolve();
      else pending?.reject(new Error(reply.error));
      this.dispatch();
    });
    worker.on('error', (error) => {
      this.busy.get(worker)?.reject(error);
      this.busy.delete(worker);
      const at = this.idle.indexOf(worker);
      if (at >= 0) this.idle.splice(at, 1);
      if (this.failure) return;
      // A worker that never answered failed to start (e.g. a broken install): starting another
      // would fail the same way, over and over. Fail the pool once it has no worker left.
      if (this.proven.has(worker)) this.idle.push(this.spawn());
      else if (this.idle.length + this.busy.size === 0) this.fail(new Error(`view worker failed to start: ${error.message}`));
      this.dispatch();
    });
    return worker;
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const pending of this.queue.splice(0)) pending.reject(this.failure);
  }
}

/**
 * The young generation a view worker may grow to, in MiB. A worker allocates only its messages, yet
 * left to V8 its young generation doubled (heap 10 to 14 MiB) within a few hundred episodes of a
 * sweep: memory no band needs, in every worker (docs/env.md, "Memory").
 */
export const VIEW_WORKER_YOUNG_MB = 1;

/** A view worker, bundled beside this code (src/workers.ts), with a small young generation. */
export function startViewWorker(): Worker {
  return startModuleWorker(import.meta.url, 'view-worker', { resourceLimits: { maxYoungGenerationSizeMb: VIEW_WORKER_YOUNG_MB } });
}
