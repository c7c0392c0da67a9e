/** The environment maps' semantic colours. */

import type { Rgb } from './map-raster.js';

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
export const GRATICULE_ALPHA = 0.3;
