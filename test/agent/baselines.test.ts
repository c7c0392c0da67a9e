import { describe, expect, it } from 'vitest';
import { fixedPolicy, geometricMedian, priorPolicy, randomLandPoint, randomLandPolicy } from '../../src/agent/policies/baselines.js';
import type { PolicyContext } from '../../src/agent/types.js';
import { haversineKm } from '../../src/core/geodesy.js';
import { seededRandom } from '../../src/core/random.js';
import { countryAt } from '../../src/geo/index.js';

const context = { turn: 1, maxTurns: 12, turnsLeft: 12, history: [], forced: false } as unknown as PolicyContext;

describe('geometric median', () => {
  it('is the point itself for one point, and the centre of a symmetric set', () => {
    expect(geometricMedian([{ lat: 12, lon: 34 }])).toMatchObject({ lat: expect.closeTo(12, 9), lon: expect.closeTo(34, 9) });
    const cross = [
      { lat: 10, lon: 0 },
      { lat: -10, lon: 0 },
      { lat: 0, lon: 10 },
      { lat: 0, lon: -10 },
    ];
    const centre = geometricMedian(cross);
    expect(haversineKm(centre.lat, centre.lon, 0, 0)).toBeLessThan(0.001);
  });

  it('is not dragged by an outlier the way a mean is', () => {
    const paris = { lat: 48.8566, lon: 2.3522 };
    const median = geometricMedian([paris, paris, paris, { lat: -33.87, lon: 151.21 }]);
    expect(haversineKm(median.lat, median.lon, paris.lat, paris.lon)).toBeLessThan(1);
  });

  it('minimises the total distance better than its neighbours', () => {
    const points = [
      { lat: 40, lon: -100 },
      { lat: 52, lon: 13 },
      { lat: -23, lon: -46 },
      { lat: 35, lon: 139 },
      { lat: -1, lon: 37 },
    ];
    const total = (p: { lat: number; lon: number }) => points.reduce((s, q) => s + haversineKm(p.lat, p.lon, q.lat, q.lon), 0);
    const median = geometricMedian(points);
    for (const [dLat, dLon] of [[1, 0], [-1, 0], [0, 1], [0, -1]] as const) {
      expect(total(median)).toBeLessThanOrEqual(total({ lat: median.lat + dLat, lon: median.lon + dLon }));
    }
  });
});

describe('baseline policies', () => {
  it('random-land draws a seeded point in a country', () => {
    const a = randomLandPoint(seededRandom(7));
    expect(randomLandPoint(seededRandom(7))).toEqual(a);
    expect(countryAt(a.lat, a.lon).country).not.toBeNull();
  });

  it('each guesses at turn 1', async () => {
    for (const policy of [fixedPolicy({ lat: 1, lon: 2 }), randomLandPolicy(3), priorPolicy([{ lat: 5, lon: 6 }], 'test')]) {
      const decision = await policy.decide(context);
      expect(decision).toMatchObject({ status: 'ok', action: { op: 'guess' }, harnessAction: { action: 'guess' } });
      expect(policy.identity).toMatchObject({ provider: 'baseline', model: policy.name });
    }
    expect((await fixedPolicy({ lat: 1, lon: 2 }).decide(context)).action).toEqual({ op: 'guess', lat: 1, lon: 2 });
  });
});
