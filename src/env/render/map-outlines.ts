/**
 * Land, coastlines and country borders at one Natural Earth scale, drawn into a map panel.
 *
 * Data: geo/atlas.ts's coastlines and borders at that scale (land = the even-odd interior of the
 * coastlines), polylines in [-180, 180] on the cylinder, read on the first map at that scale. They
 * are split into short chunks whose bounding boxes cull everything outside the window before any
 * projection, and vertices closer than half a pixel to the last one kept are skipped.
 */

import { outlineLines, type OutlineScale, type Polylines } from '../../geo/atlas.js';
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
    const { coast, borders } = outlineLines(scale);
    outlines = { coast: chunk(coast), borders: chunk(borders) };
    byScale.set(scale, outlines);
  }
  return outlines;
}

/** Each polyline as chunks of CHUNK_POINTS points, neighbours sharing their end points. */
function chunk(lines: Polylines): Chunks {
  const lineCount = lines.start.length - 1;
  const chunksOf = (l: number): number =>
    Math.ceil(((lines.start[l + 1] as number) - (lines.start[l] as number) - 1) / (CHUNK_POINTS - 1));
  let chunkCount = 0;
  for (let l = 0; l < lineCount; l++) chunkCount += chunksOf(l);
  // Every point once, plus the point each further chunk of a line repeats.
  const points = new Float64Array(lines.points.length + 2 * (chunkCount - lineCount));
  const start = new Int32Array(chunkCount + 1);
  const bounds = new Float64Array(4 * chunkCount);
  let c = 0;
  let n = 0;
  for (let l = 0; l < lineCount; l++) {
    const lineStart = lines.start[l] as number;
    const count = (lines.start[l + 1] as number) - lineStart;
    for (let first = 0; first < count - 1; first += CHUNK_POINTS - 1) {
      const last = Math.min(count - 1, first + CHUNK_POINTS - 1);
      start[c] = n;
      let west = Infinity;
      let south = Infinity;
      let east = -Infinity;
      let north = -Infinity;
      for (let k = lineStart + first; k <= lineStart + last; k++) {
        const x = lines.points[2 * k] as number;
        const y = lines.points[2 * k + 1] as number;
        points[2 * n] = x;
        points[2 * n + 1] = y;
        n++;
        if (x < west) west = x;
        if (x > east) east = x;
        if (y < south) south = y;
        if (y > north) north = y;
      }
      bounds[4 * c] = west;
      bounds[4 * c + 1] = south;
      bounds[4 * c + 2] = east;
      bounds[4 * c + 3] = north;
      c++;
    }
  }
  start[c] = n;
  return { points, start, bounds };
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
