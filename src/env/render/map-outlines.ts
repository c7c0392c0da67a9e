/**
 * Land, coastlines and country borders at one Natural Earth scale, drawn into a map panel.
 *
 * Data: world-atlas countries-<scale>.json (read by geo/outlines.ts's fast reader on the first
 * map at that scale). An arc used an odd number of times by all countries together is coastline
 * (land = the even-odd interior of the coastlines, so a border between two countries cancels out);
 * an arc used by two different countries is a border. Arcs are cut at the antimeridian and the
 * artificial edges along it are dropped, leaving polylines in [-180, 180] on the cylinder; they are
 * split into short chunks whose bounding boxes cull everything outside the window before any
 * projection, and vertices closer than half a pixel to the last one kept are skipped.
 */

import { readCountryArcs, type OutlineScale } from '../../geo/outlines.js';
import { fillEvenOdd, type Canvas, type Rgb } from './map-raster.js';
import type { MapView } from './map-view.js';

/** Points per chunk: small enough for tight boxes, large enough that boxes stay cheap to scan. */
const CHUNK_POINTS = 32;

/** A vertex is kept once it is this many pixels from the last one kept (either axis). */
const SIMPLIFY_PX = 0.5;

/** Polylines in chunks: chunk c is the lon/lat pairs points[2 start[c] .. 2 start[c + 1]). */
interface Chunks {
  readonly points: Float64Array;
  readonly start: Int32Array;
  /** West, south, east, north of each chunk. */
  readonly bounds: Float64Array;
}

interface Outlines {
  readonly coast: Chunks;
  readonly borders: Chunks;
}

export interface OutlineStyle {
  readonly land: Rgb;
  readonly coast: Rgb;
  readonly border: Rgb;
}

const byScale = new Map<OutlineScale, Outlines>();

function outlinesAt(scale: OutlineScale): Outlines {
  let outlines = byScale.get(scale);
  if (!outlines) {
    outlines = buildOutlines(scale);
    byScale.set(scale, outlines);
  }
  return outlines;
}

function buildOutlines(scale: OutlineScale): Outlines {
  const { topology, arcStart, points } = readCountryArcs(scale);
  const arcCount = arcStart.length - 1;
  const uses = new Int32Array(arcCount);
  const users = new Int32Array(arcCount);
  const lastUser = new Int32Array(arcCount).fill(-1);
  topology.objects.countries.geometries.forEach((geometry, g) => {
    for (const ref of geometry.arcs.flat(Infinity) as number[]) {
      const arc = ref < 0 ? ~ref : ref;
      uses[arc] = (uses[arc] as number) + 1;
      if (lastUser[arc] !== g) {
        users[arc] = (users[arc] as number) + 1;
        lastUser[arc] = g;
      }
    }
  });
  const coast = new ChunkBuilder();
  const borders = new ChunkBuilder();
  for (let arc = 0; arc < arcCount; arc++) {
    const from = arcStart[arc] as number;
    const to = arcStart[arc + 1] as number;
    if ((uses[arc] as number) % 2 === 1) coast.addArc(points, from, to);
    else if ((users[arc] as number) >= 2) borders.addArc(points, from, to);
  }
  return { coast: coast.build(), borders: borders.build() };
}

class ChunkBuilder {
  private readonly points: number[] = [];
  private readonly start: number[] = [];
  private readonly bounds: number[] = [];
  private piece: number[] = [];

  /** Adds points [from, to) of an arc, cut where it crosses the antimeridian. */
  addArc(points: Float64Array, from: number, to: number): void {
    for (let i = from; i < to; i++) {
      const x2 = points[2 * i] as number;
      const y2 = points[2 * i + 1] as number;
      if (i > from) {
        const x1 = points[2 * i - 2] as number;
        const y1 = points[2 * i - 1] as number;
        if (Math.abs(x1) === 180 && Math.abs(x2) === 180) {
          this.endPiece(); // an edge along the antimeridian: where Natural Earth cut a polygon
        } else if (Math.abs(x2 - x1) > 180) {
          const side = x1 > 0 ? 180 : -180;
          const yc = y1 + ((side - x1) / (x2 + 2 * side - x1)) * (y2 - y1);
          this.piece.push(side, yc);
          this.endPiece();
          this.piece.push(-side, yc);
        }
      }
      this.piece.push(x2, y2);
    }
    this.endPiece();
  }

  build(): Chunks {
    this.start.push(this.points.length / 2);
    return {
      points: Float64Array.from(this.points),
      start: Int32Array.from(this.start),
      bounds: Float64Array.from(this.bounds),
    };
  }

  /** Stores the current piece as chunks sharing their end points, and starts a new piece. */
  private endPiece(): void {
    const piece = this.piece;
    this.piece = [];
    const count = piece.length / 2;
    for (let first = 0; first < count - 1; first += CHUNK_POINTS - 1) {
      const last = Math.min(count - 1, first + CHUNK_POINTS - 1);
      this.start.push(this.points.length / 2);
      let west = Infinity;
      let south = Infinity;
      let east = -Infinity;
      let north = -Infinity;
      for (let k = first; k <= last; k++) {
        const x = piece[2 * k] as number;
        const y = piece[2 * k + 1] as number;
        this.points.push(x, y);
        west = Math.min(west, x);
        east = Math.max(east, x);
        south = Math.min(south, y);
        north = Math.max(north, y);
      }
      this.bounds.push(west, south, east, north);
    }
  }
}

/**
 * Projected edges, x1, y1, x2, y2 in panel pixels, reused from map to map: a map is drawn
 * synchronously, so two maps never hold it at once.
 */
let edges = new Float64Array(4 * 16384);

/**
 * Projects the chunks that can show in the view into `edges` (unwrapping them by ±360 degrees as
 * the window needs) and returns how many edges there are, with the parity of the chunks wholly
 * north of the window that cross its west edge: the only thing the land fill needs from them.
 */
function project(chunks: Chunks, view: MapView): { count: number; northParity: number } {
  const { points, start, bounds } = chunks;
  const { west, east, south, north } = view;
  let count = 0;
  let northParity = 0;
  for (let c = 0; c < start.length - 1; c++) {
    if ((bounds[4 * c + 3] as number) < south) continue;
    for (const shift of [-360, 0, 360]) {
      const chunkWest = (bounds[4 * c] as number) + shift;
      const chunkEast = (bounds[4 * c + 2] as number) + shift;
      if (chunkWest > east || chunkEast < west) continue;
      const first = start[c] as number;
      const last = (start[c + 1] as number) - 1;
      if ((bounds[4 * c + 1] as number) > north) {
        const firstEast = (points[2 * first] as number) + shift > west;
        const lastEast = (points[2 * last] as number) + shift > west;
        if (firstEast !== lastEast) northParity ^= 1;
        continue;
      }
      if (edges.length < 4 * (count + last - first)) {
        const grown = new Float64Array(2 * Math.max(edges.length, 4 * (count + last - first)));
        grown.set(edges.subarray(0, 4 * count));
        edges = grown;
      }
      let px = view.x((points[2 * first] as number) + shift);
      let py = view.y(points[2 * first + 1] as number);
      for (let k = first + 1; k <= last; k++) {
        const qx = view.x((points[2 * k] as number) + shift);
        const qy = view.y(points[2 * k + 1] as number);
        if (k < last && Math.abs(qx - px) < SIMPLIFY_PX && Math.abs(qy - py) < SIMPLIFY_PX) continue;
        edges[4 * count] = px;
        edges[4 * count + 1] = py;
        edges[4 * count + 2] = qx;
        edges[4 * count + 3] = qy;
        count++;
        px = qx;
        py = qy;
      }
    }
  }
  return { count, northParity };
}

function strokeEdges(canvas: Canvas, view: MapView, count: number, colour: Rgb): void {
  const { x, y } = view.rect;
  for (let e = 0; e < count; e++) {
    const i = 4 * e;
    canvas.line(
      x + (edges[i] as number),
      y + (edges[i + 1] as number),
      x + (edges[i + 2] as number),
      y + (edges[i + 3] as number),
      colour,
    );
  }
}

/** Fills the land of the view and strokes its coastlines and borders, at the given scale. */
export function drawOutlines(canvas: Canvas, view: MapView, scale: OutlineScale, style: OutlineStyle): void {
  const { coast, borders } = outlinesAt(scale);
  canvas.clip(view.rect);
  const land = project(coast, view);
  fillEvenOdd(canvas, view.rect, edges, land.count, land.northParity, style.land);
  strokeEdges(canvas, view, land.count, style.coast);
  strokeEdges(canvas, view, project(borders, view).count, style.border);
  canvas.clip();
}
