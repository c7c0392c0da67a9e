/**
 * The split buffer budget of docs/budgets.md: a 1,000,000-task pool against 50,000 eval start points with
 * a 1 km buffer, through the builder's own nearestInsideBuffer, beside scipy's cKDTree doing the same
 * check (shared/bench/scipy_buffer.py) in the same run.
 */
import { nearestInsideBuffer, unitVectors } from '../src/splits/spatial.js';
import { seededRandom } from '../src/core/random.js';
import { pythonAnchorMs, round, type Bench } from './harness.js';

const N_POOL = 1_000_000;
const N_EVAL = 50_000;
const BUFFER_KM = 1;

/** Points uniform on the sphere, as the scipy anchor draws them. */
function spherePoints(n: number, rand: () => number): { lat: Float64Array; lon: Float64Array } {
  const lat = new Float64Array(n);
  const lon = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    lat[i] = (Math.asin(rand() * 2 - 1) * 180) / Math.PI;
    lon[i] = rand() * 360 - 180;
  }
  return { lat, lon };
}

export const splitsBenches: Bench[] = [
  {
    // One timed run after a warm-up on a slice (the whole bench must stay under 45 s); the unit
    // vectors are part of the timed work, as they are in the anchor, which also runs once.
    name: 'splits.buffer_1m',
    unit: 'checks',
    run() {
      // Not the harness's LCG: its successive pairs fall on lattice lines, which thins close pairs.
      const rand = seededRandom(11);
      const pool = spherePoints(N_POOL, rand);
      const evalPoints = spherePoints(N_EVAL, rand);
      const evalXyz = unitVectors(evalPoints.lat, evalPoints.lon);
      nearestInsideBuffer(unitVectors(pool.lat.subarray(0, 50_000), pool.lon.subarray(0, 50_000)), evalXyz, BUFFER_KM);
      const start = process.hrtime.bigint();
      const { index } = nearestInsideBuffer(unitVectors(pool.lat, pool.lon), unitVectors(evalPoints.lat, evalPoints.lon), BUFFER_KM);
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      const inside = index.reduce((n, j) => n + (j >= 0 ? 1 : 0), 0);
      const result = { median_ms: round(ms), per_s: round(1000 / ms), pool_points: N_POOL, eval_points: N_EVAL, inside_buffer: inside };
      const scipy = pythonAnchorMs('splits.buffer_1m', 'scipy_buffer.py', [String(N_POOL), String(N_EVAL)], /([\d.]+) s$/, 1000);
      return scipy === undefined ? result : { ...result, scipy_ms: round(scipy), ratio_to_scipy: round(ms / scipy, 2) };
    },
  },
];
