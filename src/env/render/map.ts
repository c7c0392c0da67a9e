/**
 * The environment's maps (docs/protocol.md), as PNG: a zoom panel (left) centred where the agent
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
 * This module lays out the panels and paints them in order; the layers (map-layers.ts), the land
 * (map-outlines.ts), the words (map-captions.ts) and the projections (map-view.ts) live apart.
 * Everything is drawn by our own rasteriser (map-raster.ts) with a bitmap font (map-font.ts) and
 * encoded by sharp: a warm map costs a few milliseconds, and the same request gives the same bytes.
 * Data loads on first use, never at import.
 */

import { join } from 'node:path';
import { greatCirclePoints, haversineKm, unwrapLons, type LatLon } from '../../core/geodesy.js';
import { atlasPath, type OutlineScale } from '../../geo/atlas.js';
import { encodeBuildFile, readBuildFile, sameSource, sourceStamp, type SourceStamp } from '../../geo/build-file.js';
import { PACKAGE_ROOT } from '../../paths.js';
import type { MapPin, MapRenderer } from '../types.js';
import { drawCaption, formatKm, formatLatLon, formatWidth } from './map-captions.js';
import {
  drawGraticule,
  drawPath,
  drawRevealMarks,
  drawScaleBar,
  drawTowns,
  drawWindowOnWorld,
  drawWorldPins,
  drawZoomPins,
  pinRadius,
  Placer,
  scaleBar,
  scaleBarBox,
  zoomPins,
} from './map-layers.js';
import { drawOutlines } from './map-outlines.js';
import { Canvas, type Rect } from './map-raster.js';
import { GRATICULE_ALPHA, MAP_THEME } from './map-theme.js';
import { imagePoint, mercatorLat, mercatorY, worldView, zoomView, type MapView } from './map-view.js';
import { modelJpeg } from './model-jpeg.js';

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

/**
 * The outline scale for a window, by its full width (2 x span) only (docs/protocol.md): Natural Earth
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
  const route = unwrapLons(greatCirclePoints(guess, truth, ROUTE_POINTS));
  const lons = route.map((p) => p.lon);
  const ys = route.map((p) => mercatorY(p.lat));
  const [west, east] = [Math.min(...lons), Math.max(...lons)];
  const [south, north] = [Math.min(...ys), Math.max(...ys)];
  const fit = Math.max((east - west) / 2, ((north - south) / 2) * (ZOOM_RECT.width / ZOOM_RECT.height));
  const span = Math.max(REVEAL_MIN_SPAN, fit * REVEAL_MARGIN);
  return zoomView(mercatorLat((north + south) / 2), (west + east) / 2, span, ZOOM_RECT);
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

/**
 * Canvases kept, once encoded, to draw later maps on. A fresh canvas is 0.9 MB of memory the
 * process has never touched, and first touching it (page faults) costs several times the copy of
 * the base frame into a used one: about 3 ms a map on the bench machine (docs/budgets.md, "CPU per
 * eval episode"). A few cover the maps a sweep encodes at once; more are made when needed.
 */
const SPARE_CANVASES = 4;

export interface MapPainterOptions {
  /**
   * Encode maps as a model gets them (model-jpeg.ts: JPEG, longer side at most this) instead of
   * as PNG at full size: for an environment whose only reader is the agent in the same process (a
   * sweep's), where a PNG would be decoded and re-encoded to exactly these bytes every map.
   */
  modelImagePx?: number;
}

export class MapPainter implements MapRenderer {
  /** The frame with the world panel drawn: the same under every map, so drawn once. */
  private base: Canvas | undefined;
  private readonly spare: Canvas[] = [];

  constructor(private readonly options: MapPainterOptions = {}) {}

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
      CAPTION_RECT,
      [
        'Centre',
        ` ${formatLatLon(view.centerLat, view.centerLon)}`,
        `Width ${formatWidth(view.east - view.west)}, outlines ${detailForSpan(spanDeg)}`,
        '',
      ],
      pins,
    );
    return this.encode(canvas);
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
      CAPTION_RECT,
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
    return this.encode(canvas);
  }

  /** A canvas holding the base frame (a spare one when there is one); give it to `encode` when drawn. */
  private canvas(): Canvas {
    this.base ??= (FROM_BUNDLE ? readBaseFrame(BASE_FRAME_FILE) : null) ?? drawBase();
    const spare = this.spare.pop();
    if (!spare) return this.base.clone();
    spare.copyFrom(this.base);
    return spare;
  }

  /** The canvas as PNG, or as the model's JPEG; then it is spare (sharp has finished reading its pixels). */
  private async encode(canvas: Canvas): Promise<Buffer> {
    const { modelImagePx } = this.options;
    try {
      return await (modelImagePx === undefined ? canvas.png() : modelJpeg(canvas.image(), modelImagePx));
    } finally {
      if (this.spare.length < SPARE_CANVASES) this.spare.push(canvas);
    }
  }
}

/**
 * The base frame as `npm run build` drew it (build-file.ts's layout), for the bundle built beside
 * it: a process's first map otherwise draws the world panel's 110m outlines with the rasteriser
 * still cold, ~80 ms of CPU in every `geolab eval run` (docs/budgets.md, "CPU per eval episode").
 * The file carries the 110m atlas file's size and mtime and the map's size. The sources (tsx,
 * vitest) always draw the frame: their code may be newer than the file.
 */
export const BASE_FRAME_FILE = join(PACKAGE_ROOT, 'dist', 'map-base.bin');
const BASE_FRAME_MAGIC = 'GMB1';
const FROM_BUNDLE = !import.meta.url.endsWith('.ts');

interface BaseFrameHeader {
  source: SourceStamp;
  width: number;
  height: number;
}

export function encodeBaseFrame(): Buffer {
  const header: BaseFrameHeader = { source: sourceStamp(atlasPath('110m')), width: MAP_WIDTH, height: MAP_HEIGHT };
  return encodeBuildFile(BASE_FRAME_MAGIC, header, [drawBase().data]);
}

/** The frame the file holds, or null when it is missing, not this format, or of another map or atlas. */
export function readBaseFrame(file: string): Canvas | null {
  const read = readBuildFile<BaseFrameHeader>(file, BASE_FRAME_MAGIC);
  if (!read || read.header.width !== MAP_WIDTH || read.header.height !== MAP_HEIGHT || !sameSource(read.header.source, atlasPath('110m'))) return null;
  const data = read.columns([[Uint8Array, MAP_WIDTH * MAP_HEIGHT * 3]])?.[0];
  if (!data) return null;
  const canvas = new Canvas(MAP_WIDTH, MAP_HEIGHT);
  canvas.data.set(data);
  return canvas;
}

/** Background, and the world panel at 110m with a 30-degree graticule and its frame. */
export function drawBase(): Canvas {
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

