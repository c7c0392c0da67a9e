import { describe, expect, it } from 'vitest';
import { haversineKm } from '../../src/core/geodesy.js';
import { closestPair, nearestInsideBuffer, unitVectors } from '../../src/splits/spatial.js';

/** Seeded points clustered around a few centres (so some pairs are close), poles and antimeridian included. */
function cluster(n: number, seed: number): { lat: Float64Array; lon: Float64Array } {
  let s = seed >>> 0;
  const rand = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
  const centres = [[89.99, 10], [0, 179.995], [0, -179.995], [45, 7], [-33, 151]];
  const lat = new Float64Array(n);
  const lon = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const [cLat, cLon] = centres[i % centres.length]!;
    lat[i] = Math.max(-90, Math.min(90, cLat! + (rand() - 0.5) * 0.05));
    lon[i] = ((cLon! + (rand() - 0.5) * 0.05 + 540) % 360) - 180;
  }
  return { lat, lon };
}

describe('nearestInsideBuffer', () => {
  it('finds exactly the queries a brute force finds, with the nearest point, across poles and the antimeridian', () => {
    const q = cluster(600, 1);
    const p = cluster(150, 2);
    for (const bufferKm of [0.5, 1, 3]) {
      const got = nearestInsideBuffer(unitVectors(q.lat, q.lon), unitVectors(p.lat, p.lon), bufferKm);
      for (let i = 0; i < q.lat.length; i++) {
        let best = -1;
        let bestKm = Infinity;
        for (let j = 0; j < p.lat.length; j++) {
          const d = haversineKm(q.lat[i]!, q.lon[i]!, p.lat[j]!, p.lon[j]!);
          if (d < bestKm) [best, bestKm] = [j, d];
        }
        if (bestKm < bufferKm - 1e-6) {
          expect(got.index[i]).toBe(best);
          expect(got.km[i]).toBeCloseTo(bestKm, 6);
        } else if (bestKm >= bufferKm) {
          expect(got.index[i]).toBe(-1);
        }
      }
    }
  });
});

describe('closestPair', () => {
  it('is the brute-force minimum, near or far', () => {
    const q = cluster(200, 3);
    const p = cluster(40, 4);
    const far = { lat: Float64Array.of(-60), lon: Float64Array.of(-100) };
    for (const [a, b] of [[q, p], [q, far]] as const) {
      let bestKm = Infinity;
      for (let i = 0; i < a.lat.length; i++) for (let j = 0; j < b.lat.length; j++) bestKm = Math.min(bestKm, haversineKm(a.lat[i]!, a.lon[i]!, b.lat[j]!, b.lon[j]!));
      expect(closestPair(unitVectors(a.lat, a.lon), unitVectors(b.lat, b.lon))!.km).toBeCloseTo(bestKm, 6);
    }
  });
});
