/**
 * The layers of the environment's maps, each drawn onto a canvas through a panel's view: graticule,
 * scale bar, towns, pins, the reveal's route and marks, and the zoom window on the world panel.
 * Labels go through a Placer so that a later label never covers an earlier one.
 */

import { haversineKm, KM_PER_DEG, normalizeLon, unwrapLons, type LatLon } from '../../core/geodesy.js';
import { townsWithin } from '../../geo/cities.js';
import type { MapPin } from '../types.js';
import { formatDegrees, formatKm } from './map-captions.js';
import { drawText, GLYPH_HEIGHT, GLYPH_WIDTH, textWidth } from './map-font.js';
import type { Canvas, Rect, Rgb } from './map-raster.js';
import { GRATICULE_ALPHA, MAP_THEME } from './map-theme.js';
import { imagePoint, unwrapLon, type MapView } from './map-view.js';

/** Boxes of what is drawn already, so that later labels do not cover it. */
export class Placer {
  private readonly boxes: Rect[] = [];

  reserve(box: Rect): void {
    this.boxes.push(box);
  }

  /** Reserves `box` unless it overlaps a reserved one or leaves `within`. */
  tryPlace(box: Rect, within: Rect): boolean {
    const inside =
      box.x >= within.x &&
      box.y >= within.y &&
      box.x + box.width <= within.x + within.width &&
      box.y + box.height <= within.y + within.height;
    if (!inside || this.boxes.some((b) => overlaps(b, box))) return false;
    this.boxes.push(box);
    return true;
  }
}

function overlaps(a: Rect, b: Rect): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

/** Degree steps of graticule lines; the smallest leaving at most MAX_GRATICULE_LINES across. */
const GRATICULE_STEPS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 45, 90];
const MAX_GRATICULE_LINES = 5;

function graticuleStep(view: MapView): number {
  const width = view.east - view.west;
  return GRATICULE_STEPS.find((step) => width / step <= MAX_GRATICULE_LINES) ?? 90;
}

/** Parallels and meridians at a round step, labelled where the labels fit. */
export function drawGraticule(canvas: Canvas, view: MapView, placer: Placer): void {
  const { rect } = view;
  const step = graticuleStep(view);
  const decimals = step < 0.1 ? 2 : step < 1 ? 1 : 0;
  canvas.clip(rect);
  for (let k = Math.ceil(view.west / step); k * step <= view.east; k++) {
    const x = Math.floor(rect.x + view.x(k * step));
    canvas.blendColumn(x, rect.y, rect.y + rect.height, MAP_THEME.graticule, GRATICULE_ALPHA);
    const label = formatDegrees(normalizeLon(k * step), decimals, 'E', 'W');
    const box = { x: x - textWidth(label) / 2, y: rect.y + 3, width: textWidth(label), height: GLYPH_HEIGHT };
    if (placer.tryPlace(box, rect)) drawText(canvas, label, box.x, box.y, MAP_THEME.text, MAP_THEME.halo);
  }
  for (let k = Math.ceil(view.south / step); k * step <= view.north; k++) {
    const y = Math.floor(rect.y + view.y(k * step));
    canvas.blendRow(y, rect.x, rect.x + rect.width, MAP_THEME.graticule, GRATICULE_ALPHA);
    const label = formatDegrees(k * step, decimals, 'N', 'S');
    const box = { x: rect.x + 4, y: y - 7, width: textWidth(label), height: GLYPH_HEIGHT };
    if (placer.tryPlace(box, rect)) drawText(canvas, label, box.x, box.y, MAP_THEME.text, MAP_THEME.halo);
  }
  canvas.clip();
}

/** The longest bar the scale may have, in pixels. */
const SCALE_MAX_PX = 130;

export interface ScaleBar {
  /** A round length: 1, 2 or 5 times a power of ten. */
  readonly km: number;
  readonly lengthPx: number;
  readonly label: string;
}

/** The scale bar of a zoom panel: true along the centre's parallel (Mercator's scale varies with latitude). */
export function scaleBar(view: MapView): ScaleBar {
  const kmPerPx = (KM_PER_DEG * Math.cos((view.centerLat * Math.PI) / 180)) / view.pxPerDeg;
  const maxKm = SCALE_MAX_PX * kmPerPx;
  const magnitude = 10 ** Math.floor(Math.log10(maxKm));
  const km = ([5, 2, 1].find((m) => m * magnitude <= maxKm) as number) * magnitude;
  return {
    km,
    lengthPx: Math.round(km / kmPerPx),
    label: km >= 1 ? `${km} km` : `${Math.round(km * 1000)} m`,
  };
}


/** Where the scale bar goes: a white box at the bottom left of the panel. */
export function scaleBarBox(view: MapView, bar: ScaleBar): Rect {
  const { rect } = view;
  const width = Math.max(bar.lengthPx, textWidth(bar.label)) + 12;
  return { x: rect.x + 8, y: rect.y + rect.height - 40, width, height: 32 };
}


export function drawScaleBar(canvas: Canvas, box: Rect, bar: ScaleBar): void {
  canvas.fillRect(box.x, box.y, box.x + box.width, box.y + box.height, MAP_THEME.halo);
  canvas.strokeRect(box.x, box.y, box.x + box.width, box.y + box.height, MAP_THEME.frame);
  drawText(canvas, bar.label, box.x + 6, box.y + 3, MAP_THEME.text);
  const barY = box.y + 22;
  const end = box.x + 6 + bar.lengthPx;
  canvas.fillRect(box.x + 6, barY, end, barY + 4, MAP_THEME.text);
  canvas.fillRect(box.x + 6, barY - 4, box.x + 8, barY + 4, MAP_THEME.text);
  canvas.fillRect(end - 2, barY - 4, end, barY + 4, MAP_THEME.text);
}

/** Fewest people a town needs to be drawn, by window half-width: only the larger ones when wide. */
function townMinPopulation(spanDeg: number): number {
  return spanDeg >= 1 ? 10_000 : spanDeg >= 0.25 ? 2_000 : 0;
}

/** Most towns looked at, and labelled, on one map. */
const TOWN_CANDIDATES = 80;
const TOWN_LABELS = 16;

/** Dots and names of the most populous towns in the window whose labels fit without overlap. */
export function drawTowns(canvas: Canvas, view: MapView, spanDeg: number, placer: Placer): void {
  const { rect } = view;
  const towns = townsWithin(
    { south: view.south, west: normalizeLon(view.west), north: view.north, east: normalizeLon(view.east) },
    townMinPopulation(spanDeg),
    TOWN_CANDIDATES,
  );
  let labelled = 0;
  for (const town of towns) {
    if (labelled === TOWN_LABELS) break;
    const { x, y } = imagePoint(view, town.lat, town.lon);
    const width = textWidth(town.name);
    const right = { x: x + 6, y: y - 8, width, height: GLYPH_HEIGHT };
    const left = { x: x - 6 - width, y: y - 8, width, height: GLYPH_HEIGHT };
    const box = placer.tryPlace(right, rect) ? right : placer.tryPlace(left, rect) ? left : null;
    if (!box) continue;
    placer.reserve({ x: x - 4, y: y - 4, width: 8, height: 8 });
    canvas.disc(x, y, 4, MAP_THEME.halo);
    canvas.disc(x, y, 2.5, MAP_THEME.town);
    drawText(canvas, town.name, box.x, box.y, MAP_THEME.town, MAP_THEME.halo);
    labelled++;
  }
}

/** Radius of a numbered pin in the zoom panel: room for its digits and 3 px around them. */
export function pinRadius(index: number): number {
  return Math.max(10, (GLYPH_WIDTH * String(index).length) / 2 + 3);
}

/** The pins that show in the zoom panel (wholly or partly), at their image pixels. */
export function zoomPins(view: MapView, pins: readonly MapPin[]): { pin: MapPin; x: number; y: number }[] {
  const { rect } = view;
  return pins
    .map((pin) => ({ pin, ...imagePoint(view, pin.lat, pin.lon) }))
    .filter(({ pin, x, y }) => {
      const r = pinRadius(pin.index);
      return x + r >= rect.x && x - r < rect.x + rect.width && y + r >= rect.y && y - r < rect.y + rect.height;
    });
}


/** Pins of the zoom panel: discs with a white ring and the pin's number inside. */
export function drawZoomPins(canvas: Canvas, view: MapView, pins: readonly MapPin[]): void {
  canvas.clip(view.rect);
  for (const { pin, x, y } of zoomPins(view, pins)) {
    const label = String(pin.index);
    canvas.disc(x, y, pinRadius(pin.index) + 2, MAP_THEME.halo);
    canvas.disc(x, y, pinRadius(pin.index), MAP_THEME.pin);
    // The digits' ink fills columns 0-7 and rows 2-11 of each 9 x 15 cell.
    drawText(canvas, label, x - (GLYPH_WIDTH * label.length - 1) / 2, y - 7, MAP_THEME.pinText);
  }
  canvas.clip();
}

/** A polyline of lat/lon points in a view, split where the view's edges cut it. */
export function drawPath(canvas: Canvas, view: MapView, points: LatLon[], colour: Rgb, width: number): void {
  const path = unwrapLons(points);
  const first = path[0];
  if (!first) return;
  // Shift the path so that it starts inside the window; the copies a turn east and west draw
  // whatever part runs off the world panel's edge at the antimeridian.
  const start = unwrapLon(view, first.lon) - first.lon;
  const { rect } = view;
  canvas.clip(rect);
  for (const shift of [start - 360, start, start + 360]) {
    for (let i = 1; i < path.length; i++) {
      const a = path[i - 1] as LatLon;
      const b = path[i] as LatLon;
      canvas.line(
        rect.x + view.x(a.lon + shift),
        rect.y + view.y(a.lat),
        rect.x + view.x(b.lon + shift),
        rect.y + view.y(b.lat),
        colour,
        width,
      );
    }
  }
  canvas.clip();
}

/** A window narrower than this many pixels on the world panel still shows as a square this size. */
const MIN_WINDOW_PX = 7;

/** The window's outline on the world panel, once more a turn east or west where it crosses 180. */
export function drawWindowOnWorld(canvas: Canvas, world: MapView, window: MapView): void {
  const { rect } = world;
  const grow = (size: number): number => Math.max(0, (MIN_WINDOW_PX - size) / 2);
  const y0 = rect.y + world.y(window.north);
  const y1 = rect.y + world.y(window.south);
  const gy = grow(y1 - y0);
  canvas.clip(rect);
  for (const shift of [-360, 0, 360]) {
    const x0 = rect.x + world.x(window.west + shift);
    const x1 = rect.x + world.x(window.east + shift);
    const gx = grow(x1 - x0);
    const [left, right] = [Math.floor(x0 - gx), Math.ceil(x1 + gx)];
    canvas.strokeRect(left, Math.floor(y0 - gy), right, Math.ceil(y1 + gy), MAP_THEME.window, 2);
  }
  canvas.clip();
}

/** Pins on the world panel: small dots, numbered where the number has room. */
export function drawWorldPins(canvas: Canvas, world: MapView, pins: readonly MapPin[]): void {
  const placer = new Placer();
  canvas.clip(world.rect);
  for (const pin of pins) {
    const { x, y } = imagePoint(world, pin.lat, pin.lon);
    canvas.disc(x, y, 4.5, MAP_THEME.halo);
    canvas.disc(x, y, 3, MAP_THEME.pin);
  }
  // Newest pins first: they matter most when labels collide.
  for (const pin of [...pins].reverse()) {
    const { x, y } = imagePoint(world, pin.lat, pin.lon);
    const label = String(pin.index);
    const box = { x: x + 5, y: y - 8, width: textWidth(label), height: GLYPH_HEIGHT };
    if (placer.tryPlace(box, world.rect)) drawText(canvas, label, box.x, box.y, MAP_THEME.text, MAP_THEME.halo);
  }
  canvas.clip();
}

/** A flag on a pole whose foot stands on the point, ringed in white like the other markers. */
function drawFlag(canvas: Canvas, x: number, y: number, colour: Rgb): void {
  const fx = Math.round(x);
  const fy = Math.round(y);
  const top = fy - 30;
  // The pennant: a triangle 17 rows tall pointing east from the top of the pole.
  const pennant = (grow: number, ink: Rgb): void => {
    for (let row = -grow; row < 17 + grow; row++) {
      const length = Math.round(18 * (1 - Math.abs(row - 8) / 9)) + grow;
      canvas.fillRect(fx + 1, top + row, fx + 1 + Math.max(0, length), top + row + 1, ink);
    }
  };
  canvas.fillRect(fx - 2, top - 1, fx + 2, fy + 2, MAP_THEME.halo);
  pennant(1, MAP_THEME.halo);
  canvas.fillRect(fx - 1, top, fx + 1, fy + 1, MAP_THEME.text);
  pennant(0, colour);
  canvas.disc(fx, fy, 3, colour);
}

/** Guess and truth on the reveal's zoom panel, with the distance by the middle of the route. */
export function drawRevealMarks(canvas: Canvas, view: MapView, guess: LatLon | null, truth: LatLon, route: LatLon[]): void {
  canvas.clip(view.rect);
  const truthAt = imagePoint(view, truth.lat, truth.lon);
  drawFlag(canvas, truthAt.x, truthAt.y, MAP_THEME.truth);
  if (guess) {
    const guessAt = imagePoint(view, guess.lat, guess.lon);
    canvas.disc(guessAt.x, guessAt.y, 9, MAP_THEME.halo);
    canvas.disc(guessAt.x, guessAt.y, 7, MAP_THEME.guess);
    const half = route[route.length >> 1] as LatLon;
    const middle = imagePoint(view, half.lat, half.lon);
    const label = formatKm(haversineKm(guess.lat, guess.lon, truth.lat, truth.lon));
    const fitsRight = middle.x + 8 + textWidth(label) <= view.rect.x + view.rect.width;
    const labelX = fitsRight ? middle.x + 8 : middle.x - 8 - textWidth(label);
    drawText(canvas, label, labelX, middle.y - 8, MAP_THEME.text, MAP_THEME.halo);
  }
  canvas.clip();
}
