/**
 * The environment's maps (DESIGN §2.1, §2.2), as PNG: a zoom panel (left) centred where the agent
 * asked, a world panel (top right) marking that window, and a caption (bottom right) with the
 * centre, the width and the pins.
 *
 * The zoom panel shows land and sea, coastlines, country borders, a graticule with degree labels,
 * a scale bar in km and the agent's numbered pins; its outlines come from Natural Earth at a scale
 * chosen by the window's width only (`detailForSpan`), plus towns from GeoNames on the finest.
 * `renderMap` draws only what it is asked (centre, span, the agent's own pins): it has no input
 * through which the target could leak. The reveal, drawn after scoring, frames guess and truth with
 * the great circle between them.
 *
 * Everything is drawn by our own rasteriser (map-raster.ts) with a bitmap font (map-font.ts) and
 * encoded by sharp: a warm map costs a few milliseconds, and the same request gives the same bytes.
 * Data loads on first use, never at import.
 */

import { EARTH_RADIUS_KM, greatCirclePoints, haversineKm, normalizeLon, type LatLon } from '../../core/geodesy.js';
import { townsWithin } from '../../geo/cities.js';
import type { OutlineScale } from '../../geo/atlas.js';
import type { MapPin, MapRenderer } from '../types.js';
import { drawText, GLYPH_HEIGHT, GLYPH_WIDTH, textWidth } from './map-font.js';
import { drawOutlines } from './map-outlines.js';
import { Canvas, type Rect, type Rgb } from './map-raster.js';
import { imagePoint, mercatorLat, mercatorY, unwrapLon, worldView, zoomView, type MapView } from './map-view.js';

export type MapDetail = OutlineScale;

export interface MapRequest {
  centerLat: number;
  centerLon: number;
  /** Half-width of the zoom window in degrees of longitude (the action's `span_deg`). */
  spanDeg: number;
  pins: MapPin[];
}

export interface RevealRequest {
  guess: LatLon | null;
  truth: LatLon;
  pins: MapPin[];
}

export const MAP_WIDTH = 768;
export const MAP_HEIGHT = 384;
const ZOOM_RECT: Rect = { x: 0, y: 0, width: 512, height: 384 };
const WORLD_RECT: Rect = { x: 518, y: 6, width: 244, height: 122 };
const CAPTION_RECT: Rect = { x: 518, y: 138, width: 244, height: 240 };

/** Semantic colours of the maps. */
export const MAP_THEME = {
  sea: [166, 201, 226],
  land: [237, 230, 208],
  coast: [92, 124, 152],
  border: [146, 96, 106],
  graticule: [30, 50, 80],
  text: [24, 24, 24],
  halo: [255, 255, 255],
  background: [245, 245, 242],
  frame: [70, 70, 70],
  window: [200, 30, 30],
  town: [45, 45, 45],
  pin: [235, 110, 20],
  pinText: [255, 255, 255],
  guess: [30, 90, 210],
  truth: [0, 150, 70],
  route: [40, 40, 40],
} as const satisfies Record<string, Rgb>;

/** How strongly graticule lines tint what lies under them. */
const GRATICULE_ALPHA = 0.3;

/**
 * The outline scale for a window, by its full width (2 x span) only (DESIGN §2.2): Natural Earth
 * 110m above 30 degrees across, 50m from 30 down to 4, 10m (with towns) below 4.
 */
export function detailForSpan(spanDeg: number): MapDetail {
  const widthDeg = 2 * spanDeg;
  return widthDeg > 30 ? '110m' : widthDeg >= 4 ? '50m' : '10m';
}

/** The zoom panel of `renderMap`: its window and projection, for pixel positions. */
export function mapView(request: Pick<MapRequest, 'centerLat' | 'centerLon' | 'spanDeg'>): MapView {
  return zoomView(request.centerLat, request.centerLon, request.spanDeg, ZOOM_RECT);
}

/** The world panel, the same for every map. */
export function worldPanelView(): MapView {
  return worldView(WORLD_RECT);
}

/** Points of the reveal's great circle. */
const ROUTE_POINTS = 129;
/** The reveal window around a lone truth, and the narrowest one around guess and truth. */
const REVEAL_TRUTH_SPAN = 5;
const REVEAL_MIN_SPAN = 0.05;
/** Room around guess and truth in the reveal window, as a factor of the tightest fit. */
const REVEAL_MARGIN = 1.3;

/** The zoom panel of `renderReveal`: framed to hold guess, truth and the great circle between. */
export function revealView(request: Pick<RevealRequest, 'guess' | 'truth'>): MapView {
  const { guess, truth } = request;
  if (!guess) return zoomView(truth.lat, truth.lon, REVEAL_TRUTH_SPAN, ZOOM_RECT);
  const route = unwrapRoute(greatCirclePoints(guess, truth, ROUTE_POINTS));
  const lons = route.map((p) => p.lon);
  const ys = route.map((p) => mercatorY(p.lat));
  const [west, east] = [Math.min(...lons), Math.max(...lons)];
  const [south, north] = [Math.min(...ys), Math.max(...ys)];
  const fit = Math.max((east - west) / 2, ((north - south) / 2) * (ZOOM_RECT.width / ZOOM_RECT.height));
  const span = Math.max(REVEAL_MIN_SPAN, fit * REVEAL_MARGIN);
  return zoomView(mercatorLat((north + south) / 2), (west + east) / 2, span, ZOOM_RECT);
}

/** Longitudes made continuous along a path (no jump of 360 at the antimeridian). */
function unwrapRoute(points: LatLon[]): LatLon[] {
  let lon = points[0]?.lon ?? 0;
  return points.map((p) => {
    lon += normalizeLon(p.lon - lon);
    return { lat: p.lat, lon };
  });
}

/** Boxes of what is drawn already, so that later labels do not cover it. */
class Placer {
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

function formatDegrees(value: number, decimals: number, positive: string, negative: string): string {
  const text = Math.abs(value).toFixed(decimals);
  const hemisphere = Number(text) === 0 || Number(text) === 180 ? '' : value > 0 ? positive : negative;
  return `${text}°${hemisphere}`;
}

/** A window width with as many decimals as its size needs (0.04°, 2.0°, 24°). */
function formatWidth(widthDeg: number): string {
  return `${widthDeg.toFixed(widthDeg < 1 ? 2 : widthDeg < 10 ? 1 : 0)}°`;
}

function formatLatLon(lat: number, lon: number): string {
  return `${formatDegrees(lat, 2, 'N', 'S')} ${formatDegrees(normalizeLon(lon), 2, 'E', 'W')}`;
}

/** "4.0 km", "1,054 km": thousands separated the same way on every machine. */
function formatKm(km: number): string {
  const digits = km < 10 ? km.toFixed(1) : String(Math.round(km)).replace(/\B(?=(\d{3})+$)/g, ',');
  return `${digits} km`;
}

function drawGraticule(canvas: Canvas, view: MapView, placer: Placer): void {
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
  const kmPerDeg = (EARTH_RADIUS_KM * Math.PI) / 180;
  const kmPerPx = (kmPerDeg * Math.cos((view.centerLat * Math.PI) / 180)) / view.pxPerDeg;
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
function scaleBarBox(view: MapView, bar: ScaleBar): Rect {
  const { rect } = view;
  const width = Math.max(bar.lengthPx, textWidth(bar.label)) + 12;
  return { x: rect.x + 8, y: rect.y + rect.height - 40, width, height: 32 };
}

function drawScaleBar(canvas: Canvas, box: Rect, bar: ScaleBar): void {
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
function drawTowns(canvas: Canvas, view: MapView, spanDeg: number, placer: Placer): void {
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
function pinRadius(index: number): number {
  return Math.max(10, (GLYPH_WIDTH * String(index).length) / 2 + 3);
}

/** The pins that show in the zoom panel (wholly or partly), at their image pixels. */
function zoomPins(view: MapView, pins: readonly MapPin[]): { pin: MapPin; x: number; y: number }[] {
  const { rect } = view;
  return pins
    .map((pin) => ({ pin, ...imagePoint(view, pin.lat, pin.lon) }))
    .filter(({ pin, x, y }) => {
      const r = pinRadius(pin.index);
      return x + r >= rect.x && x - r < rect.x + rect.width && y + r >= rect.y && y - r < rect.y + rect.height;
    });
}

/** Pins of the zoom panel: discs with a white ring and the pin's number inside. */
function drawZoomPins(canvas: Canvas, view: MapView, pins: readonly MapPin[]): void {
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
function drawPath(canvas: Canvas, view: MapView, points: LatLon[], colour: Rgb, width: number): void {
  const path = unwrapRoute(points);
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
function drawWindowOnWorld(canvas: Canvas, world: MapView, window: MapView): void {
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
function drawWorldPins(canvas: Canvas, world: MapView, pins: readonly MapPin[]): void {
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

const CAPTION_LINE_PX = GLYPH_HEIGHT + 2;
const CAPTION_LINES = Math.floor(CAPTION_RECT.height / CAPTION_LINE_PX);

/** The caption: `header`, then the pins, the newest ones when they do not all fit. */
function drawCaption(canvas: Canvas, header: readonly string[], pins: readonly MapPin[]): void {
  const room = CAPTION_LINES - header.length - 1;
  const shown = pins.length <= room ? pins : pins.slice(pins.length - (room - 1));
  const lines = [
    ...header,
    ...(pins.length > 0 ? ['Pins'] : []),
    ...(shown.length < pins.length ? [`(${pins.length - shown.length} older)`] : []),
    ...shown.map((pin) => `${String(pin.index).padStart(2)} ${formatLatLon(pin.lat, pin.lon)}`),
  ];
  canvas.clip(CAPTION_RECT);
  lines.forEach((line, i) => {
    drawText(canvas, line, CAPTION_RECT.x, CAPTION_RECT.y + i * CAPTION_LINE_PX, MAP_THEME.text);
  });
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

/** Sea, land, lines, graticule, towns and scale of the zoom panel, leaving room for the pins. */
function drawZoomGround(canvas: Canvas, view: MapView, spanDeg: number, pins: readonly MapPin[]): void {
  const { rect } = view;
  const detail = detailForSpan(spanDeg);
  canvas.fillRect(rect.x, rect.y, rect.x + rect.width, rect.y + rect.height, MAP_THEME.sea);
  drawOutlines(canvas, view, detail, MAP_THEME);
  const placer = new Placer();
  const bar = scaleBar(view);
  const barBox = scaleBarBox(view, bar);
  placer.reserve(barBox);
  for (const { pin, x, y } of zoomPins(view, pins)) {
    const r = pinRadius(pin.index) + 2;
    placer.reserve({ x: x - r, y: y - r, width: 2 * r, height: 2 * r });
  }
  drawGraticule(canvas, view, placer);
  canvas.clip(rect);
  if (detail === '10m') drawTowns(canvas, view, spanDeg, placer);
  canvas.clip();
  drawScaleBar(canvas, barBox, bar);
  canvas.strokeRect(rect.x, rect.y, rect.x + rect.width, rect.y + rect.height, MAP_THEME.frame);
}

/** Guess and truth on the reveal's zoom panel, with the distance by the middle of the route. */
function drawRevealMarks(canvas: Canvas, view: MapView, guess: LatLon | null, truth: LatLon, route: LatLon[]): void {
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

export class MapPainter implements MapRenderer {
  /** The frame with the world panel drawn: the same under every map, so drawn once. */
  private base: Canvas | undefined;

  async renderMap({ centerLat, centerLon, spanDeg, pins }: MapRequest): Promise<Buffer> {
    const view = mapView({ centerLat, centerLon, spanDeg });
    const canvas = this.canvas();
    drawZoomGround(canvas, view, spanDeg, pins);
    drawZoomPins(canvas, view, pins);
    const world = worldPanelView();
    drawWindowOnWorld(canvas, world, view);
    drawWorldPins(canvas, world, pins);
    drawCaption(
      canvas,
      [
        'Centre',
        ` ${formatLatLon(view.centerLat, view.centerLon)}`,
        `Width ${formatWidth(view.east - view.west)}, outlines ${detailForSpan(spanDeg)}`,
        '',
      ],
      pins,
    );
    return canvas.png();
  }

  async renderReveal({ guess, truth, pins }: RevealRequest): Promise<Buffer> {
    const view = revealView({ guess, truth });
    const route = guess ? greatCirclePoints(guess, truth, ROUTE_POINTS) : [];
    const canvas = this.canvas();
    drawZoomGround(canvas, view, (view.east - view.west) / 2, pins);
    drawPath(canvas, view, route, MAP_THEME.route, 2);
    drawZoomPins(canvas, view, pins);
    drawRevealMarks(canvas, view, guess, truth, route);

    const world = worldPanelView();
    drawWindowOnWorld(canvas, world, view);
    drawPath(canvas, world, route, MAP_THEME.route, 1);
    drawWorldPins(canvas, world, pins);
    canvas.clip(world.rect);
    for (const [point, colour] of [[truth, MAP_THEME.truth], [guess, MAP_THEME.guess]] as const) {
      if (!point) continue;
      const { x, y } = imagePoint(world, point.lat, point.lon);
      canvas.disc(x, y, 4, colour);
    }
    canvas.clip();

    const distance = guess ? `Distance ${formatKm(haversineKm(guess.lat, guess.lon, truth.lat, truth.lon))}` : '';
    drawCaption(
      canvas,
      [
        'Guess (blue)',
        guess ? ` ${formatLatLon(guess.lat, guess.lon)}` : ' none',
        'Truth (green flag)',
        ` ${formatLatLon(truth.lat, truth.lon)}`,
        distance,
        '',
      ],
      pins,
    );
    return canvas.png();
  }

  /** A fresh canvas holding the base frame. */
  private canvas(): Canvas {
    this.base ??= drawBase();
    return this.base.clone();
  }
}

/** Background, and the world panel at 110m with a 30-degree graticule and its frame. */
function drawBase(): Canvas {
  const canvas = new Canvas(MAP_WIDTH, MAP_HEIGHT);
  canvas.fillRect(0, 0, MAP_WIDTH, MAP_HEIGHT, MAP_THEME.background);
  const world = worldPanelView();
  const { rect } = world;
  canvas.fillRect(rect.x, rect.y, rect.x + rect.width, rect.y + rect.height, MAP_THEME.sea);
  drawOutlines(canvas, world, '110m', { ...MAP_THEME, border: MAP_THEME.coast });
  canvas.clip(rect);
  for (let lon = -150; lon < 180; lon += 30) {
    canvas.blendColumn(rect.x + world.x(lon), rect.y, rect.y + rect.height, MAP_THEME.graticule, GRATICULE_ALPHA);
  }
  for (let lat = -60; lat <= 60; lat += 30) {
    canvas.blendRow(rect.y + world.y(lat), rect.x, rect.x + rect.width, MAP_THEME.graticule, GRATICULE_ALPHA);
  }
  canvas.clip();
  canvas.strokeRect(rect.x - 1, rect.y - 1, rect.x + rect.width + 1, rect.y + rect.height + 1, MAP_THEME.frame);
  return canvas;
}
