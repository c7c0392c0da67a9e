/**
 * Where a map panel looks and how it projects: the zoom panel is Web Mercator (conformal, so a
 * coast or a town grid keeps its shape at any latitude, like the web maps agents know), the world
 * panel plate carrée. Longitudes inside a view are unwrapped: a window centred on 179 E runs from
 * west 172 to east 186, so a place at -179 is drawn at 181 and nothing special happens at the
 * antimeridian.
 */

import { normalizeLon } from '../../core/geodesy.js';
import type { Rect } from './map-raster.js';

const RAD = Math.PI / 180;

/**
 * Web Mercator's latitude limit: where the projected world is as tall as it is wide (y = ±180
 * below). A zoom window never reaches past it; near the poles the window is shifted toward the
 * equator instead.
 */
export const MERCATOR_MAX_LAT = 85.0511287798066;

/** Narrowest and widest zoom window, as half-widths in degrees of longitude (docs/protocol.md). */
const MIN_SPAN_DEG = 0.02;
const MAX_SPAN_DEG = 180;

export interface MapView {
  /** The panel in image pixels. */
  readonly rect: Rect;
  /** West and east edges, unwrapped: west in [-360, 180), east - west <= 360. */
  readonly west: number;
  readonly east: number;
  readonly north: number;
  readonly south: number;
  /** Panel pixels per degree of longitude. */
  readonly pxPerDeg: number;
  /** The centre actually shown (shifted from the one asked for near the poles). */
  readonly centerLat: number;
  readonly centerLon: number;
  /** Panel-local x of an unwrapped longitude. */
  x(lon: number): number;
  /** Panel-local y of a latitude. */
  y(lat: number): number;
}

/** Mercator y in degrees (equal to longitude degrees at the equator), finite up to the poles. */
export function mercatorY(lat: number): number {
  const phi = Math.max(-89.99, Math.min(89.99, lat)) * RAD;
  return Math.log(Math.tan(Math.PI / 4 + phi / 2)) / RAD;
}

export function mercatorLat(y: number): number {
  return (2 * Math.atan(Math.exp(y * RAD)) - Math.PI / 2) / RAD;
}

/** A Mercator window of `spanDeg` degrees either side of the centre, as wide as `rect`. */
export function zoomView(centerLat: number, centerLon: number, spanDeg: number, rect: Rect): MapView {
  const span = Math.min(MAX_SPAN_DEG, Math.max(MIN_SPAN_DEG, spanDeg));
  const centerX = normalizeLon(centerLon);
  const west = centerX - span;
  const pxPerDeg = rect.width / (2 * span);
  const halfHeight = rect.height / 2 / pxPerDeg;
  const limit = mercatorY(MERCATOR_MAX_LAT);
  const centerY =
    halfHeight >= limit ? 0 : Math.max(-limit + halfHeight, Math.min(limit - halfHeight, mercatorY(centerLat)));
  const top = centerY + halfHeight;
  return {
    rect,
    west,
    east: centerX + span,
    north: mercatorLat(top),
    south: mercatorLat(centerY - halfHeight),
    pxPerDeg,
    centerLat: mercatorLat(centerY),
    centerLon: centerX,
    x: (lon) => (lon - west) * pxPerDeg,
    y: (lat) => (top - mercatorY(lat)) * pxPerDeg,
  };
}

/** The whole world, plate carrée, from 180 W at the left edge. */
export function worldView(rect: Rect): MapView {
  const pxPerDeg = rect.width / 360;
  const pxPerLat = rect.height / 180;
  return {
    rect,
    west: -180,
    east: 180,
    north: 90,
    south: -90,
    pxPerDeg,
    centerLat: 0,
    centerLon: 0,
    x: (lon) => (lon + 180) * pxPerDeg,
    y: (lat) => (90 - lat) * pxPerLat,
  };
}

/** The longitude equal to `lon` nearest the middle of the view (within 180 degrees of it). */
export function unwrapLon(view: MapView, lon: number): number {
  const middle = (view.west + view.east) / 2;
  return lon + 360 * Math.round((middle - lon) / 360);
}

/** Where a point lands in the image: pixel coordinates, not necessarily inside the panel. */
export function imagePoint(view: MapView, lat: number, lon: number): { x: number; y: number } {
  return { x: view.rect.x + view.x(unwrapLon(view, lon)), y: view.rect.y + view.y(lat) };
}
