/**
 * A least-recently-used cache bounded by bytes rather than entries: decoded panoramas range from
 * 6 MiB (2048x1024 RGB) to hundreds (full-resolution originals), so a count says little about memory.
 */
export class ByteLru<V> {
  /** Map iteration follows insertion order, so re-inserting on use keeps the oldest first. */
  private readonly entries = new Map<string, { value: V; bytes: number }>();
  private total = 0;

  /** `onEvict` hears of every value that leaves the cache: evicted, replaced, deleted or cleared. */
  constructor(
    readonly capBytes: number,
    private readonly onEvict?: (key: string, value: V, bytes: number) => void,
  ) {
    if (!(capBytes >= 0)) throw new RangeError(`cache cap must be a non-negative number of bytes, got ${capBytes}`);
  }

  get bytes(): number {
    return this.total;
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Stores a value, evicting the least recently used ones past the cap; one larger than the cap is not kept. */
  set(key: string, value: V, bytes: number): void {
    this.delete(key);
    if (bytes > this.capBytes) return;
    this.entries.set(key, { value, bytes });
    this.total += bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.total <= this.capBytes) break;
      this.entries.delete(oldest);
      this.total -= entry.bytes;
      this.onEvict?.(oldest, entry.value, entry.bytes);
    }
  }

  delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.total -= entry.bytes;
    this.onEvict?.(key, entry.value, entry.bytes);
  }

  clear(): void {
    const evicted = [...this.entries];
    this.entries.clear();
    this.total = 0;
    for (const [key, entry] of evicted) this.onEvict?.(key, entry.value, entry.bytes);
  }
}
