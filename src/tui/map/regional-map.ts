/**
 * The reveal's regional map: guess and truth on an equirectangular crop fitted to them and the
 * great circle between them, scaled by the cosine of the middle latitude so that a kilometre is as
 * long across as up and down (braille dots are square). Land comes from geo's raster of the 10m
 * outlines, which hold their shape down to a few kilometres where the world map's 110m do not.
 */
import { greatCircleEvery, haversineKm, KM_PER_DEG, normalizeLon, type LatLon } from '../../core/geodesy.js';
import { outlineDots, type LonLatWindow } from '../../geo/outlines.js';
import { paintBraille, type CellMark, type MapSegment } from './braille.js';
import { GUESS_MARK, TRUTH_MARK } from './world-map.js';

/** A crop of the globe; longitudes run east from `west` without wrapping (an east edge may pass 180). */
export interface Region extends LonLatWindow {
  /** Ground distance across one character cell (two dots) at the middle latitude. */
  readonly kmPerCell: number;
}

export interface RegionalMapInput {
  columns: number;
  rows: number;
  guess: LatLon;
  truth: LatLon;
  pins?: readonly LatLon[];
  /** Fit the crop to the pins too, not only to guess and truth (the Player's retried guesses). */
  fitPins?: boolean;
}

export interface RegionalMap {
  region: Region;
  lines: MapSegment[][];
}

/** Share of each side of the map left clear around guess, truth and the line between them. */
const MARGIN = 0.2;
/** The smallest crop across its shorter side: a guess on the truth still shows the streets' scale. */
const MIN_SPAN_KM = 2;
/** Samples of the great circle used to fit the crop: enough to follow its bow towards a pole. */
const FIT_SAMPLES = 64;
/** A crop wider than half the globe is no longer regional: the world map shows it better. */
const MAX_LON_SPAN_DEG = 180;
/** Poleward of this the cosine scaling stretches the map beyond use; the world map shows it better. */
const MAX_LAT = 84;

/**
 * The crop of `columns` x `rows` cells that holds guess, truth and the great circle between them
 * with a margin, or null when they are too far apart for a regional map (half the globe, or a pole).
 */
export function fitRegion(guess: LatLon, truth: LatLon, columns: number, rows: number, also: readonly LatLon[] = []): Region | null {
  const width = columns * 2;
  const height = rows * 4;
  const stepDeg = Math.max(haversineKm(guess.lat, guess.lon, truth.lat, truth.lon) / KM_PER_DEG / FIT_SAMPLES, 1e-6);
  const points = [...greatCircleEvery(guess, truth, stepDeg), ...also].map((p) => ({ lat: p.lat, lon: unwrapFrom(guess.lon, p.lon) }));
  const lats = points.map((p) => p.lat);
  const lons = points.map((p) => p.lon);
  const [south, north] = [Math.min(...lats), Math.max(...lats)];
  const [west, east] = [Math.min(...lons), Math.max(...lons)];
  const midLat = (south + north) / 2;
  const cosLat = Math.cos((midLat * Math.PI) / 180);
  const usable = 1 - 2 * MARGIN;
  // Degrees of latitude per dot: the tighter of the two directions decides.
  const degPerDot = Math.max(
    ((east - west) * cosLat) / (width * usable),
    (north - south) / (height * usable),
    MIN_SPAN_KM / KM_PER_DEG / Math.min(width, height),
  );
  const latSpanDeg = degPerDot * height;
  const lonSpanDeg = (degPerDot * width) / cosLat;
  const top = midLat + latSpanDeg / 2;
  if (lonSpanDeg > MAX_LON_SPAN_DEG || top > MAX_LAT || top - latSpanDeg < -MAX_LAT) return null;
  return {
    west: (west + east) / 2 - lonSpanDeg / 2,
    north: top,
    lonSpanDeg,
    latSpanDeg,
    kmPerCell: degPerDot * 2 * KM_PER_DEG,
  };
}

/** The dot (column, row; fractional) of a point on a `width` x `height` dot grid, or null outside. */
export function projectDot(region: Region, width: number, height: number, p: LatLon): { x: number; y: number } | null {
  const x = ((((p.lon - region.west) % 360) + 360) % 360 / region.lonSpanDeg) * width;
  const y = ((region.north - p.lat) / region.latSpanDeg) * height;
  return x >= 0 && x < width && y >= 0 && y < height ? { x, y } : null;
}

/** The regional map, or null when guess and truth are too far apart for one (see fitRegion). */
export function drawRegionalMap(input: RegionalMapInput): RegionalMap | null {
  const { columns, rows, guess, truth } = input;
  const region = fitRegion(guess, truth, columns, rows, input.fitPins ? input.pins : []);
  if (!region) return null;
  const width = columns * 2;
  const height = rows * 4;
  const degPerDotY = region.latSpanDeg / height;

  // Land dots less the last dot before a border with another country: inland, where every dot is
  // land, borders are what shows where guess and truth lie.
  const owner = outlineDots(region, width, height, '10m');
  const land = new Uint8Array(width * height);
  for (let i = 0; i < width * height; i++) {
    const right = (i + 1) % width === 0 ? owner[i] : owner[i + 1];
    const below = i + width < width * height ? owner[i + width] : owner[i];
    if (owner[i] && (right === owner[i] || !right) && (below === owner[i] || !below)) land[i] = 1;
  }

  const path = new Uint8Array(width * height);
  // Half a dot apart, so the line has no gaps.
  for (const p of greatCircleEvery(guess, truth, degPerDotY / 2)) {
    const dot = projectDot(region, width, height, p);
    if (dot) path[Math.floor(dot.y) * width + Math.floor(dot.x)] = 1;
  }

  const marks = new Map<number, CellMark>();
  const mark = (p: LatLon, kind: CellMark['kind'], text: string) => {
    const dot = projectDot(region, width, height, p);
    if (dot) marks.set(Math.floor(dot.y / 4) * columns + Math.floor(dot.x / 2), { kind, text });
  };
  input.pins?.forEach((p, i) => mark(p, 'pin', String((i + 1) % 10)));
  // The truth last: a guess a few metres off shares its cell, and the answer matters more.
  mark(guess, 'guess', GUESS_MARK);
  mark(truth, 'truth', TRUTH_MARK);
  return { region, lines: paintBraille(columns, rows, land, path, marks) };
}

/** `lon` moved by whole turns to lie within 180 degrees east or west of `from`. */
function unwrapFrom(from: number, lon: number): number {
  return from + normalizeLon(lon - from);
}
