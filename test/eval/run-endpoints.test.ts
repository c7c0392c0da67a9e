/** The replica pool of a sweep, on a clock of its own. */
import { describe, expect, it } from 'vitest';
import { EndpointPool } from '../../src/eval/run/endpoints.js';

function pool(urls: string[], capacity = 2) {
  let now = 0;
  const p = new EndpointPool(urls, { capacity, backoffMs: 1_000, now: () => now });
  return { p, advance: (ms: number) => (now += ms) };
}

describe('the replica pool', () => {
  it('spreads episodes over the least busy replicas within each one capacity, and waits when all are full', async () => {
    const { p } = pool(['a', 'b']);
    expect([await p.acquire(), await p.acquire(), await p.acquire(), await p.acquire()].sort()).toEqual(['a', 'a', 'b', 'b']);
    let got: string | null | undefined;
    const waiting = p.acquire().then((url) => (got = url));
    await new Promise((r) => setTimeout(r, 60));
    expect(got).toBeUndefined();
    p.release('b');
    await waiting;
    expect(got).toBe('b');
  });

  it('takes a failed replica out for a back-off that doubles, tries it again after, and is gone when all are out', async () => {
    const { p, advance } = pool(['a', 'b'], 1);
    p.failed('b', 'connection refused');
    expect(await p.acquire()).toBe('a');
    p.release('a');
    advance(999);
    expect(await p.acquire()).toBe('a');
    p.release('a');
    advance(1);
    // Back in on trial: the replica that is in goes first while it is free.
    expect(await p.acquire()).toBe('a');
    expect(await p.acquire()).toBe('b');
    p.release('a');
    p.release('b');
    p.failed('b', 'refused again');
    advance(1_999);
    p.failed('a', 'timeout');
    expect(p.alive()).toBe(false);
    expect(await p.acquire()).toBeNull();
    expect(p.gone()).toEqual([
      { url: 'a', error: 'timeout' },
      { url: 'b', error: 'refused again' },
    ]);
    advance(1);
    expect(await p.acquire()).toBe('b');
    p.succeeded('b');
    expect(p.gone()).toEqual([{ url: 'a', error: 'timeout' }]);
  });

  it('stops waiting when the sweep is interrupted', async () => {
    const { p } = pool(['a'], 1);
    await p.acquire();
    const controller = new AbortController();
    const waiting = p.acquire(controller.signal);
    controller.abort();
    await expect(waiting).rejects.toThrow();
  });
});
