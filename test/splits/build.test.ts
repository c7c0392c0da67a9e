import { describe, expect, it } from 'vitest';
import { haversineKm } from '../../src/core/geodesy.js';
import { hashString, seededRandom } from '../../src/core/random.js';
import { buildSplits, DEFAULT_SPLIT_OPTIONS, type SplitOptions } from '../../src/splits/build.js';
import { asTasks, CENTRES, northOf, spreadPool, type PoolTask } from './pools.js';

const options = (over: Partial<SplitOptions> = {}): SplitOptions => ({ ...DEFAULT_SPLIT_OPTIONS, ...over });
const sourceIds = (tasks: { meta?: Record<string, unknown> }[]) => tasks.map((t) => t.meta?.pool_task_id as string);

describe('buildSplits', () => {
  it('caps eval per country and stops at the eval size', () => {
    const pool = asTasks(spreadPool(['France', 'Germany', 'Italy', 'Japan', 'Brazil', 'Kenya'], 10));
    const capped = buildSplits(pool, options({ evalSize: 100, evalPerCountry: 3 }));
    expect(Object.values(capped.perCountry).map((r) => r.eval)).toEqual([3, 3, 3, 3, 3, 3]);
    const sized = buildSplits(pool, options({ evalSize: 10, evalPerCountry: 3 }));
    expect(sized.eval).toHaveLength(10);
    expect(Math.max(...Object.values(sized.perCountry).map((r) => r.eval))).toBeLessThanOrEqual(3);
  });

  it('orders by offline_ready, then quality; the seed only breaks ties, whatever the file order', () => {
    const [lat, lon] = CENTRES.France!;
    const at = (km: number) => northOf(lat, lon, km);
    const pool: PoolTask[] = [
      { country: 'France', ...at(0), quality: 0.99, offlineReady: false },
      { country: 'France', ...at(50), quality: 0.2, offlineReady: true },
      { country: 'France', ...at(100), quality: 0.9, offlineReady: true },
      { country: 'France', ...at(150), quality: 0.5, offlineReady: true },
    ];
    const r = buildSplits(asTasks(pool), options({ evalSize: 2 }));
    expect(sourceIds(r.eval).sort()).toEqual(['pool-2', 'pool-3']);

    const ties = asTasks(spreadPool(['France', 'Germany', 'Italy', 'Japan'], 6).map((t) => ({ ...t, quality: 0.5 })));
    const pick = (tasks: typeof ties, seed: number) => sourceIds(buildSplits(tasks, options({ evalSize: 5, evalPerCountry: 2, seed })).eval).sort();
    const shuffled = [...ties].reverse().map((t, i) => ({ ...t, task_index: i }));
    expect(pick(ties, 7)).toEqual(pick(ties, 7));
    expect(pick(shuffled, 7)).toEqual(pick(ties, 7));
    const seeds = new Set([1, 2, 3, 4, 5, 6].map((s) => pick(ties, s).join()));
    expect(seeds.size).toBeGreaterThan(1);
  });

  it('selects exactly the tasks the documented tiebreak gives for a seed', () => {
    // Equal readiness and quality: the order is mulberry32(fnv1a(seed NUL task_id)) ascending, capped per country.
    const ties = asTasks(spreadPool(['France', 'Germany', 'Italy', 'Japan'], 6).map((t) => ({ ...t, quality: 0.5 })));
    for (const seed of [0, 7, 123456]) {
      const key = (id: string) => seededRandom(hashString(`${seed}\u0000${id}`))();
      const ranked = [...ties].sort((a, b) => key(a.task_id) - key(b.task_id));
      const taken: Record<string, number> = {};
      const expected: string[] = [];
      for (const t of ranked) {
        if (expected.length === 7) break;
        if ((taken[t.country!] ?? 0) >= 2) continue;
        taken[t.country!] = (taken[t.country!] ?? 0) + 1;
        expected.push(t.task_id);
      }
      const r = buildSplits(ties, options({ evalSize: 7, evalPerCountry: 2, seed }));
      expect(sourceIds(r.eval).sort()).toEqual(expected.sort());
    }
  });

  it('keeps no sequence in both splits', () => {
    const pool = spreadPool(['France'], 6);
    pool[0]!.sequence = 'shared';
    pool[5]!.sequence = 'shared';
    const r = buildSplits(asTasks(pool), options({ evalSize: 1 }));
    expect(sourceIds(r.eval)).toEqual(['pool-0']);
    expect(sourceIds(r.train)).not.toContain('pool-5');
    expect(r.dropped.shared_sequence).toBe(1);
    expect(r.problems).toEqual([]);
  });

  it('keeps a train task exactly at the buffer and drops one just inside it', () => {
    for (const bufferKm of [1, 2.5]) {
      const [lat, lon] = CENTRES.Italy!;
      const atBuffer = northOf(lat, lon, bufferKm);
      const inside = northOf(lat, lon, -(bufferKm - 0.001));
      const pool: PoolTask[] = [
        { country: 'Italy', lat, lon, quality: 1 },
        { country: 'Italy', ...atBuffer, quality: 0 },
        { country: 'Italy', ...inside, quality: 0 },
      ];
      expect(haversineKm(lat, lon, atBuffer.lat, atBuffer.lon)).toBeCloseTo(bufferKm, 9);
      const r = buildSplits(asTasks(pool), options({ evalSize: 1, bufferKm }));
      expect(sourceIds(r.train)).toEqual(['pool-1']);
      expect(r.dropped.buffer).toBe(1);
      expect(r.closestCrossKm).toBe(bufferKm);
    }
  });

  it('drops train tasks of eval contributors only when contributor-exclusive', () => {
    const pool = spreadPool(['Kenya'], 4);
    pool[0]!.username = 'alice';
    pool[3]!.username = 'alice';
    const open = buildSplits(asTasks(pool), options({ evalSize: 1 }));
    expect(sourceIds(open.train)).toContain('pool-3');
    expect(open.check.shared_contributors.listed).toEqual(['alice']);
    const exclusive = buildSplits(asTasks(pool), options({ evalSize: 1, contributorExclusive: true }));
    expect(sourceIds(exclusive.train)).toEqual(['pool-1', 'pool-2']);
    expect(exclusive.dropped.contributor).toBe(1);
    expect(exclusive.problems).toEqual([]);
  });

  it('filters countries and caps train per country, counting both', () => {
    const pool = asTasks(spreadPool(['France', 'Germany', 'Japan'], 5));
    const r = buildSplits(pool, options({ evalSize: 3, evalPerCountry: 1, countries: ['France', 'Germany'], trainPerCountry: 2 }));
    expect(Object.keys(r.perCountry).sort()).toEqual(['France', 'Germany']);
    expect(r.dropped.country_filter).toBe(5);
    expect(r.train).toHaveLength(4);
    expect(r.dropped.cap).toBe(10 - 2 - 4);
    const ex = buildSplits(pool, options({ excludeCountries: ['Japan'] }));
    expect(ex.dropped.country_filter).toBe(5);
  });

  it('renumbers both splits contiguously as eval-%05d / train-%05d', () => {
    const r = buildSplits(asTasks(spreadPool(['France', 'Brazil'], 7)), options({ evalSize: 4, evalPerCountry: 2 }));
    expect(r.eval.map((t) => t.task_index)).toEqual([0, 1, 2, 3]);
    expect(r.eval.map((t) => t.task_id)).toEqual(['eval-00000', 'eval-00001', 'eval-00002', 'eval-00003']);
    expect(r.train.map((t) => t.task_index)).toEqual(r.train.map((_, i) => i));
    expect(r.train.at(-1)!.task_id).toBe(`train-${String(r.train.length - 1).padStart(5, '0')}`);
  });

  it('refuses when eval must be offline-ready and the pool has too few such tasks', () => {
    const pool = spreadPool(['Japan'], 5).map((t, i) => ({ ...t, offlineReady: i < 2 }));
    const r = buildSplits(asTasks(pool), options({ evalSize: 3, evalPerCountry: 5, requireOfflineReady: true }));
    expect(r.problems.join()).toMatch(/1 eval task\(s\) not offline-ready/);
    expect(buildSplits(asTasks(pool), options({ evalSize: 2, evalPerCountry: 5, requireOfflineReady: true })).problems).toEqual([]);
  });
});

describe('buildSplits refuses an empty side', () => {
  it('names an empty eval and an empty train as problems', () => {
    const pool = asTasks(spreadPool(['France'], 3));
    expect(buildSplits(pool, options({ evalSize: 0 })).problems.join()).toContain('eval split would be empty');
    expect(buildSplits(pool, options({ evalSize: 3, evalPerCountry: 3 })).problems.join()).toContain('train split would be empty');
  });
});
