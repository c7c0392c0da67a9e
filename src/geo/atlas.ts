/**
 * The one reader of world-atlas: Natural Earth admin-0 countries as TopoJSON at 1:110m, 1:50m and
 * 1:10m. Every land test, land raster and drawn coastline of geolab comes from these files, so that
 * a point is land or sea by one definition: inside a country's outline (lakes count as land).
 *
 * Arcs are delta-encoded integer points; a geometry lists the arcs of its rings (a negative index
 * ~a walks arc a backwards). Rings are stitched across the antimeridian; code that works on the
 * plane [-180, 180] cuts the arcs there and drops the artificial edges along it (`forEachPlaneEdge`).
 */

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../paths.js';
import { encodeBuildFile, readBuildFile, sameSource, sourceStamp, type Column, type SourceStamp } from './build-file.js';

/** The Natural Earth scales world-atlas ships admin-0 countries at. */
export type OutlineScale = '110m' | '50m' | '10m';

/** world-atlas TopoJSON without its arcs, which `readCountryArcs` decodes itself. */
export interface Topology {
  transform: { scale: [number, number]; translate: [number, number] };
  objects: { countries: { geometries: { arcs: unknown[]; properties: { name: string } }[] } };
}

/** Arc a's points are points[2 * arcStart[a] .. 2 * arcStart[a + 1]), lon/lat pairs. */
export interface CountryArcs {
  readonly topology: Topology;
  readonly arcStart: Int32Array;
  readonly points: Float64Array;
}

/** world-atlas's countries-<scale>.json. */
export function atlasPath(scale: OutlineScale): string {
  return createRequire(import.meta.url).resolve(`world-atlas/countries-${scale}.json`);
}

/**
 * Reads world-atlas countries-<scale>.json. Its top-level "arcs" (nearly all of the 3.6 MB at 10m)
 * are scanned straight into typed arrays; JSON.parse only sees the rest. That takes about a tenth of
 * the time JSON.parse takes to build half a million little arrays. Not cached: callers keep what
 * they derive from it, which is smaller.
 */
export function readCountryArcs(scale: OutlineScale): CountryArcs {
  const buf = readFileSync(atlasPath(scale));
  const open = buf.lastIndexOf('"arcs":') + '"arcs":'.length;
  const deltas = new Int32Array(buf.length >> 1);
  const arcEnds: number[] = [];
  let count = 0;
  let depth = 0;
  let pos = open;
  do {
    const ch = buf[pos] as number;
    if (ch === 0x5b /* [ */) {
      depth++;
      pos++;
    } else if (ch === 0x5d /* ] */) {
      if (--depth === 1) arcEnds.push(count >> 1);
      pos++;
    } else if (ch === 0x2d /* - */ || (ch >= 0x30 && ch <= 0x39)) {
      const sign = ch === 0x2d ? -1 : 1;
      if (sign < 0) pos++;
      let value = 0;
      for (let digit = buf[pos] as number; digit >= 0x30 && digit <= 0x39; digit = buf[++pos] as number) {
        value = value * 10 + digit - 0x30;
      }
      deltas[count++] = sign * value;
    } else {
      pos++;
    }
  } while (depth > 0);
  const topology = JSON.parse(`${buf.toString('utf8', 0, open)}[]${buf.toString('utf8', pos)}`) as Topology;

  const [sx, sy] = topology.transform.scale;
  const [tx, ty] = topology.transform.translate;
  const arcStart = Int32Array.from([0, ...arcEnds]);
  const points = new Float64Array(count);
  for (let a = 0; a < arcEnds.length; a++) {
    let x = 0;
    let y = 0;
    for (let i = 2 * (arcStart[a] as number), end = 2 * (arcStart[a + 1] as number); i < end; i += 2) {
      x += deltas[i] as number;
      y += deltas[i + 1] as number;
      points[i] = x * sx + tx;
      points[i + 1] = y * sy + ty;
    }
  }
  return { topology, arcStart, points };
}

/** Arc indices a geometry uses, once per use (the sign of a reversed arc dropped). */
export function arcsOf(geometry: { arcs: unknown[] }): number[] {
  return (geometry.arcs.flat(Infinity) as number[]).map((ref) => (ref < 0 ? ~ref : ref));
}

/**
 * Visits the edges of arc `arc` as the plane [-180, 180] sees them: an edge that crosses the
 * antimeridian is cut into two at lon ±180, and an edge running along it (where Natural Earth cut
 * a polygon) is dropped. Consecutive edges that do not share an end point start a new polyline.
 */
export function forEachPlaneEdge(
  arcs: Pick<CountryArcs, 'arcStart' | 'points'>,
  arc: number,
  visit: (x1: number, y1: number, x2: number, y2: number) => void,
): void {
  const { arcStart, points } = arcs;
  for (let i = 2 * (arcStart[arc] as number), end = 2 * (arcStart[arc + 1] as number) - 2; i < end; i += 2) {
    const x1 = points[i] as number;
    const y1 = points[i + 1] as number;
    const x2 = points[i + 2] as number;
    const y2 = points[i + 3] as number;
    if (Math.abs(x1) === 180 && Math.abs(x2) === 180) continue;
    if (Math.abs(x2 - x1) <= 180) {
      visit(x1, y1, x2, y2);
    } else {
      const side = x1 > 0 ? 180 : -180;
      const yc = y1 + ((side - x1) / (x2 + 2 * side - x1)) * (y2 - y1);
      // An end point on the antimeridian itself leaves an empty half: no edge.
      if (x1 !== side) visit(x1, y1, side, yc);
      if (x2 !== -side) visit(-side, yc, x2, y2);
    }
  }
}

/** Polylines on the plane: line l is the lon/lat pairs points[2 start[l] .. 2 start[l + 1]). */
export interface Polylines {
  readonly points: Float64Array;
  readonly start: Int32Array;
}

/**
 * Coastlines and borders at one scale. An arc used an odd number of times by all countries together
 * is coastline (land = the even-odd interior of the coastlines, so a border between two countries
 * cancels out); an arc used by two different countries is a border.
 */
export interface OutlineLines {
  readonly coast: Polylines;
  readonly borders: Polylines;
}

const linesByScale = new Map<OutlineScale, OutlineLines>();

/** The coastlines and borders at `scale`, read on first use. */
export function outlineLines(scale: OutlineScale): OutlineLines {
  if (!linesFileRead && LINE_FILE_SCALES.includes(scale)) {
    linesFileRead = true;
    for (const [fileScale, lines] of readOutlineLines(LINES_FILE) ?? []) linesByScale.set(fileScale, lines);
  }
  let lines = linesByScale.get(scale);
  if (!lines) {
    lines = buildOutlineLines(scale);
    linesByScale.set(scale, lines);
  }
  return lines;
}
let linesFileRead = false;

/** The lines built from the atlas (what the build's file holds, for LINE_FILE_SCALES). */
export function buildOutlineLines(scale: OutlineScale): OutlineLines {
  return buildLines(readCountryArcs(scale));
}

/**
 * The scales whose lines `npm run build` writes to dist/outline-lines.bin (build-file.ts's layout):
 * those the environment's maps draw at every pin. Building them reads and walks the atlas, ~50 ms
 * of CPU at 110m and ~100 ms at 50m per process; reading them is a few. 10m lines (the Player's
 * closest zoom) stay built on demand: they would weigh ~9 MB.
 */
const LINE_FILE_SCALES: readonly OutlineScale[] = ['110m', '50m'];
export const LINES_FILE = join(PACKAGE_ROOT, 'dist', 'outline-lines.bin');
const LINES_MAGIC = 'GOL1';

interface LinesHeader {
  /** Per scale in LINE_FILE_SCALES' order: the atlas file's stamp and the arrays' lengths (coast points, coast starts, border points, border starts). */
  scales: { scale: OutlineScale; source: SourceStamp; lengths: [number, number, number, number] }[];
}

export function encodeOutlineLines(): Buffer {
  const header: LinesHeader = { scales: [] };
  const columns: Column[] = [];
  for (const scale of LINE_FILE_SCALES) {
    const { coast, borders } = buildOutlineLines(scale);
    header.scales.push({ scale, source: sourceStamp(atlasPath(scale)), lengths: [coast.points.length, coast.start.length, borders.points.length, borders.start.length] });
    columns.push(coast.points, coast.start, borders.points, borders.start);
  }
  return encodeBuildFile(LINES_MAGIC, header, columns);
}

/** The lines the file holds by scale, or null when it is missing, not this format, or made from other atlas files. */
export function readOutlineLines(file: string): Map<OutlineScale, OutlineLines> | null {
  const read = readBuildFile<LinesHeader>(file, LINES_MAGIC);
  if (!read || read.header.scales.some(({ source, scale }) => !sameSource(source, atlasPath(scale)))) return null;
  const columns = read.columns(
    read.header.scales.flatMap(({ lengths: [coastPoints, coastStarts, borderPoints, borderStarts] }) => [
      [Float64Array, coastPoints] as const,
      [Int32Array, coastStarts] as const,
      [Float64Array, borderPoints] as const,
      [Int32Array, borderStarts] as const,
    ]),
  );
  if (!columns) return null;
  const lines = new Map<OutlineScale, OutlineLines>();
  read.header.scales.forEach(({ scale }, i) => {
    const [coastPoints, coastStart, borderPoints, borderStart] = columns.slice(4 * i, 4 * i + 4) as [Float64Array, Int32Array, Float64Array, Int32Array];
    lines.set(scale, { coast: { points: coastPoints, start: coastStart }, borders: { points: borderPoints, start: borderStart } });
  });
  return lines;
}

function buildLines(arcs: CountryArcs): OutlineLines {
  const arcCount = arcs.arcStart.length - 1;
  const uses = new Int32Array(arcCount);
  const users = new Int32Array(arcCount);
  const lastUser = new Int32Array(arcCount).fill(-1);
  arcs.topology.objects.countries.geometries.forEach((geometry, g) => {
    for (const arc of arcsOf(geometry)) {
      uses[arc] = (uses[arc] as number) + 1;
      if (lastUser[arc] !== g) {
        users[arc] = (users[arc] as number) + 1;
        lastUser[arc] = g;
      }
    }
  });
  const coast = new PolylineBuilder();
  const borders = new PolylineBuilder();
  for (let arc = 0; arc < arcCount; arc++) {
    if ((uses[arc] as number) % 2 === 1) coast.addArc(arcs, arc);
    else if ((users[arc] as number) >= 2) borders.addArc(arcs, arc);
  }
  return { coast: coast.build(), borders: borders.build() };
}

class PolylineBuilder {
  private points = new Float64Array(1 << 16);
  private count = 0;
  private readonly start: number[] = [];
  private lastX = NaN;
  private lastY = NaN;

  addArc(arcs: CountryArcs, arc: number): void {
    this.lastX = NaN;
    forEachPlaneEdge(arcs, arc, (x1, y1, x2, y2) => {
      if (x1 !== this.lastX || y1 !== this.lastY) {
        this.start.push(this.count);
        this.push(x1, y1);
      }
      this.push(x2, y2);
      this.lastX = x2;
      this.lastY = y2;
    });
  }

  build(): Polylines {
    return { points: this.points.slice(0, 2 * this.count), start: Int32Array.from([...this.start, this.count]) };
  }

  private push(x: number, y: number): void {
    if (2 * this.count === this.points.length) {
      const grown = new Float64Array(2 * this.points.length);
      grown.set(this.points);
      this.points = grown;
    }
    this.points[2 * this.count] = x;
    this.points[2 * this.count + 1] = y;
    this.count++;
  }
}
