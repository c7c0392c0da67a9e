/**
 * Point lookup: the country of a point by its Natural Earth ADMIN name, how far it lies off the
 * coast, and the nearest major city, as pins, country verdicts and task validation need them.
 *
 * - Country: country-coder (accurate borders, territorial waters included; right where Natural
 *   Earth's outlines are coarse, e.g. Nakhon Phanom on the Mekong is Thailand), its ISO codes mapped
 *   to the project's country table.
 * - Land or sea: Natural Earth 10m outlines (outlines.ts; lakes count as land), since country-coder
 *   labels coastal water too. A point at sea within 25 km of land belongs to that land's country
 *   (country-coder's own country first) with its distance to that land; farther out it is open water.
 * - Nearest major city: cities.ts.
 * Every data set loads on first use, never at import (country-coder's borders come from the build's
 * pre-digested copy, coder-borders.ts: the package itself costs ~0.15 s to load).
 */

import { compass8, haversineKm, initialBearingDeg, normalizeLon, type Compass8 } from '../core/geodesy.js';
import { loadCities, nearestCity } from './cities.js';
import { smallestCoderFeature, type CoderFeature } from './coder-borders.js';
import { countryByAdmin, countryByIso, type Country } from './countries.js';
import { loadOutlines, nearestOutline, outlineAt } from './outlines.js';

/** How far off the coast a point still belongs to a country. */
export const OFFSHORE_MAX_KM = 25;

export interface Place {
  /** Natural Earth ADMIN name; null in open water. */
  readonly country: string | null;
  readonly iso2: string | null;
  readonly iso3: string | null;
  readonly subregion: string | null;
  readonly continent: string | null;
  /** 0 on land, km (0.1 km steps) to the country's land at sea, null in open water. */
  readonly offshoreKm: number | null;
}

export interface NearestCity {
  readonly name: string;
  /** ISO alpha-2 code of the city's country. */
  readonly iso2: string;
  readonly lat: number;
  readonly lon: number;
  /** Great-circle km from the city to the point, in 0.1 km steps. */
  readonly distanceKm: number;
  /** 8-point compass direction from the city to the point. */
  readonly bearing: Compass8;
}

export interface Location extends Place {
  readonly nearestCity: NearestCity;
}

/** country-coder features identified by Wikidata id rather than an ISO code. */
const CODER_WIKIDATA: Readonly<Record<string, string>> = {
  Q23681: 'Northern Cyprus',
  Q9143535: 'Akrotiri Sovereign Base Area',
  Q9206745: 'Dhekelia Sovereign Base Area',
  Q133888: 'Ashmore and Cartier Islands',
  Q172216: 'Coral Sea Islands',
};

/**
 * Natural Earth carves these areas out of a country that country-coder does not split (Somaliland
 * is one of the 1:110m rows task labels come from): inside their outline, they win over the parent.
 */
export const CARVED_OUT_OF: Readonly<Record<string, string>> = {
  Somaliland: 'Somalia',
  'Baykonur Cosmodrome': 'Kazakhstan',
  'US Naval Base Guantanamo Bay': 'Cuba',
  'Cyprus No Mans Area': 'Cyprus',
};

const byCoderFeature = new Map<string, Country | null>();

/** The table row of a country-coder feature: by its own code, else the first group or parent with one. */
export function countryOfCoderFeature(feature: CoderFeature): Country | null {
  const { id, iso1A2, groups, country } = feature.properties;
  const named = CODER_WIKIDATA[id];
  if (named) return countryByAdmin(named);
  for (const code of [iso1A2, ...groups, country]) {
    const row = code === undefined ? null : countryByIso(code);
    if (row) return row;
  }
  return null;
}

function coderCountry(lat: number, lon: number): Country | null {
  const smallest = smallestCoderFeature(lon, lat);
  if (!smallest) return null;
  const id = smallest.properties.id;
  if (!byCoderFeature.has(id)) byCoderFeature.set(id, countryOfCoderFeature(smallest));
  return byCoderFeature.get(id) as Country | null;
}

function checkPoint(lat: number, lon: number): void {
  if (!(Math.abs(lat) <= 90) || !Number.isFinite(lon)) {
    throw new RangeError(`not a point: lat ${lat}, lon ${lon} (lat must be in [-90, 90], lon finite)`);
  }
}

function round1(km: number): number {
  return Math.round(km * 10) / 10;
}

interface Resolved {
  readonly country: Country | null;
  readonly offshoreKm: number | null;
}

function resolve(lat: number, lon: number): Resolved {
  const coded = coderCountry(lat, lon);
  const outline = outlineAt(lat, lon);
  if (outline) {
    const carved = coded !== null && CARVED_OUT_OF[outline.admin] === coded.admin;
    return { country: coded === null || carved ? outline : coded, offshoreKm: 0 };
  }
  const shore =
    (coded && nearestOutline(lat, lon, OFFSHORE_MAX_KM, coded)) ?? nearestOutline(lat, lon, OFFSHORE_MAX_KM);
  return shore ? { country: shore.country, offshoreKm: round1(shore.km) } : { country: null, offshoreKm: null };
}

function toPlace({ country, offshoreKm }: Resolved): Place {
  return {
    country: country?.admin ?? null,
    iso2: country?.iso2 ?? null,
    iso3: country?.iso3 ?? null,
    subregion: country?.subregion ?? null,
    continent: country?.continent ?? null,
    offshoreKm,
  };
}

/**
 * The country country-coder alone puts a point in (territorial waters included), without loading
 * the outlines: cheap where the caller can live without carve-outs and the 25 km offshore rule.
 */
export function codedCountryAt(lat: number, lon: number): Country | null {
  checkPoint(lat, lon);
  return coderCountry(lat, normalizeLon(lon));
}

/** Country, subregion and offshore distance of a point, without the city search. */
export function countryAt(lat: number, lon: number): Place {
  checkPoint(lat, lon);
  return toPlace(resolve(lat, normalizeLon(lon)));
}

/** Everything a pin describes: country (or open water), offshore distance, nearest major city. */
export function locate(lat: number, lon: number): Location {
  checkPoint(lat, lon);
  const normLon = normalizeLon(lon);
  const city = nearestCity(lat, normLon);
  return {
    ...toPlace(resolve(lat, normLon)),
    nearestCity: {
      name: city.name,
      iso2: city.iso2,
      lat: city.lat,
      lon: city.lon,
      distanceKm: round1(haversineKm(city.lat, city.lon, lat, normLon)),
      bearing: compass8(initialBearingDeg(city.lat, city.lon, lat, normLon)),
    },
  };
}

/**
 * Km from the point to the nearest border or coastline edge (Natural Earth 10m) of the country
 * containing it, for "label says Laos, point is in Thailand, 0.8 km from the border". Null in open
 * water.
 */
export function distanceToBorderKm(lat: number, lon: number): number | null {
  checkPoint(lat, lon);
  const normLon = normalizeLon(lon);
  const { country } = resolve(lat, normLon);
  if (!country) return null;
  for (let radiusKm = OFFSHORE_MAX_KM; radiusKm < 40_000; radiusKm *= 4) {
    const edge = nearestOutline(lat, normLon, radiusKm, country);
    if (edge) return round1(edge.km);
  }
  return null;
}

/**
 * Loads every data set now (country-coder, outlines, cities) instead of on the first lookup, for
 * benchmarks and servers that want a warm first request; returns the load time in ms.
 */
export function loadGeography(): number {
  const started = performance.now();
  coderCountry(0, 0);
  loadOutlines();
  loadCities();
  return performance.now() - started;
}
