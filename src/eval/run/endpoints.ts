/**
 * Replicas of one service (a model's vLLM replicas, environment servers) shared by a sweep's
 * episodes: each episode takes the replica with the fewest episodes in flight, within its capacity.
 * A replica that fails is taken out for a back-off that doubles with each failure in a row; once the
 * back-off has passed, the next episode tries it again (a success brings it back). When every
 * replica is out, the pool is gone, and says which replicas and why.
 */
import { setTimeout as delay } from 'node:timers/promises';

export const DEFAULT_BACKOFF_MS = 5_000;
const MAX_BACKOFF_MS = 5 * 60_000;
/** How often a waiting episode looks again for a free replica. */
const WAIT_STEP_MS = 25;

interface Replica {
  url: string;
  inFlight: number;
  /** Failures in a row; 0 when it is in. */
  failures: number;
  /** Out until then (ms on the pool's clock). */
  outUntil: number;
  lastError: string | null;
}

export interface PoolOptions {
  /** Episodes in flight per replica (Infinity: no limit). */
  capacity: number;
  backoffMs?: number;
  now?: () => number;
}

export class EndpointPool {
  private readonly replicas: Replica[];
  private readonly capacity: number;
  private readonly backoffMs: number;
  private readonly now: () => number;

  constructor(urls: readonly string[], options: PoolOptions) {
    if (urls.length === 0) throw new RangeError('a pool needs at least one endpoint');
    this.replicas = urls.map((url) => ({ url, inFlight: 0, failures: 0, outUntil: 0, lastError: null }));
    this.capacity = options.capacity;
    this.backoffMs = options.backoffMs ?? DEFAULT_BACKOFF_MS;
    this.now = options.now ?? (() => performance.now());
  }

  get urls(): string[] {
    return this.replicas.map((r) => r.url);
  }

  /**
   * A replica for one episode (release it after), or null when every replica is out: the pool is
   * gone. Waits while the usable replicas are all at capacity.
   */
  async acquire(signal?: AbortSignal): Promise<string | null> {
    for (;;) {
      signal?.throwIfAborted();
      const now = this.now();
      const usable = this.replicas.filter((r) => r.outUntil <= now);
      if (usable.length === 0) return null;
      const free = usable.filter((r) => r.inFlight < this.capacity);
      if (free.length > 0) {
        // Replicas that are in before those on trial; then the least busy.
        const best = free.reduce((a, b) => (rank(b) < rank(a) ? b : a));
        best.inFlight++;
        return best.url;
      }
      await delay(WAIT_STEP_MS, undefined, { signal });
    }
  }

  release(url: string): void {
    const replica = this.find(url);
    replica.inFlight = Math.max(0, replica.inFlight - 1);
  }

  /** The replica answered: it is in. */
  succeeded(url: string): void {
    const replica = this.find(url);
    replica.failures = 0;
    replica.outUntil = 0;
  }

  /** The replica is gone: out for a back-off that doubles with each failure in a row. */
  failed(url: string, error: string): void {
    const replica = this.find(url);
    replica.failures++;
    replica.lastError = error;
    replica.outUntil = this.now() + Math.min(MAX_BACKOFF_MS, this.backoffMs * 2 ** (replica.failures - 1));
  }

  /** Whether some replica is in or may be tried again now. */
  alive(): boolean {
    const now = this.now();
    return this.replicas.some((r) => r.outUntil <= now);
  }

  /** Every replica that failed last time it was used, with its last error (for the exit message). */
  gone(): { url: string; error: string }[] {
    return this.replicas.filter((r) => r.failures > 0).map((r) => ({ url: r.url, error: r.lastError ?? 'failed' }));
  }

  private find(url: string): Replica {
    const replica = this.replicas.find((r) => r.url === url);
    if (!replica) throw new RangeError(`${url} is not in this pool`);
    return replica;
  }
}

function rank(r: Replica): number {
  return (r.failures > 0 ? 1e9 : 0) + r.inFlight;
}
