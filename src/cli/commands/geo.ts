/** `geolab geo locate LAT LON` and `geolab geo locate -` (lat,lon lines on stdin, one result per line). */
import { EXIT, UsageError } from '../../core/errors.js';
import { streamLines } from '../../files.js';
import { locate } from '../../geo/index.js';
import type { GlobalOptions } from '../options.js';
import { printJson, printLine, warn } from '../output.js';

/** A "lat,lon" line is a few dozen bytes: a longer one is refused unread, so stdin without line ends costs no memory. */
const MAX_POINT_LINE_BYTES = 4096;

export interface LocatedPoint {
  lat: number;
  lon: number;
  country: string | null;
  subregion: string | null;
  continent: string | null;
  nearest_city: string | null;
  city_distance_km: number | null;
  city_bearing: string | null;
  offshore_km: number | null;
}

export function locatePoint(lat: number, lon: number): LocatedPoint {
  const where = locate(lat, lon);
  const city = where.nearestCity;
  return {
    lat,
    lon,
    country: where.country,
    subregion: where.subregion,
    continent: where.continent,
    nearest_city: city?.name ?? null,
    city_distance_km: city ? Math.round(city.distanceKm * 10) / 10 : null,
    city_bearing: city?.bearing ?? null,
    offshore_km: where.offshoreKm,
  };
}

/** Parses "lat", "lon" into a checked point, or says what is wrong. */
export function parsePoint(latText: string, lonText: string): { lat: number; lon: number } | { error: string } {
  const lat = Number(latText);
  const lon = Number(lonText);
  if (latText.trim() === '' || !Number.isFinite(lat)) return { error: `latitude "${latText.trim()}" is not a number` };
  if (lonText.trim() === '' || !Number.isFinite(lon)) return { error: `longitude "${lonText.trim()}" is not a number` };
  if (Math.abs(lat) > 90) return { error: `latitude ${lat} is out of range [-90, 90]` };
  if (Math.abs(lon) > 180) return { error: `longitude ${lon} is out of range [-180, 180]` };
  return { lat, lon };
}

function describe(p: LocatedPoint): string {
  const place = p.country
    ? `${p.country} (${p.subregion}, ${p.continent})${p.offshore_km ? `, ${p.offshore_km} km offshore` : ''}`
    : 'open water';
  const city = p.nearest_city ? `; ${p.city_distance_km} km ${p.city_bearing} of ${p.nearest_city}` : '';
  return `${p.lat}, ${p.lon}: ${place}${city}`;
}

export async function locateCommand(latArg: string, lonArg: string | undefined, opts: GlobalOptions): Promise<void> {
  if (latArg === '-') {
    if (lonArg !== undefined) throw new UsageError('`geolab geo locate -` reads points from stdin and takes no longitude');
    return locateStream(Boolean(opts.json));
  }
  if (lonArg === undefined) throw new UsageError('give a latitude and a longitude, e.g. `geolab geo locate -33.92 18.42`');
  const point = parsePoint(latArg, lonArg);
  if ('error' in point) throw new UsageError(point.error);
  const located = locatePoint(point.lat, point.lon);
  if (opts.json) printJson(located);
  else printLine(describe(located));
}

/**
 * One result per input line, plain text unless --json (then one JSON object per line). A bad line is
 * named with its number (an error object in JSON, a line on stderr in text); the rest go on.
 */
async function locateStream(json: boolean): Promise<void> {
  let lineNo = 0;
  let bad = 0;
  for await (const read of streamLines(process.stdin, MAX_POINT_LINE_BYTES)) {
    lineNo = read.line;
    if ('text' in read && read.text.trim() === '') continue;
    const parts = 'text' in read ? read.text.split(',') : [];
    const point =
      'tooLong' in read
        ? { error: `line longer than ${MAX_POINT_LINE_BYTES} bytes; expected "lat,lon"` }
        : parts.length === 2
          ? parsePoint(parts[0] as string, parts[1] as string)
          : { error: 'expected "lat,lon"' };
    if ('error' in point) {
      bad++;
      if (json) printJson({ line: lineNo, error: point.error });
      else warn(`geolab: stdin:${lineNo}: ${point.error}`);
      continue;
    }
    const located = locatePoint(point.lat, point.lon);
    if (json) printJson(located);
    else printLine(describe(located));
  }
  if (bad > 0) {
    process.stderr.write(`geolab: ${bad} of ${lineNo} input line(s) could not be read\n`);
    process.exitCode = EXIT.usage;
  }
}
