/**
 * Baseline policies, the floor a model must beat: each guesses at turn 1 without looking.
 * - random-land: a seeded uniform point on the sphere, drawn again until it falls in a country;
 * - fixed: one given point;
 * - prior: the geometric median of a task set's start points (the point with the least total
 *   great-circle distance to them), the best single guess for a set seen as a whole.
 */
import type { LatLon } from '../../core/geodesy.js';
import { seededRandom } from '../../core/random.js';
import { countryAt } from '../../geo/index.js';
import { toHarnessAction } from '../protocols/common.js';
import type { Policy, PolicyDecision } from '../types.js';

export type BaselineName = 'random-land' | 'fixed' | 'prior';

/** Micro-degrees (about 0.1 m): finer digits are float noise in records and output. */
const round6 = (deg: number) => Math.round(deg * 1e6) / 1e6;

function guessing(name: BaselineName, point: LatLon, identity: Record<string, unknown>): Policy {
  const action = { op: 'guess' as const, lat: round6(point.lat), lon: round6(point.lon) };
  return {
    name,
    identity: { provider: 'baseline', model: name, ...identity },
    async decide(): Promise<PolicyDecision> {
      return { action, harnessAction: toHarnessAction(action), status: 'ok' };
    },
  };
}

export function fixedPolicy(point: LatLon): Policy {
  return guessing('fixed', point, { point: [point.lat, point.lon] });
}

export function randomLandPolicy(seed: number): Policy {
  return guessing('random-land', randomLandPoint(seededRandom(seed)), { seed });
}

export function priorPolicy(points: readonly LatLon[], source: string): Policy {
  const median = geometricMedian(points);
  return guessing('prior', median, { prior_of: source, prior_points: points.length });
}

/** A uniform point on the sphere, drawn again until it lies in a country (about 3 draws on average). */
export function randomLandPoint(random: () => number): LatLon {
  for (;;) {
    // Uniform in sin(latitude), not latitude: equal areas, no crowding at the poles.
    const lat = (Math.asin(2 * random() - 1) * 180) / Math.PI;
    const lon = random() * 360 - 180;
    if (countryAt(lat, lon).country !== null) return { lat, lon };
  }
}

const RAD = Math.PI / 180;
/** Iterations are cheap and Weiszfeld converges linearly: this is far past the centimetre. */
const WEISZFELD_ITERATIONS = 200;
/** Keeps a start point that coincides with the estimate from dividing by zero. */
const MIN_ANGLE_RAD = 1e-12;

/**
 * Weiszfeld's algorithm on the unit sphere: reweight the points by the inverse of their angular
 * distance to the estimate and project the weighted sum back onto the sphere, until it settles.
 */
export function geometricMedian(points: readonly LatLon[]): LatLon {
  if (points.length === 0) throw new RangeError('the geometric median needs at least one point');
  const vectors = points.map(toVector);
  let estimate = normalize(sum(vectors.map((v) => [v, 1] as const))) ?? vectors[0]!;
  for (let i = 0; i < WEISZFELD_ITERATIONS; i++) {
    const weighted = vectors.map((v) => [v, 1 / Math.max(angle(estimate, v), MIN_ANGLE_RAD)] as const);
    const next = normalize(sum(weighted));
    if (!next) break;
    const moved = angle(estimate, next);
    estimate = next;
    if (moved < 1e-13) break;
  }
  return toLatLon(estimate);
}

type Vector = readonly [number, number, number];

function toVector({ lat, lon }: LatLon): Vector {
  return [Math.cos(lat * RAD) * Math.cos(lon * RAD), Math.cos(lat * RAD) * Math.sin(lon * RAD), Math.sin(lat * RAD)];
}

function toLatLon([x, y, z]: Vector): LatLon {
  return { lat: Math.atan2(z, Math.hypot(x, y)) / RAD, lon: Math.atan2(y, x) / RAD };
}

function sum(weighted: readonly (readonly [Vector, number])[]): Vector {
  return weighted.reduce<Vector>(([x, y, z], [[a, b, c], w]) => [x + w * a, y + w * b, z + w * c], [0, 0, 0]);
}

/** Null for a vector too short to have a direction (points spread evenly around the globe). */
function normalize([x, y, z]: Vector): Vector | null {
  const length = Math.hypot(x, y, z);
  return length < 1e-12 ? null : [x / length, y / length, z / length];
}

function angle(a: Vector, b: Vector): number {
  // atan2 of cross and dot stays accurate for tiny angles, where acos of the dot does not.
  const cross = Math.hypot(a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]);
  return Math.atan2(cross, a[0] * b[0] + a[1] * b[1] + a[2] * b[2]);
}
