/**
 * Natural Earth 1:10m admin-0 outlines as a grid index: which outline contains a point (the land
 * test) and how far a point is from the outline edges of one country or of any (offshore distance,
 * distance to a border).
 *
 * Data: world-atlas countries-10m.json, Natural Earth's 10m admin-0 countries as TopoJSON quantised
 * to 0.0036 x 0.0017 degrees (a few hundred metres: a beach road can fall just outside the land),
 * read on first use. Its rings are stitched across the antimeridian; edges are cut there instead and
 * the artificial edges along it are dropped, so that the plane sees every outline edge exactly once.
 *
 * Index: edges are bucketed into a 0.25-degree grid. Each cell knows which outline contains its
 * centre, found once by walking from an Arctic Ocean cell to every other cell and switching owner at
 * every edge crossed on the way. A query only counts the edges crossed between the point and its
 * cell's centre, so the land test costs one cell, and a distance search only the cells in range.
 */

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { EARTH_RADIUS_KM } from '../core/geodesy.js';
import { allCountries, countryByName, type Country } from './countries.js';

const CELL_DEG = 0.25;
const COLS = 360 / CELL_DEG;
const ROWS = 180 / CELL_DEG;
const KM_PER_DEG = (Math.PI * EARTH_RADIUS_KM) / 180;
const RAD = Math.PI / 180;

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

/** The Natural Earth scales world-atlas ships admin-0 countries at. */
export type OutlineScale = '110m' | '50m' | '10m';

interface Index {
  /** Edge endpoints x1, y1, x2, y2 (lon/lat degrees), four numbers per edge. */
  readonly edges: Float32Array;
  /** Index in `countries` of the outline each edge belongs to. */
  readonly edgeOwner: Uint16Array;
  readonly countries: readonly Country[];
  readonly ownerOf: ReadonlyMap<Country, number>;
  /** Edges of cell i are cellEdges[cellStart[i] .. cellStart[i + 1]). */
  readonly cellStart: Int32Array;
  readonly cellEdges: Int32Array;
  /** Owner of each cell's centre, -1 for sea. */
  readonly cellOwner: Int16Array;
}

let index: Index | undefined;

/** Loads the outlines now rather than on the first query. */
export function loadOutlines(): void {
  getIndex();
}

function getIndex(): Index {
  index ??= buildIndex(readCountryArcs('10m'));
  return index;
}

/**
 * Reads world-atlas countries-<scale>.json (the map renderer draws all three scales). Its top-level
 * "arcs" (nearly all of the 3.6 MB at 10m: delta-encoded integer points) are scanned straight into
 * typed arrays; JSON.parse only sees the rest. That takes about a tenth of the time JSON.parse takes
 * to build half a million little arrays.
 */
export function readCountryArcs(scale: OutlineScale): CountryArcs {
  const buf = readFileSync(createRequire(import.meta.url).resolve(`world-atlas/countries-${scale}.json`));
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

function col(lon: number): number {
  return Math.min(COLS - 1, Math.max(0, Math.floor((lon + 180) / CELL_DEG)));
}

function row(lat: number): number {
  return Math.min(ROWS - 1, Math.max(0, Math.floor((lat + 90) / CELL_DEG)));
}

function centreLon(c: number): number {
  return -180 + (c + 0.5) * CELL_DEG;
}

function centreLat(r: number): number {
  return -90 + (r + 0.5) * CELL_DEG;
}

function buildIndex(outlines: CountryArcs): Index {
  const countries = allCountries();
  const ownerOf = new Map(countries.map((c, i) => [c, i]));
  const { edges, edgeOwner } = collectEdges(outlines, ownerOf);
  const { cellStart, cellEdges } = bucketEdges(edges);
  const partial = { edges, edgeOwner, countries, ownerOf, cellStart, cellEdges };
  return { ...partial, cellOwner: cellOwners(partial) };
}

/** Every outline edge once, tagged with its country, cut at the antimeridian. */
function collectEdges(
  outlines: CountryArcs,
  ownerOf: ReadonlyMap<Country, number>,
): Pick<Index, 'edges' | 'edgeOwner'> {
  const { topology, arcStart, points } = outlines;
  const crossesAntimeridian = (i: number): boolean => Math.abs((points[i + 2] as number) - (points[i] as number)) > 180;
  // Which arcs outline which country. An arc used twice by one country separates two of its own
  // polygons: not an outline edge.
  const outlined: { arc: number; owner: number }[] = [];
  let capacity = 0;
  for (const geometry of topology.objects.countries.geometries) {
    const country = countryByName(geometry.properties.name);
    if (!country) throw new Error(`world-atlas outline "${geometry.properties.name}" has no country row`);
    const uses = new Map<number, number>();
    for (const ref of geometry.arcs.flat(Infinity) as number[]) {
      const arc = ref < 0 ? ~ref : ref;
      uses.set(arc, (uses.get(arc) ?? 0) + 1);
    }
    for (const [arc, used] of uses) {
      if (used % 2 === 0) continue;
      outlined.push({ arc, owner: ownerOf.get(country) as number });
      for (let i = 2 * (arcStart[arc] as number), end = 2 * (arcStart[arc + 1] as number) - 2; i < end; i += 2) {
        capacity += crossesAntimeridian(i) ? 2 : 1;
      }
    }
  }

  // Single precision is ample for points quantised to 0.0036 degrees.
  const edges = new Float32Array(4 * capacity);
  const edgeOwner = new Uint16Array(capacity);
  let count = 0;
  const addEdge = (x1: number, y1: number, x2: number, y2: number, owner: number): void => {
    if (x1 === x2 && Math.abs(x1) === 180) return; // on the antimeridian cut, not an outline
    edges[4 * count] = x1;
    edges[4 * count + 1] = y1;
    edges[4 * count + 2] = x2;
    edges[4 * count + 3] = y2;
    edgeOwner[count++] = owner;
  };
  for (const { arc, owner } of outlined) {
    for (let i = 2 * (arcStart[arc] as number), end = 2 * (arcStart[arc + 1] as number) - 2; i < end; i += 2) {
      const x1 = points[i] as number;
      const y1 = points[i + 1] as number;
      const x2 = points[i + 2] as number;
      const y2 = points[i + 3] as number;
      if (!crossesAntimeridian(i)) {
        addEdge(x1, y1, x2, y2, owner);
      } else if (Math.abs(x1) !== 180 || Math.abs(x2) !== 180) {
        // Stitched across the antimeridian: cut at lon ±180.
        const side = x1 > 0 ? 180 : -180;
        const yc = y1 + ((side - x1) / (x2 + 2 * side - x1)) * (y2 - y1);
        addEdge(x1, y1, side, yc, owner);
        addEdge(-side, yc, x2, y2, owner);
      }
    }
  }
  return { edges: edges.subarray(0, 4 * count), edgeOwner: edgeOwner.subarray(0, count) };
}

/** Buckets every edge into each cell its bounding box touches (count, then fill). */
function bucketEdges(edges: Float32Array): Pick<Index, 'cellStart' | 'cellEdges'> {
  const edgeCount = edges.length / 4;
  const bounds = new Int16Array(4 * edgeCount); // first and last column, first and last row
  for (let e = 0; e < edgeCount; e++) {
    const x1 = edges[4 * e] as number;
    const y1 = edges[4 * e + 1] as number;
    const x2 = edges[4 * e + 2] as number;
    const y2 = edges[4 * e + 3] as number;
    bounds[4 * e] = col(Math.min(x1, x2));
    bounds[4 * e + 1] = col(Math.max(x1, x2));
    bounds[4 * e + 2] = row(Math.min(y1, y2));
    bounds[4 * e + 3] = row(Math.max(y1, y2));
  }
  const cellStart = new Int32Array(COLS * ROWS + 1);
  for (let e = 0; e < edgeCount; e++) {
    for (let r = bounds[4 * e + 2] as number; r <= (bounds[4 * e + 3] as number); r++) {
      for (let c = bounds[4 * e] as number; c <= (bounds[4 * e + 1] as number); c++) {
        const cell = r * COLS + c;
        cellStart[cell + 1] = (cellStart[cell + 1] as number) + 1;
      }
    }
  }
  for (let i = 0; i < COLS * ROWS; i++) (cellStart[i + 1] as number) += cellStart[i] as number;
  const cellEdges = new Int32Array(cellStart[COLS * ROWS] as number);
  const next = cellStart.slice(0, COLS * ROWS);
  for (let e = 0; e < edgeCount; e++) {
    for (let r = bounds[4 * e + 2] as number; r <= (bounds[4 * e + 3] as number); r++) {
      for (let c = bounds[4 * e] as number; c <= (bounds[4 * e + 1] as number); c++) {
        const cell = r * COLS + c;
        const at = next[cell] as number;
        cellEdges[at] = e;
        next[cell] = at + 1;
      }
    }
  }
  return { cellStart, cellEdges };
}

/**
 * The owner of every cell centre. The top-left centre (89.875 N, 179.875 W) is Arctic Ocean; walk
 * down the first column, then along each row, switching owner at the edges crossed on the way.
 */
function cellOwners(ix: EdgeCells): Int16Array {
  const cellOwner = new Int16Array(COLS * ROWS);
  const crossed = new Crossings();
  let columnOwner = -1;
  for (let r = ROWS - 1; r >= 0; r--) {
    const lon = centreLon(0);
    if (r < ROWS - 1) {
      const boundary = -90 + (r + 1) * CELL_DEG;
      crossed.clear();
      crossVertical(ix, (r + 1) * COLS, lon, boundary, centreLat(r + 1), crossed);
      crossVertical(ix, r * COLS, lon, centreLat(r), boundary, crossed);
      columnOwner = crossed.ownerAfter(columnOwner);
    }
    let owner = columnOwner;
    cellOwner[r * COLS] = owner;
    const lat = centreLat(r);
    for (let c = 1; c < COLS; c++) {
      const boundary = -180 + c * CELL_DEG;
      crossed.clear();
      crossHorizontal(ix, r * COLS + c - 1, lat, centreLon(c - 1), boundary, crossed);
      crossHorizontal(ix, r * COLS + c, lat, boundary, centreLon(c), crossed);
      owner = crossed.ownerAfter(owner);
      cellOwner[r * COLS + c] = owner;
    }
  }
  return cellOwner;
}

/** Outlines whose edges were crossed an odd number of times on a walk. */
class Crossings {
  private readonly odd: number[] = [];

  clear(): void {
    this.odd.length = 0;
  }

  toggle(owner: number): void {
    const at = this.odd.indexOf(owner);
    if (at < 0) this.odd.push(owner);
    else this.odd.splice(at, 1);
  }

  /** The owner at the end of the walk: the walk left `start` and/or entered another outline. */
  ownerAfter(start: number): number {
    if (start >= 0) this.toggle(start);
    return this.odd[0] ?? -1;
  }
}

type EdgeCells = Pick<Index, 'edges' | 'edgeOwner' | 'cellStart' | 'cellEdges'>;

/** Edges of one cell crossing the horizontal segment at `lat` with lon in [lonLo, lonHi). */
function crossHorizontal(ix: EdgeCells, cell: number, lat: number, lonLo: number, lonHi: number, out: Crossings): void {
  const { edges, cellStart, cellEdges } = ix;
  for (let k = cellStart[cell] as number, end = cellStart[cell + 1] as number; k < end; k++) {
    const e = cellEdges[k] as number;
    const x1 = edges[4 * e] as number;
    const y1 = edges[4 * e + 1] as number;
    const x2 = edges[4 * e + 2] as number;
    const y2 = edges[4 * e + 3] as number;
    if (y1 > lat === y2 > lat) continue;
    const x = x1 + ((lat - y1) * (x2 - x1)) / (y2 - y1);
    if (x >= lonLo && x < lonHi) out.toggle(ix.edgeOwner[e] as number);
  }
}

/** Edges of one cell crossing the vertical segment at `lon` with lat in [latLo, latHi). */
function crossVertical(ix: EdgeCells, cell: number, lon: number, latLo: number, latHi: number, out: Crossings): void {
  const { edges, cellStart, cellEdges } = ix;
  for (let k = cellStart[cell] as number, end = cellStart[cell + 1] as number; k < end; k++) {
    const e = cellEdges[k] as number;
    const x1 = edges[4 * e] as number;
    const y1 = edges[4 * e + 1] as number;
    const x2 = edges[4 * e + 2] as number;
    const y2 = edges[4 * e + 3] as number;
    if (x1 > lon === x2 > lon) continue;
    const y = y1 + ((lon - x1) * (y2 - y1)) / (x2 - x1);
    if (y >= latLo && y < latHi) out.toggle(ix.edgeOwner[e] as number);
  }
}

const queryCrossings = new Crossings();

/** The country whose 10m outline contains the point (lon in [-180, 180)), or null at sea. */
export function outlineAt(lat: number, lon: number): Country | null {
  const ix = getIndex();
  const c = col(lon);
  const r = row(lat);
  const cell = r * COLS + c;
  const cLon = centreLon(c);
  const cLat = centreLat(r);
  // Walk from the point to the centre: along the point's latitude, then along the centre's meridian.
  queryCrossings.clear();
  crossHorizontal(ix, cell, lat, Math.min(lon, cLon), Math.max(lon, cLon), queryCrossings);
  crossVertical(ix, cell, cLon, Math.min(lat, cLat), Math.max(lat, cLat), queryCrossings);
  const owner = queryCrossings.ownerAfter(ix.cellOwner[cell] as number);
  return owner < 0 ? null : (ix.countries[owner] as Country);
}

export interface OutlineDistance {
  readonly km: number;
  readonly country: Country;
}

/**
 * The nearest outline edge within `maxKm` (of `country` only, when given): the distance to a
 * country's land from the sea, or to its border or coast from inside. Distances are measured in an
 * equirectangular projection centred on the point: exact enough at tens of kilometres.
 */
export function nearestOutline(lat: number, lon: number, maxKm: number, country?: Country): OutlineDistance | null {
  const ix = getIndex();
  const only = country === undefined ? -1 : (ix.ownerOf.get(country) as number);
  const dLat = maxKm / KM_PER_DEG;
  const poleward = Math.min(90, Math.max(Math.abs(lat - dLat), Math.abs(lat + dLat)));
  const dLon = maxKm / (KM_PER_DEG * Math.max(Math.cos(poleward * RAD), 1e-6));
  const allColumns = dLon >= 180;
  const c0 = allColumns ? 0 : Math.floor((lon - dLon + 180) / CELL_DEG);
  const c1 = allColumns ? COLS - 1 : Math.floor((lon + dLon + 180) / CELL_DEG);
  const kx = Math.cos(lat * RAD);
  let best = Infinity;
  let bestOwner = -1;
  for (let r = row(lat - dLat), r1 = row(lat + dLat); r <= r1; r++) {
    for (let c = c0; c <= c1; c++) {
      const cell = r * COLS + (((c % COLS) + COLS) % COLS);
      for (let k = ix.cellStart[cell] as number, end = ix.cellStart[cell + 1] as number; k < end; k++) {
        const e = ix.cellEdges[k] as number;
        const owner = ix.edgeOwner[e] as number;
        if (only >= 0 && owner !== only) continue;
        const ax = wrapLon((ix.edges[4 * e] as number) - lon) * kx;
        const ay = (ix.edges[4 * e + 1] as number) - lat;
        const bx = wrapLon((ix.edges[4 * e + 2] as number) - lon) * kx;
        const by = (ix.edges[4 * e + 3] as number) - lat;
        const d2 = originToSegment2(ax, ay, bx, by);
        if (d2 < best) {
          best = d2;
          bestOwner = owner;
        }
      }
    }
  }
  const km = Math.sqrt(best) * KM_PER_DEG;
  return bestOwner >= 0 && km <= maxKm ? { km, country: ix.countries[bestOwner] as Country } : null;
}

function wrapLon(dLon: number): number {
  return dLon > 180 ? dLon - 360 : dLon < -180 ? dLon + 360 : dLon;
}

/** Squared distance from the origin to the segment a-b. */
function originToSegment2(ax: number, ay: number, bx: number, by: number): number {
  const dx = bx - ax;
  const dy = by - ay;
  const length2 = dx * dx + dy * dy;
  const t = length2 > 0 ? Math.min(1, Math.max(0, -(ax * dx + ay * dy) / length2)) : 0;
  const x = ax + t * dx;
  const y = ay + t * dy;
  return x * x + y * y;
}
