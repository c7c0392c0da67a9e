/**
 * Natural Earth admin-0 outlines as a grid index: which outline contains a point (the land test,
 * and the land rasters of the maps) and how far a point is from the outline edges of one country or
 * of any (offshore distance, distance to a border).
 *
 * Data: world-atlas (atlas.ts), read on first use per scale. Point lookup uses 1:10m, quantised to
 * 0.0036 x 0.0017 degrees (a few hundred metres: a beach road can fall just outside the land); the
 * world map's raster uses 1:110m, which is enough at a dot of a degree or more and loads at once.
 * Edges are those of the plane [-180, 180] (cut at the antimeridian), so the plane sees every
 * outline edge exactly once.
 *
 * Index: edges are bucketed into a grid of square cells (a quarter of a degree at 10m). Each cell
 * knows which outline contains its centre, found once by walking from an Arctic Ocean cell to every
 * other cell and switching owner at every edge crossed on the way. A query only counts the edges crossed between the point and its
 * cell's centre, so the land test costs one cell, and a distance search only the cells in range.
 *
 * Building the 10m index costs ~0.4 s of CPU (reading the 3.6 MB of arcs, bucketing ~0.5 M edges,
 * walking a million cells), paid by every `geolab eval run` at its first pin. `npm run build`
 * (scripts/build.mjs) writes it once to dist/outlines-10m.bin (`encodeOutlineIndex`), and loading
 * that is a read. The file records the world-atlas file it was made from (size and mtime) and the
 * countries its owners index; when either differs, or without the file (sources run by tsx or
 * vitest before a build), the index is built as before. test/geo/outline-index-file.test.ts checks
 * that the file's index is the built one.
 */

import { join } from 'node:path';
import { KM_PER_DEG, normalizeLon } from '../core/geodesy.js';
import { PACKAGE_ROOT } from '../paths.js';
import { encodeBuildFile, readBuildFile, sameSource, sourceStamp, type SourceStamp } from './build-file.js';
import { arcsOf, atlasPath, forEachPlaneEdge, readCountryArcs, type CountryArcs, type OutlineScale } from './atlas.js';
import { allCountries, countryByName, type Country } from './countries.js';

/**
 * Cell size of the index by scale: about as long as the scale's edges, so that a cell holds a few.
 * Building walks every cell once, so a coarse scale gets coarse cells (16 times fewer at 110m).
 */
const CELL_DEG: Readonly<Record<OutlineScale, number>> = { '110m': 1, '50m': 0.5, '10m': 0.25 };
const RAD = Math.PI / 180;

/** The cells of the index: `cols` x `rows` squares of `cellDeg`, row 0 at the south pole. */
class Grid {
  readonly cols: number;
  readonly rows: number;

  constructor(readonly cellDeg: number) {
    this.cols = 360 / cellDeg;
    this.rows = 180 / cellDeg;
  }

  col(lon: number): number {
    return Math.min(this.cols - 1, Math.max(0, Math.floor((lon + 180) / this.cellDeg)));
  }

  row(lat: number): number {
    return Math.min(this.rows - 1, Math.max(0, Math.floor((lat + 90) / this.cellDeg)));
  }

  centreLon(c: number): number {
    return -180 + (c + 0.5) * this.cellDeg;
  }

  centreLat(r: number): number {
    return -90 + (r + 0.5) * this.cellDeg;
  }
}

export interface OutlineIndex {
  readonly grid: Grid;
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

const indexByScale = new Map<OutlineScale, OutlineIndex>();

/** Loads the 10m outlines now rather than on the first query. */
export function loadOutlines(): void {
  getIndex('10m');
}

function getIndex(scale: OutlineScale): OutlineIndex {
  let index = indexByScale.get(scale);
  if (!index) {
    const fromFile = scale === FILE_SCALE ? readOutlineIndex(OUTLINES_FILE) : null;
    if (scale === FILE_SCALE) indexSource = fromFile ? 'file' : 'built';
    index = fromFile ?? buildOutlineIndex(scale);
    indexByScale.set(scale, index);
  }
  return index;
}

/** The index built from the atlas (what the build's file holds, for the 10m scale). */
export function buildOutlineIndex(scale: OutlineScale): OutlineIndex {
  return buildIndex(readCountryArcs(scale), new Grid(CELL_DEG[scale]));
}

/** The scale whose index the build writes: the one point lookups use. */
const FILE_SCALE: OutlineScale = '10m';
export const OUTLINES_FILE = join(PACKAGE_ROOT, 'dist', `outlines-${FILE_SCALE}.bin`);
const MAGIC = 'GOI1';

interface FileHeader {
  /** The world-atlas file the index was built from. */
  source: SourceStamp;
  /** allCountries()' admin names in order: what edgeOwner and cellOwner index. */
  countries: string[];
  /** Element counts of edges and cellEdges (the other arrays' follow from them and the grid). */
  edges: number;
  cellEdges: number;
}

/** The 10m index as dist/outlines-10m.bin holds it (build-file.ts's layout). */
export function encodeOutlineIndex(): Buffer {
  const ix = buildOutlineIndex(FILE_SCALE);
  const header: FileHeader = {
    source: sourceStamp(atlasPath(FILE_SCALE)),
    countries: ix.countries.map((c) => c.admin),
    edges: ix.edges.length,
    cellEdges: ix.cellEdges.length,
  };
  return encodeBuildFile(MAGIC, header, [ix.edges, ix.edgeOwner, ix.cellStart, ix.cellEdges, ix.cellOwner]);
}

/** The index the file holds, or null when it is missing, not this format, or made from other data. */
export function readOutlineIndex(file: string): OutlineIndex | null {
  const read = readBuildFile<FileHeader>(file, MAGIC);
  if (!read || !sameSource(read.header.source, atlasPath(FILE_SCALE))) return null;
  const { header } = read;
  const countries = allCountries();
  if (header.countries.length !== countries.length || header.countries.some((name, i) => name !== countries[i]!.admin)) return null;
  const grid = new Grid(CELL_DEG[FILE_SCALE]);
  const cells = grid.cols * grid.rows;
  const columns = read.columns([
    [Float32Array, header.edges],
    [Uint16Array, header.edges / 4],
    [Int32Array, cells + 1],
    [Int32Array, header.cellEdges],
    [Int16Array, cells],
  ]);
  if (!columns) return null;
  const [edges, edgeOwner, cellStart, cellEdges, cellOwner] = columns as [Float32Array, Uint16Array, Int32Array, Int32Array, Int16Array];
  const ownerOf = new Map(countries.map((c, i) => [c, i]));
  return { grid, edges, edgeOwner, countries, ownerOf, cellStart, cellEdges, cellOwner };
}

/** Where the 10m index came from: 'file' (the build's), 'built' (from the atlas), or null before the first query. */
export function outlineIndexSource(): 'file' | 'built' | null {
  return indexSource;
}
let indexSource: 'file' | 'built' | null = null;

function buildIndex(outlines: CountryArcs, grid: Grid): OutlineIndex {
  const countries = allCountries();
  const ownerOf = new Map(countries.map((c, i) => [c, i]));
  const { edges, edgeOwner } = collectEdges(outlines, ownerOf);
  const { cellStart, cellEdges } = bucketEdges(edges, grid);
  const partial = { grid, edges, edgeOwner, countries, ownerOf, cellStart, cellEdges };
  return { ...partial, cellOwner: cellOwners(partial) };
}

/** Every outline edge once, tagged with its country, as the plane [-180, 180] sees it. */
function collectEdges(
  outlines: CountryArcs,
  ownerOf: ReadonlyMap<Country, number>,
): Pick<OutlineIndex, 'edges' | 'edgeOwner'> {
  // Which arcs outline which country. An arc used twice by one country separates two of its own
  // polygons: not an outline edge.
  const outlined: { arc: number; owner: number }[] = [];
  let capacity = 0;
  for (const geometry of outlines.topology.objects.countries.geometries) {
    const country = countryByName(geometry.properties.name);
    if (!country) throw new Error(`world-atlas outline "${geometry.properties.name}" has no country row`);
    const uses = new Map<number, number>();
    for (const arc of arcsOf(geometry)) uses.set(arc, (uses.get(arc) ?? 0) + 1);
    for (const [arc, used] of uses) {
      if (used % 2 === 0) continue;
      outlined.push({ arc, owner: ownerOf.get(country) as number });
      forEachPlaneEdge(outlines, arc, () => capacity++);
    }
  }

  // Single precision is ample for points quantised to 0.0036 degrees.
  const edges = new Float32Array(4 * capacity);
  const edgeOwner = new Uint16Array(capacity);
  let count = 0;
  for (const { arc, owner } of outlined) {
    forEachPlaneEdge(outlines, arc, (x1, y1, x2, y2) => {
      edges[4 * count] = x1;
      edges[4 * count + 1] = y1;
      edges[4 * count + 2] = x2;
      edges[4 * count + 3] = y2;
      edgeOwner[count++] = owner;
    });
  }
  return { edges, edgeOwner };
}

/** Buckets every edge into each cell its bounding box touches (count, then fill). */
function bucketEdges(edges: Float32Array, grid: Grid): Pick<OutlineIndex, 'cellStart' | 'cellEdges'> {
  const { cols, rows } = grid;
  const edgeCount = edges.length / 4;
  const bounds = new Int16Array(4 * edgeCount); // first and last column, first and last row
  for (let e = 0; e < edgeCount; e++) {
    const x1 = edges[4 * e] as number;
    const y1 = edges[4 * e + 1] as number;
    const x2 = edges[4 * e + 2] as number;
    const y2 = edges[4 * e + 3] as number;
    bounds[4 * e] = grid.col(Math.min(x1, x2));
    bounds[4 * e + 1] = grid.col(Math.max(x1, x2));
    bounds[4 * e + 2] = grid.row(Math.min(y1, y2));
    bounds[4 * e + 3] = grid.row(Math.max(y1, y2));
  }
  const cellStart = new Int32Array(cols * rows + 1);
  for (let e = 0; e < edgeCount; e++) {
    for (let r = bounds[4 * e + 2] as number; r <= (bounds[4 * e + 3] as number); r++) {
      for (let c = bounds[4 * e] as number; c <= (bounds[4 * e + 1] as number); c++) {
        const cell = r * cols + c;
        cellStart[cell + 1] = (cellStart[cell + 1] as number) + 1;
      }
    }
  }
  for (let i = 0; i < cols * rows; i++) (cellStart[i + 1] as number) += cellStart[i] as number;
  const cellEdges = new Int32Array(cellStart[cols * rows] as number);
  const next = cellStart.slice(0, cols * rows);
  for (let e = 0; e < edgeCount; e++) {
    for (let r = bounds[4 * e + 2] as number; r <= (bounds[4 * e + 3] as number); r++) {
      for (let c = bounds[4 * e] as number; c <= (bounds[4 * e + 1] as number); c++) {
        const cell = r * cols + c;
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
  const { grid } = ix;
  const { cols, rows } = grid;
  const cellOwner = new Int16Array(cols * rows);
  const crossed = new Crossings();
  let columnOwner = -1;
  for (let r = rows - 1; r >= 0; r--) {
    const lon = grid.centreLon(0);
    if (r < rows - 1) {
      const boundary = -90 + (r + 1) * grid.cellDeg;
      crossed.clear();
      crossVertical(ix, (r + 1) * cols, lon, boundary, grid.centreLat(r + 1), crossed);
      crossVertical(ix, r * cols, lon, grid.centreLat(r), boundary, crossed);
      columnOwner = crossed.ownerAfter(columnOwner);
    }
    let owner = columnOwner;
    cellOwner[r * cols] = owner;
    const lat = grid.centreLat(r);
    for (let c = 1; c < cols; c++) {
      const boundary = -180 + c * grid.cellDeg;
      crossed.clear();
      crossHorizontal(ix, r * cols + c - 1, lat, grid.centreLon(c - 1), boundary, crossed);
      crossHorizontal(ix, r * cols + c, lat, boundary, grid.centreLon(c), crossed);
      owner = crossed.ownerAfter(owner);
      cellOwner[r * cols + c] = owner;
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

type EdgeCells = Pick<OutlineIndex, 'grid' | 'edges' | 'edgeOwner' | 'cellStart' | 'cellEdges'>;

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

/** The country whose outline contains the point (lon in [-180, 180)), or null at sea. */
export function outlineAt(lat: number, lon: number, scale: OutlineScale = '10m'): Country | null {
  const ix = getIndex(scale);
  const owner = ownerAt(ix, lat, lon);
  return owner < 0 ? null : (ix.countries[owner] as Country);
}

/** Index in ix.countries of the outline containing the point, -1 at sea. */
function ownerAt(ix: OutlineIndex, lat: number, lon: number): number {
  const { grid } = ix;
  const c = grid.col(lon);
  const r = grid.row(lat);
  const cell = r * grid.cols + c;
  const cLon = grid.centreLon(c);
  const cLat = grid.centreLat(r);
  // Walk from the point to the centre: along the point's latitude, then along the centre's meridian.
  queryCrossings.clear();
  crossHorizontal(ix, cell, lat, Math.min(lon, cLon), Math.max(lon, cLon), queryCrossings);
  crossVertical(ix, cell, cLon, Math.min(lat, cLat), Math.max(lat, cLat), queryCrossings);
  return queryCrossings.ownerAfter(ix.cellOwner[cell] as number);
}

export interface OutlineDistance {
  readonly km: number;
  readonly country: Country;
}

/**
 * The nearest 10m outline edge within `maxKm` (of `country` only, when given): the distance to a
 * country's land from the sea, or to its border or coast from inside. Distances are measured in an
 * equirectangular projection centred on the point: exact enough at tens of kilometres.
 */
export function nearestOutline(lat: number, lon: number, maxKm: number, country?: Country): OutlineDistance | null {
  const ix = getIndex('10m');
  const only = country === undefined ? -1 : (ix.ownerOf.get(country) as number);
  const dLat = maxKm / KM_PER_DEG;
  const poleward = Math.min(90, Math.max(Math.abs(lat - dLat), Math.abs(lat + dLat)));
  const dLon = maxKm / (KM_PER_DEG * Math.max(Math.cos(poleward * RAD), 1e-6));
  const allColumns = dLon >= 180;
  const { cellDeg, cols } = ix.grid;
  const c0 = allColumns ? 0 : Math.floor((lon - dLon + 180) / cellDeg);
  const c1 = allColumns ? cols - 1 : Math.floor((lon + dLon + 180) / cellDeg);
  const kx = Math.cos(lat * RAD);
  let best = Infinity;
  let bestOwner = -1;
  for (let r = ix.grid.row(lat - dLat), r1 = ix.grid.row(lat + dLat); r <= r1; r++) {
    for (let c = c0; c <= c1; c++) {
      const cell = r * cols + (((c % cols) + cols) % cols);
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

/** An equirectangular crop of the globe; longitudes run east from `west` (an east edge may pass 180). */
export interface LonLatWindow {
  readonly west: number;
  readonly north: number;
  readonly lonSpanDeg: number;
  readonly latSpanDeg: number;
}

/**
 * The outline under the centre of each dot of a `width` x `height` grid over `window`, row by row
 * from the north-west: 0 at sea, else 1 + the country's place in allCountries() (the same at every
 * scale).
 */
export function outlineDots(window: LonLatWindow, width: number, height: number, scale: OutlineScale): Uint16Array {
  const ix = getIndex(scale);
  const dots = new Uint16Array(width * height);
  const degPerDotX = window.lonSpanDeg / width;
  const degPerDotY = window.latSpanDeg / height;
  for (let y = 0; y < height; y++) {
    const lat = window.north - (y + 0.5) * degPerDotY;
    for (let x = 0; x < width; x++) {
      dots[y * width + x] = ownerAt(ix, lat, normalizeLon(window.west + (x + 0.5) * degPerDotX)) + 1;
    }
  }
  return dots;
}

/** Land rasters kept: the world map redraws the same few sizes on every frame. */
const LAND_RASTERS_KEPT = 16;
const landRasters = new Map<string, Uint8Array>();

/** 1 where a dot's centre (see outlineDots) is inside an outline, 0 at sea. Cached. */
export function landDots(window: LonLatWindow, width: number, height: number, scale: OutlineScale): Uint8Array {
  const key = `${window.west} ${window.north} ${window.lonSpanDeg} ${window.latSpanDeg} ${width} ${height} ${scale}`;
  let dots = landRasters.get(key);
  if (!dots) {
    dots = Uint8Array.from(outlineDots(window, width, height, scale), (owner) => (owner > 0 ? 1 : 0));
    if (landRasters.size === LAND_RASTERS_KEPT) landRasters.delete(landRasters.keys().next().value as string);
    landRasters.set(key, dots);
  }
  return dots;
}
