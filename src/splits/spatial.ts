/**
 * A uniform grid over unit vectors: points on the sphere become (x, y, z) on the unit sphere, and
 * "within d km" becomes "chord shorter than 2 sin(d / 2R)", with no trigonometry per candidate and no
 * trouble at the poles or the antimeridian. Points are bucketed into cubes (compressed rows, one
 * typed array of starts), so a query looks at the one to eight cells its radius touches: work is
 * linear in the number of points, never pairwise.
 */
import { EARTH_RADIUS_KM } from '../core/geodesy.js';

const RAD = Math.PI / 180;
/** Cells per axis at most: 128^3 starts is 8 MiB, whatever the number of points. */
const MAX_CELLS_PER_AXIS = 128;
/**
 * A pair exactly at the buffer is kept: coordinates in task files carry ~1e-7 deg (1 cm), so a
 * millimetre of slack keeps float noise from dropping a pair the user placed at the threshold.
 */
const BUFFER_SLACK_KM = 1e-6;

/** Chord length on the unit sphere of a great-circle distance. */
export function chordOfKm(km: number): number {
  return 2 * Math.sin(Math.min(Math.PI, km / EARTH_RADIUS_KM) / 2);
}

/** Great-circle distance of a chord on the unit sphere. */
export function kmOfChord(chord: number): number {
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, chord / 2));
}

/** Unit vectors (x, y, z interleaved) of latitude/longitude pairs in degrees. */
export function unitVectors(lat: ArrayLike<number>, lon: ArrayLike<number>): Float64Array {
  const n = lat.length;
  const xyz = new Float64Array(n * 3);
  for (let i = 0; i < n; i++) {
    const la = (lat[i] as number) * RAD;
    const lo = (lon[i] as number) * RAD;
    const c = Math.cos(la);
    xyz[i * 3] = c * Math.cos(lo);
    xyz[i * 3 + 1] = c * Math.sin(lo);
    xyz[i * 3 + 2] = Math.sin(la);
  }
  return xyz;
}

export interface Neighbour {
  /** Index of the indexed point. */
  index: number;
  km: number;
}

export class UnitGrid {
  private readonly cell: number;
  private readonly perAxis: number;
  /** starts[c]..starts[c + 1] are the sorted slots of cell c. */
  private readonly starts: Int32Array;
  /** Original index of each slot, and its coordinates copied in slot order (cache-friendly scans). */
  private readonly ids: Int32Array;
  private readonly sorted: Float64Array;

  /**
   * Indexes `xyz` (see unitVectors) for queries of radius up to `maxKm`. Cells are at least that
   * radius wide (a query touches at most two cells per axis) and about one point's share of the
   * sphere otherwise.
   */
  constructor(xyz: Float64Array, maxKm: number) {
    const n = xyz.length / 3;
    const share = Math.sqrt((4 * Math.PI) / Math.max(1, n));
    this.cell = Math.max(chordOfKm(maxKm) * 1.000001, share, 2 / MAX_CELLS_PER_AXIS);
    this.perAxis = Math.ceil(2 / this.cell) + 1;
    const cells = this.perAxis ** 3;
    const cellOf = new Int32Array(n);
    const counts = new Int32Array(cells + 1);
    for (let i = 0; i < n; i++) {
      const c = this.cellIndex(xyz[i * 3] as number, xyz[i * 3 + 1] as number, xyz[i * 3 + 2] as number);
      cellOf[i] = c;
      counts[c + 1]!++;
    }
    for (let c = 0; c < cells; c++) counts[c + 1]! += counts[c]!;
    this.starts = counts;
    const fill = counts.slice(0, cells);
    this.ids = new Int32Array(n);
    this.sorted = new Float64Array(n * 3);
    for (let i = 0; i < n; i++) {
      const slot = fill[cellOf[i]!]!++;
      this.ids[slot] = i;
      this.sorted[slot * 3] = xyz[i * 3]!;
      this.sorted[slot * 3 + 1] = xyz[i * 3 + 1]!;
      this.sorted[slot * 3 + 2] = xyz[i * 3 + 2]!;
    }
  }

  private axis(v: number): number {
    const k = Math.floor((v + 1) / this.cell);
    return k < 0 ? 0 : k >= this.perAxis ? this.perAxis - 1 : k;
  }

  private cellIndex(x: number, y: number, z: number): number {
    return (this.axis(x) * this.perAxis + this.axis(y)) * this.perAxis + this.axis(z);
  }

  /**
   * Calls `visit(index, chordSquared)` for every indexed point whose chord to (x, y, z) is below
   * `chord` (which must not exceed the radius the grid was built for).
   */
  forEachWithin(x: number, y: number, z: number, chord: number, visit: (index: number, chord2: number) => void): void {
    const limit2 = chord * chord;
    const x0 = this.axis(x - chord), x1 = this.axis(x + chord);
    const y0 = this.axis(y - chord), y1 = this.axis(y + chord);
    const z0 = this.axis(z - chord), z1 = this.axis(z + chord);
    const k = this.perAxis;
    const s = this.sorted;
    for (let ix = x0; ix <= x1; ix++) {
      for (let iy = y0; iy <= y1; iy++) {
        const row = (ix * k + iy) * k;
        const end = this.starts[row + z1 + 1]!;
        // The cells of one (x, y) column are contiguous: one scan covers z0..z1.
        for (let slot = this.starts[row + z0]!; slot < end; slot++) {
          const dx = s[slot * 3]! - x, dy = s[slot * 3 + 1]! - y, dz = s[slot * 3 + 2]! - z;
          const d2 = dx * dx + dy * dy + dz * dz;
          if (d2 < limit2) visit(this.ids[slot]!, d2);
        }
      }
    }
  }

  /**
   * The nearest indexed point closer than `chord` as an index (-1: none) and its chord squared; the
   * hot loop of the buffer check, so written without callbacks or allocation.
   */
  nearestWithin(x: number, y: number, z: number, chord: number): { index: number; chord2: number } {
    let best = -1;
    let best2 = chord * chord;
    const x0 = this.axis(x - chord), x1 = this.axis(x + chord);
    const y0 = this.axis(y - chord), y1 = this.axis(y + chord);
    const z0 = this.axis(z - chord), z1 = this.axis(z + chord);
    const k = this.perAxis;
    const s = this.sorted;
    const starts = this.starts;
    for (let ix = x0; ix <= x1; ix++) {
      for (let iy = y0; iy <= y1; iy++) {
        const row = (ix * k + iy) * k;
        const end = starts[row + z1 + 1]!;
        for (let slot = starts[row + z0]!; slot < end; slot++) {
          const dx = s[slot * 3]! - x, dy = s[slot * 3 + 1]! - y, dz = s[slot * 3 + 2]! - z;
          const d2 = dx * dx + dy * dy + dz * dz;
          if (d2 < best2 || (d2 === best2 && best >= 0 && this.ids[slot]! < best)) {
            best = this.ids[slot]!;
            best2 = d2;
          }
        }
      }
    }
    return { index: best, chord2: best2 };
  }
}

/**
 * For each query point, the nearest indexed point strictly closer than `bufferKm` (less the slack
 * above), or -1: the buffer check of the split builder and checker.
 */
export function nearestInsideBuffer(queries: Float64Array, indexed: Float64Array, bufferKm: number): { index: Int32Array; km: Float64Array } {
  const n = queries.length / 3;
  const index = new Int32Array(n).fill(-1);
  const km = new Float64Array(n).fill(Infinity);
  const limitKm = bufferKm - BUFFER_SLACK_KM;
  if (limitKm <= 0 || indexed.length === 0) return { index, km };
  const grid = new UnitGrid(indexed, limitKm);
  const chord = chordOfKm(limitKm);
  for (let i = 0; i < n; i++) {
    const hit = grid.nearestWithin(queries[i * 3]!, queries[i * 3 + 1]!, queries[i * 3 + 2]!, chord);
    if (hit.index >= 0) {
      index[i] = hit.index;
      km[i] = kmOfChord(Math.sqrt(hit.chord2));
    }
  }
  return { index, km };
}

/**
 * The closest (query, indexed) pair over all of both sets, or null when either is empty: searched
 * at a growing radius (each pass linear), so the first pair found at radius r is exact. The last
 * pass takes a chord just over the diameter, which holds every pair.
 */
export function closestPair(queries: Float64Array, indexed: Float64Array, startKm = 1): { query: number; index: number; km: number } | null {
  if (queries.length === 0 || indexed.length === 0) return null;
  for (let chord = chordOfKm(Math.max(startKm, 0.001)); ; chord = Math.min(chord * 4, 2.000001)) {
    const grid = new UnitGrid(indexed, kmOfChord(Math.min(chord, 2)));
    let best = { query: -1, index: -1, chord2: Infinity };
    for (let i = 0; i < queries.length / 3; i++) {
      const hit = grid.nearestWithin(queries[i * 3]!, queries[i * 3 + 1]!, queries[i * 3 + 2]!, chord);
      if (hit.index >= 0 && hit.chord2 < best.chord2) best = { query: i, index: hit.index, chord2: hit.chord2 };
    }
    if (best.query >= 0) return { query: best.query, index: best.index, km: kmOfChord(Math.sqrt(best.chord2)) };
  }
}
