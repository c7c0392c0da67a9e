/**
 * The sweep's machine limit (docs/sweeps.md, "How many episodes at once"): the rule that moves it,
 * and the gate that holds episodes to it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cpuBound, nextLimit, Throttle, usableCores, type Bounds, type Window } from '../../src/eval/run/throttle.js';

const bounds: Bounds = { min: 2, max: 24, step: 2 };
const w = (cpu: number, elu: number, waited = true): Window => ({ cpu, elu, waited });

describe('nextLimit', () => {
  it('falls by a quarter when geolab is CPU-bound, by the process or by its event loop', () => {
    expect(nextLimit(16, w(0.95, 0.3), bounds)).toBe(12);
    expect(nextLimit(16, w(0.4, 0.92), bounds)).toBe(12);
    expect(nextLimit(2, w(1, 1), bounds)).toBe(2);
  });

  it('rises only when episodes waited on it and the machine had room', () => {
    expect(nextLimit(8, w(0.6, 0.6), bounds)).toBe(10);
    expect(nextLimit(8, w(0.2, 0.3), bounds)).toBe(12);
    expect(nextLimit(8, w(0.2, 0.3, false), bounds)).toBe(8);
    expect(nextLimit(8, w(0.8, 0.3), bounds)).toBe(8);
    expect(nextLimit(20, w(0.1, 0.1), bounds)).toBe(24);
  });

  it('stays within its bounds, never rises when CPU-bound, never moves without cause', () => {
    const share = fc.double({ min: 0, max: 1.5, noNaN: true });
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 64 }), fc.integer({ min: 1, max: 64 }), fc.integer({ min: 1, max: 8 }), share, share, fc.boolean(), (min, span, step, cpu, elu, waited) => {
        const b = { min, max: min + span, step };
        const limit = min + Math.floor(span / 2);
        const next = nextLimit(limit, { cpu, elu, waited }, b);
        expect(next).toBeGreaterThanOrEqual(b.min);
        expect(next).toBeLessThanOrEqual(b.max);
        if (cpuBound({ cpu, elu, waited })) expect(next).toBeLessThanOrEqual(limit);
        else if (!waited) expect(next).toBe(limit);
        else expect(next).toBeGreaterThanOrEqual(limit);
      }),
    );
  });
});

describe('Throttle', () => {
  it('never lets more than its limit in flight, and lets them in first come first served', async () => {
    const throttle = new Throttle({ max: 3, adaptive: false, cores: 2 });
    try {
      const signal = new AbortController().signal;
      const started: number[] = [];
      let inFlight = 0;
      let peak = 0;
      await Promise.all(
        Array.from({ length: 12 }, async (_, i) => {
          await throttle.acquire(signal);
          started.push(i);
          peak = Math.max(peak, ++inFlight);
          await new Promise((r) => setTimeout(r, 1 + (i % 3)));
          inFlight--;
          throttle.release();
        }),
      );
      expect(peak).toBe(3);
      expect(started).toEqual([...started].sort((a, b) => a - b));
      expect(throttle.state()).toMatchObject({ limit: 3, inFlight: 0, adaptive: false });
    } finally {
      throttle.close();
    }
  });

  it('an interrupted wait takes no place and starts nothing', async () => {
    const throttle = new Throttle({ max: 1, adaptive: false, cores: 1 });
    try {
      const held = new AbortController();
      await throttle.acquire(held.signal);
      const waiting = new AbortController();
      const wait = throttle.acquire(waiting.signal);
      waiting.abort(new Error('interrupted'));
      await expect(wait).rejects.toThrow('interrupted');
      throttle.release();
      expect(throttle.state().inFlight).toBe(0);
      await throttle.acquire(held.signal);
      expect(throttle.state().inFlight).toBe(1);
    } finally {
      throttle.close();
    }
  });

  it('following the machine, it starts at its capacity and falls when the process is busy, to no fewer than six per core', async () => {
    const throttle = new Throttle({ max: 24, adaptive: true, cores: 2, windowMs: 20 });
    try {
      expect(throttle.state().limit).toBe(24);
      // Busy the event loop for a while: a window must see it.
      const until = performance.now() + 120;
      while (performance.now() < until) Math.sqrt(Math.random());
      await new Promise((r) => setTimeout(r, 60));
      const state = throttle.state();
      expect(state.windows).toBeGreaterThan(0);
      expect(state.cpu).not.toBeNull();
      expect(state.boundWindows).toBeGreaterThan(0);
      // Bound, nobody waiting: down a quarter at least once, never under 6 x 2 cores.
      expect(state.limit).toBeLessThanOrEqual(18);
      expect(state.limit).toBeGreaterThanOrEqual(12);
    } finally {
      throttle.close();
    }
    const small = new Throttle({ max: 3, adaptive: true, cores: 2 });
    expect(small.state().limit).toBe(3);
    small.close();
  });

  it('counts the cores it may use', () => {
    expect(usableCores()).toBeGreaterThanOrEqual(1);
  });
});
