/**
 * How many episodes a sweep keeps in flight on this machine, across all its models (docs/sweeps.md,
 * "How many episodes at once"). Each model may have up to replicas x per-replica concurrency in
 * flight; past some number the machine itself (rendering views, encoding images, writing records)
 * is the bottleneck, and more in flight only costs memory and garbage collection.
 *
 * Without `--concurrency` the limit follows the machine, measured while the sweep runs. It starts at
 * the models' capacity; every window it reads the process's CPU time (all its threads, over the cores
 * it may use) and the main thread's event-loop utilisation. When either is at 90% or more geolab is
 * CPU-bound and the limit falls by a quarter, but not under six episodes per core (enough to keep
 * the cores busy while others wait on the endpoint); when episodes waited on the limit while the
 * machine had room (both under 75%) it rises again, by half while under 50% busy and by a core's
 * worth otherwise, up to the capacity. With `--concurrency` the limit is the capacity, fixed: the
 * user has said.
 */
import { availableParallelism } from 'node:os';
import { readFileSync } from 'node:fs';
import { performance, type EventLoopUtilization } from 'node:perf_hooks';

/** Busier than this (CPU share or event loop), geolab is the bottleneck. */
export const CPU_BOUND = 0.9;
/** Under this, there is room for more in flight. */
const ROOM = 0.75;
const IDLE = 0.5;
export const WINDOW_MS = 2_000;
/** The least a CPU-bound machine keeps in flight, per core. */
const PER_CORE = 6;

/** What one window measured. */
export interface Window {
  /** The process's CPU time over the window's wall time x cores, 0..1 (may pass 1 briefly). */
  cpu: number;
  /** The main thread's event-loop utilisation, 0..1. */
  elu: number;
  /** Whether the limit held episodes back during the window (some waited, or as many as it allows are in flight). */
  waited: boolean;
}

export interface Bounds {
  min: number;
  max: number;
  /** The step up when the machine has some room (a core's worth). */
  step: number;
}

export const cpuBound = (w: Window): boolean => w.cpu >= CPU_BOUND || w.elu >= CPU_BOUND;

/** The next limit after a window: down a quarter when CPU-bound, up when episodes waited with room to spare. */
export function nextLimit(limit: number, w: Window, b: Bounds): number {
  let next = limit;
  if (cpuBound(w)) next = Math.floor(limit * 0.75);
  else if (w.waited && w.cpu < ROOM && w.elu < ROOM) next = w.cpu < IDLE && w.elu < IDLE ? Math.ceil(limit * 1.5) : limit + b.step;
  return Math.max(b.min, Math.min(b.max, next));
}

/** The cores this process may use: the CPUs it sees, or fewer under a cgroup CPU quota (a container's `cpus`). */
export function usableCores(): number {
  const cpus = availableParallelism();
  try {
    // cgroup v2: "max 100000" (no quota) or "<quota> <period>".
    const [quota, period] = readFileSync('/sys/fs/cgroup/cpu.max', 'utf8').trim().split(/\s+/);
    const share = Number(quota) / Number(period);
    if (Number.isFinite(share) && share > 0) return Math.max(1, Math.min(cpus, Math.ceil(share)));
  } catch {
    // No cgroup v2 file: the CPUs seen.
  }
  return cpus;
}

export interface ThrottleState {
  limit: number;
  inFlight: number;
  /** The last window's figures (null before the first). */
  cpu: number | null;
  elu: number | null;
  cpuBound: boolean;
  adaptive: boolean;
  /** Windows measured, and those in which geolab was CPU-bound. */
  windows: number;
  boundWindows: number;
}

export interface ThrottleOptions {
  /** The most ever in flight: the sum of the models' replicas x per-replica concurrency. */
  max: number;
  /** Fixed at `max` (the user gave --concurrency), or following the machine. */
  adaptive: boolean;
  cores?: number;
  windowMs?: number;
}

/** A gate every episode passes before it starts, first come first served, with a limit that may move. */
export class Throttle {
  private limitNow: number;
  private inFlight = 0;
  private readonly waiting: (() => void)[] = [];
  private waitedInWindow = false;
  private last: Window | null = null;
  private windows = 0;
  private boundWindows = 0;
  private readonly bounds: Bounds;
  private readonly cores: number;
  private timer: NodeJS.Timeout | null = null;
  private cpuAt = process.cpuUsage();
  private wallAt = performance.now();
  private eluAt: EventLoopUtilization = performance.eventLoopUtilization();

  constructor(private readonly options: ThrottleOptions) {
    this.cores = options.cores ?? usableCores();
    const max = Math.max(1, options.max);
    this.bounds = { min: Math.min(max, PER_CORE * this.cores), max, step: this.cores };
    this.limitNow = max;
    this.timer = setInterval(() => this.measure(), options.windowMs ?? WINDOW_MS);
    this.timer.unref();
  }

  /** Waits for a place; rejects when the signal aborts first (the episode never started). */
  acquire(signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    if (this.inFlight < this.limitNow && this.waiting.length === 0) {
      this.inFlight++;
      return Promise.resolve();
    }
    this.waitedInWindow = true;
    return new Promise((resolve, reject) => {
      const go = () => {
        signal.removeEventListener('abort', abort);
        this.inFlight++;
        resolve();
      };
      const abort = () => {
        const at = this.waiting.indexOf(go);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(signal.reason as Error);
      };
      signal.addEventListener('abort', abort, { once: true });
      this.waiting.push(go);
    });
  }

  release(): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    this.wake();
  }

  state(): ThrottleState {
    return {
      limit: this.limitNow,
      inFlight: this.inFlight,
      cpu: this.last?.cpu ?? null,
      elu: this.last?.elu ?? null,
      cpuBound: this.last !== null && cpuBound(this.last),
      adaptive: this.options.adaptive,
      windows: this.windows,
      boundWindows: this.boundWindows,
    };
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** One window's figures, and the limit they call for. */
  private measure(): void {
    const cpu = process.cpuUsage(this.cpuAt);
    const wall = performance.now();
    const elu = performance.eventLoopUtilization(this.eluAt);
    const window: Window = {
      cpu: (cpu.user + cpu.system) / 1000 / Math.max(1, wall - this.wallAt) / this.cores,
      elu: elu.utilization,
      // Still waiting now counts too (a window may pass without a new episode asking), and so does
      // a limit that binds: more are in flight than it allows after it fell.
      waited: this.waitedInWindow || this.waiting.length > 0 || this.inFlight >= this.limitNow,
    };
    this.cpuAt = process.cpuUsage();
    this.wallAt = wall;
    this.eluAt = performance.eventLoopUtilization();
    this.waitedInWindow = false;
    this.last = window;
    this.windows++;
    if (cpuBound(window)) this.boundWindows++;
    if (this.options.adaptive) {
      this.limitNow = nextLimit(this.limitNow, window, this.bounds);
      this.wake();
    }
  }

  private wake(): void {
    while (this.inFlight < this.limitNow && this.waiting.length > 0) this.waiting.shift()!();
  }
}
