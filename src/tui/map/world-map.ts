/**
 * The world map as braille text: each character cell holds 2 x 4 dots, which on a terminal cell
 * about twice as tall as wide makes the dots square, so an equirectangular map keeps its shape.
 * Land is dotted (Natural Earth 1:110m outlines, from geo's land raster), the great circle from guess to truth is sampled along its initial bearing, and
 * the guess, the truth and the pins replace whole cells with a symbol.
 */
import { greatCircleEvery, type LatLon } from '../../core/geodesy.js';
import { landDots, type LonLatWindow } from '../../geo/outlines.js';
import { paintBraille, type CellMark, type MapSegment } from './braille.js';

export type { MapCellKind, MapSegment } from './braille.js';

export interface WorldMapInput {
  columns: number;
  rows: number;
  guess?: LatLon | null;
  truth?: LatLon | null;
  pins?: readonly LatLon[];
  /** More guesses, each marked with its own letter and joined to the truth (two episodes compared). */
  guesses?: readonly LabelledGuess[];
}

export interface LabelledGuess {
  at: LatLon;
  mark: string;
}

export const GUESS_MARK = '✕';
export const TRUTH_MARK = '●';

/** Latitude span the world map shows: the far Arctic and Antarctica would take a third of it. */
const MAP_LAT_TOP = 85;
const MAP_LAT_BOTTOM = -60;
const LAT_SPAN = MAP_LAT_TOP - MAP_LAT_BOTTOM;

/** The globe the world map shows, from 180 W. */
export const WORLD_WINDOW: LonLatWindow = { west: -180, north: MAP_LAT_TOP, lonSpanDeg: 360, latSpanDeg: LAT_SPAN };

/** The largest map that fits `columns` x `rows` cells while keeping the equirectangular aspect. */
export function fitMap(columns: number, rows: number): { columns: number; rows: number } {
  // 2 dots per column across 360 degrees, 4 dots per row across LAT_SPAN degrees, square dots.
  const fitted = Math.max(8, Math.min(columns, Math.floor((rows * 4 * 360) / LAT_SPAN / 2)));
  return { columns: fitted, rows: Math.max(2, Math.min(rows, Math.ceil((fitted * 2 * LAT_SPAN) / 360 / 4))) };
}

export function drawWorldMap(input: WorldMapInput): MapSegment[][] {
  const { columns, rows } = input;
  const width = columns * 2;
  const height = rows * 4;
  const land = landDots(WORLD_WINDOW, width, height, '110m');
  const path = new Uint8Array(width * height);
  const dot = (p: LatLon) => ({
    x: clamp(Math.floor(((p.lon + 180) / 360) * width), 0, width - 1),
    y: clamp(Math.floor(((MAP_LAT_TOP - p.lat) / LAT_SPAN) * height), 0, height - 1),
  });

  const guesses = [...(input.guess ? [{ at: input.guess, mark: GUESS_MARK }] : []), ...(input.guesses ?? [])];
  if (input.truth) {
    for (const guess of guesses) {
      for (const p of greatCircleEvery(guess.at, input.truth, 180 / width)) {
        const { x, y } = dot(p);
        path[y * width + x] = 1;
      }
    }
  }

  const marks = new Map<number, CellMark>();
  const mark = (p: LatLon, kind: CellMark['kind'], text: string) => {
    const { x, y } = dot(p);
    marks.set((y >> 2) * columns + (x >> 1), { kind, text });
  };
  input.pins?.forEach((p, i) => mark(p, 'pin', String((i + 1) % 10)));
  // The truth is drawn last: when guess and truth share a cell the reveal matters more.
  for (const guess of guesses) mark(guess.at, 'guess', guess.mark);
  if (input.truth) mark(input.truth, 'truth', TRUTH_MARK);
  return paintBraille(columns, rows, land, path, marks);
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, v));
}
