/**
 * The words on the environment's maps: degrees, widths and distances written the same way on every
 * machine, and the caption panel listing the centre or guess and truth, then the pins.
 */

import { normalizeLon } from '../../core/geodesy.js';
import type { MapPin } from '../types.js';
import { drawText, GLYPH_HEIGHT } from './map-font.js';
import type { Canvas, Rect } from './map-raster.js';
import { MAP_THEME } from './map-theme.js';

/** "12.50°N": the hemisphere's letter after the value, none on the equator or a meridian 0/180. */
export function formatDegrees(value: number, decimals: number, positive: string, negative: string): string {
  const text = Math.abs(value).toFixed(decimals);
  const hemisphere = Number(text) === 0 || Number(text) === 180 ? '' : value > 0 ? positive : negative;
  return `${text}°${hemisphere}`;
}

/** A window width with as many decimals as its size needs (0.04°, 2.0°, 24°). */
export function formatWidth(widthDeg: number): string {
  return `${widthDeg.toFixed(widthDeg < 1 ? 2 : widthDeg < 10 ? 1 : 0)}°`;
}

export function formatLatLon(lat: number, lon: number): string {
  return `${formatDegrees(lat, 2, 'N', 'S')} ${formatDegrees(normalizeLon(lon), 2, 'E', 'W')}`;
}

/** "4.0 km", "1,054 km": thousands separated the same way on every machine. */
export function formatKm(km: number): string {
  const digits = km < 10 ? km.toFixed(1) : String(Math.round(km)).replace(/\B(?=(\d{3})+$)/g, ',');
  return `${digits} km`;
}

const CAPTION_LINE_PX = GLYPH_HEIGHT + 2;

/** The caption in `rect`: `header`, then the pins, the newest ones when they do not all fit. */
export function drawCaption(canvas: Canvas, rect: Rect, header: readonly string[], pins: readonly MapPin[]): void {
  const room = Math.floor(rect.height / CAPTION_LINE_PX) - header.length - 1;
  const shown = pins.length <= room ? pins : pins.slice(pins.length - (room - 1));
  const lines = [
    ...header,
    ...(pins.length > 0 ? ['Pins'] : []),
    ...(shown.length < pins.length ? [`(${pins.length - shown.length} older)`] : []),
    ...shown.map((pin) => `${String(pin.index).padStart(2)} ${formatLatLon(pin.lat, pin.lon)}`),
  ];
  canvas.clip(rect);
  lines.forEach((line, i) => {
    drawText(canvas, line, rect.x, rect.y + i * CAPTION_LINE_PX, MAP_THEME.text);
  });
  canvas.clip();
}
