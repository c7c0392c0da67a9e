/**
 * One land: geo's outlines decide what is land for every map geolab draws (the environment's PNG
 * maps, the TUI world map, the reveal's regional map) and for the point lookup.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { MapPainter, mapView, worldPanelView } from '../../src/env/render/map.js';
import { MAP_THEME } from '../../src/env/render/map-theme.js';
import { imagePoint, type MapView } from '../../src/env/render/map-view.js';
import { outlineLines, type OutlineScale } from '../../src/geo/atlas.js';
import { allCountries } from '../../src/geo/countries.js';
import { countryAt } from '../../src/geo/locate.js';
import { landDots, outlineAt, outlineDots } from '../../src/geo/outlines.js';
import type { MapCellKind, MapSegment } from '../../src/tui/map/braille.js';
import { drawRegionalMap } from '../../src/tui/map/regional-map.js';
import { drawWorldMap, WORLD_WINDOW } from '../../src/tui/map/world-map.js';

const SCALES: readonly OutlineScale[] = ['110m', '50m', '10m'];

/** Far from any coast or border at every scale; off the round degrees a graticule line is drawn at. */
const STEPPE = { lat: 48.3, lon: 67.7, country: 'Kazakhstan' }; // the Kazakh steppe
const OCEAN = { lat: -30.3, lon: -129.7, country: null }; // the South Pacific

/** The kind of every cell of a braille map, row by row. */
function cellKinds(lines: readonly MapSegment[][]): MapCellKind[][] {
  return lines.map((line) => line.flatMap((s) => [...s.text].map(() => s.kind)));
}

async function pngShare(png: Buffer, view: MapView, lat: number, lon: number, colour: readonly number[]): Promise<number> {
  const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
  const { x, y } = imagePoint(view, lat, lon);
  let same = 0;
  for (let dy = -1; dy <= 1; dy++) {
    for (let dx = -1; dx <= 1; dx++) {
      const i = ((Math.floor(y) + dy) * info.width + Math.floor(x) + dx) * info.channels;
      if (colour.every((c, k) => data[i + k] === c)) same++;
    }
  }
  return same / 9;
}

describe('the one land of every map', () => {
  for (const place of [STEPPE, OCEAN]) {
    const onLand = place.country !== null;
    const surface = onLand ? 'land' : 'sea';

    it(`${place.lat}, ${place.lon} is ${surface} in geo's outlines at every scale and in the point lookup`, () => {
      for (const scale of SCALES) expect(outlineAt(place.lat, place.lon, scale)?.admin ?? null).toBe(place.country);
      expect(countryAt(place.lat, place.lon).offshoreKm).toBe(onLand ? 0 : null);
      const window = { west: place.lon - 0.5, north: place.lat + 0.5, lonSpanDeg: 1, latSpanDeg: 1 };
      expect([...landDots(window, 4, 4, '10m')]).toEqual(new Array(16).fill(onLand ? 1 : 0));
    });

    it(`${place.lat}, ${place.lon} is ${surface} on the TUI world map and the regional map`, () => {
      const columns = 90;
      const rows = 36;
      const world = cellKinds(drawWorldMap({ columns, rows }));
      const col = Math.floor(((place.lon - WORLD_WINDOW.west) / WORLD_WINDOW.lonSpanDeg) * columns);
      const row = Math.floor(((WORLD_WINDOW.north - place.lat) / WORLD_WINDOW.latSpanDeg) * rows);
      expect(world[row]?.[col]).toBe(surface);

      const guess = { lat: place.lat - 0.1, lon: place.lon - 0.1 };
      const regional = drawRegionalMap({ columns: 40, rows: 12, guess, truth: place });
      const kinds = new Set(cellKinds(regional!.lines).flat());
      expect(kinds.has(surface)).toBe(true);
      expect(kinds.has(onLand ? 'sea' : 'land')).toBe(false);
    });

    it(`${place.lat}, ${place.lon} is ${surface} on the environment's map at every scale and on its world panel`, async () => {
      const painter = new MapPainter();
      for (const spanDeg of [0.5, 5, 40]) {
        const request = { centerLat: place.lat, centerLon: place.lon, spanDeg, pins: [] };
        const png = await painter.renderMap(request);
        expect(await pngShare(png, mapView(request), place.lat, place.lon, MAP_THEME[surface])).toBeGreaterThan(0.5);
        expect(await pngShare(png, worldPanelView(), place.lat, place.lon, MAP_THEME[surface])).toBeGreaterThan(0.5);
      }
    });
  }

  it('numbers the outline under each dot the same at every scale, 0 at sea', () => {
    const dotOn = (p: { lat: number; lon: number }, scale: OutlineScale): number =>
      outlineDots({ west: p.lon - 0.5, north: p.lat + 0.5, lonSpanDeg: 1, latSpanDeg: 1 }, 1, 1, scale)[0] as number;
    const kazakhstan = 1 + allCountries().findIndex((c) => c.admin === 'Kazakhstan');
    for (const scale of SCALES) {
      expect(dotOn(STEPPE, scale)).toBe(kazakhstan);
      expect(dotOn(OCEAN, scale)).toBe(0);
    }
  });

  it('draws coastlines and borders on the plane [-180, 180], cut at the antimeridian', () => {
    for (const scale of SCALES) {
      const { coast, borders } = outlineLines(scale);
      for (const lines of [coast, borders]) {
        const lineCount = lines.start.length - 1;
        let outside = 0;
        let jumps = 0;
        let short = 0;
        for (let l = 0; l < lineCount; l++) {
          const first = lines.start[l] as number;
          const last = (lines.start[l + 1] as number) - 1;
          if (last <= first) short++;
          for (let k = first; k <= last; k++) {
            const lon = lines.points[2 * k] as number;
            if (Math.abs(lon) > 180) outside++;
            if (k < last && Math.abs((lines.points[2 * k + 2] as number) - lon) > 180) jumps++;
          }
        }
        expect(lineCount).toBeGreaterThan(100);
        expect({ outside, jumps, short }).toEqual({ outside: 0, jumps: 0, short: 0 });
      }
    }
  });
});
