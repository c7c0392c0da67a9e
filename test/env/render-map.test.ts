import fc from 'fast-check';
import sharp from 'sharp';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { prepareImage } from '../../src/agent/images.js';
import { greatCirclePoints } from '../../src/core/geodesy.js';
import {
  detailForSpan,
  drawBase,
  encodeBaseFrame,
  readBaseFrame,
  MAP_HEIGHT,
  MAP_WIDTH,
  MapPainter,
  mapView,
  revealView,
  worldPanelView,
  type MapRequest,
} from '../../src/env/render/map.js';
import { scaleBar } from '../../src/env/render/map-layers.js';
import { MAP_THEME } from '../../src/env/render/map-theme.js';
import { imagePoint, MERCATOR_MAX_LAT, type MapView } from '../../src/env/render/map-view.js';
import { townsWithin } from '../../src/geo/cities.js';
import type { MapRenderer } from '../../src/env/types.js';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/fixtures.js';

type Rgb = readonly [number, number, number];

interface Image {
  readonly width: number;
  readonly height: number;
  /** The share of pixels within `radius` (a square) of (x, y) that have exactly `colour`. */
  share(x: number, y: number, colour: Rgb, radius?: number): number;
  /** How many pixels of `colour` a rectangle holds. */
  count(x0: number, y0: number, x1: number, y1: number, colour: Rgb): number;
}

async function decode(png: Buffer): Promise<Image> {
  const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
  const { width, height, channels } = info;
  const is = (x: number, y: number, [r, g, b]: Rgb): boolean => {
    const i = (y * width + x) * channels;
    return data[i] === r && data[i + 1] === g && data[i + 2] === b;
  };
  const count = (x0: number, y0: number, x1: number, y1: number, colour: Rgb): number => {
    let n = 0;
    for (let y = Math.max(0, Math.round(y0)); y < Math.min(height, Math.round(y1)); y++) {
      for (let x = Math.max(0, Math.round(x0)); x < Math.min(width, Math.round(x1)); x++) if (is(x, y, colour)) n++;
    }
    return n;
  };
  return {
    width,
    height,
    count,
    share(x, y, colour, radius = 2) {
      const cx = Math.floor(x);
      const cy = Math.floor(y);
      return count(cx - radius, cy - radius, cx + radius + 1, cy + radius + 1, colour) / (2 * radius + 1) ** 2;
    },
  };
}

const painter = new MapPainter();

function at(view: MapView, lat: number, lon: number): { x: number; y: number } {
  return imagePoint(view, lat, lon);
}

/** The Strait of Gibraltar at 50m (5 degrees across): Spain north, Morocco south. */
const GIBRALTAR: MapRequest = { centerLat: 36, centerLon: -5.5, spanDeg: 2.5, pins: [] };

describe('renderMap', () => {
  it('answers a PNG of the map size', async () => {
    const png = await painter.renderMap(GIBRALTAR);
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const { width, height } = await sharp(png).metadata();
    expect([width, height]).toEqual([MAP_WIDTH, MAP_HEIGHT]);
  });

  it('colours land and sea where they are', async () => {
    const image = await decode(await painter.renderMap(GIBRALTAR));
    const view = mapView(GIBRALTAR);
    const spain = at(view, 37.2, -5.3);
    const strait = at(view, 35.98, -5.5);
    const morocco = at(view, 35.1, -5.3);
    const atlantic = at(view, 35.5, -7.2);
    // Mostly the surface's colour (a graticule line may tint a few pixels), none of the other.
    const expectSurface = ({ x, y }: { x: number; y: number }, surface: 'land' | 'sea'): void => {
      expect(image.share(x, y, MAP_THEME[surface])).toBeGreaterThan(0.75);
      expect(image.share(x, y, MAP_THEME[surface === 'land' ? 'sea' : 'land'])).toBe(0);
    };
    expectSurface(spain, 'land');
    expectSurface(morocco, 'land');
    expectSurface(strait, 'sea');
    expectSurface(atlantic, 'sea');
  });

  it('draws each pin at its place with its number, in the zoom and the world panel', async () => {
    const request = (index: number): MapRequest => ({ ...GIBRALTAR, pins: [{ index, lat: 36.6, lon: -4.4 }] });
    const three = await decode(await painter.renderMap(request(3)));
    const seven = await decode(await painter.renderMap(request(7)));
    const pin = at(mapView(GIBRALTAR), 36.6, -4.4);
    // The dot: pin colour all round the number, white ink of the number at its middle.
    for (const [dx, dy] of [[-7, 0], [7, 0], [0, -8], [0, 8]] as const) {
      expect(three.share(pin.x + dx, pin.y + dy, MAP_THEME.pin, 1)).toBeGreaterThan(0.5);
    }
    const ink = (image: Image): number => image.count(pin.x - 5, pin.y - 6, pin.x + 5, pin.y + 6, MAP_THEME.pinText);
    expect(ink(three)).toBeGreaterThan(10);
    expect(ink(seven)).toBeGreaterThan(10);
    expect(ink(three)).not.toBe(ink(seven));

    const onWorld = at(worldPanelView(), 36.6, -4.4);
    expect(three.share(onWorld.x, onWorld.y, MAP_THEME.pin, 1)).toBeGreaterThan(0.5);
  });

  it('leaves out pins outside the window', async () => {
    const empty = await painter.renderMap(GIBRALTAR);
    const far = await painter.renderMap({ ...GIBRALTAR, pins: [{ index: 1, lat: -33.9, lon: 18.4 }] });
    const image = await decode(far);
    const view = mapView(GIBRALTAR);
    const { rect } = view;
    expect(image.count(rect.x, rect.y, rect.x + rect.width, rect.y + rect.height, MAP_THEME.pin)).toBe(0);
    expect(far.equals(empty)).toBe(false); // it is still on the world panel
  });

  it('picks the outline scale by the window width only: 110m above 30 degrees, 50m down to 4, 10m below', () => {
    expect(detailForSpan(180)).toBe('110m');
    expect(detailForSpan(15.01)).toBe('110m');
    expect(detailForSpan(15)).toBe('50m');
    expect(detailForSpan(7)).toBe('50m');
    expect(detailForSpan(2)).toBe('50m');
    expect(detailForSpan(1.99)).toBe('10m');
    expect(detailForSpan(0.02)).toBe('10m');
  });

  it('draws towns only at the 10m scale', async () => {
    // Tangier, the largest place in both windows.
    const tangier = { lat: 35.76727, lon: -5.79975 };
    const fine: MapRequest = { centerLat: 35.9, centerLon: -5.6, spanDeg: 0.5, pins: [] };
    const coarse: MapRequest = { ...fine, spanDeg: 2 };
    const dotAt = async (request: MapRequest): Promise<number> => {
      const { x, y } = at(mapView(request), tangier.lat, tangier.lon);
      return (await decode(await painter.renderMap(request))).share(x, y, MAP_THEME.town, 1);
    };
    expect(await dotAt(fine)).toBeGreaterThan(0.5);
    expect(await dotAt(coarse)).toBe(0);
  });

  it('draws a scale bar of a round length in km', async () => {
    const view = mapView(GIBRALTAR);
    const bar = scaleBar(view);
    expect(bar.km / 10 ** Math.floor(Math.log10(bar.km))).toBeOneOf([1, 2, 5]);
    expect(bar.label).toBe(`${bar.km} km`);
    // 5 degrees across 512 px at 36 N: about 0.88 km a pixel.
    expect(bar.km / bar.lengthPx).toBeCloseTo((111.195 * Math.cos((36 * Math.PI) / 180) * 5) / 512, 2);
    const image = await decode(await painter.renderMap(GIBRALTAR));
    const { rect } = view;
    // A solid run of the bar's length in the text colour, low in the panel.
    const longestRun = Math.max(
      ...Array.from({ length: 48 }, (_, i) => {
        const y = rect.y + rect.height - 48 + i;
        let best = 0;
        let run = 0;
        for (let x = rect.x; x < rect.x + rect.width / 2; x++) {
          run = image.count(x, y, x + 1, y + 1, MAP_THEME.text) ? run + 1 : 0;
          best = Math.max(best, run);
        }
        return best;
      }),
    );
    expect(longestRun).toBeGreaterThanOrEqual(bar.lengthPx);
    expect(scaleBar(mapView({ centerLat: 60, centerLon: 10, spanDeg: 0.02 })).label).toMatch(/^\d+ m$/);
  });

  it('gives the same bytes for the same request', async () => {
    const pins = [{ index: 1, lat: 47.4, lon: 8.5 }];
    const request: MapRequest = { centerLat: 47.37, centerLon: 8.54, spanDeg: 0.3, pins };
    const first = await painter.renderMap(request);
    expect((await painter.renderMap(request)).equals(first)).toBe(true);
    expect((await new MapPainter().renderMap(request)).equals(first)).toBe(true);
  });

  it('draws each map on a reused canvas as on a fresh one, however many are drawn at once', async () => {
    // MapPainter reuses encoded canvases: nothing of an earlier map (its pins, towns, a reveal's
    // route, a clip left set) may show through a later one.
    const request = fc.oneof(
      fc.record({
        kind: fc.constant('map' as const),
        centerLat: fc.double({ min: -80, max: 80, noNaN: true }),
        centerLon: fc.double({ min: -180, max: 180, noNaN: true }),
        spanDeg: fc.constantFrom(0.5, 3, 40),
        pins: fc.array(fc.record({ lat: fc.double({ min: -80, max: 80, noNaN: true }), lon: fc.double({ min: -180, max: 180, noNaN: true }) }), { maxLength: 2 }),
      }),
      fc.record({
        kind: fc.constant('reveal' as const),
        guess: fc.option(fc.record({ lat: fc.double({ min: -80, max: 80, noNaN: true }), lon: fc.double({ min: -180, max: 180, noNaN: true }) }), { nil: null }),
        truth: fc.record({ lat: fc.double({ min: -80, max: 80, noNaN: true }), lon: fc.double({ min: -180, max: 180, noNaN: true }) }),
      }),
    );
    type Drawn = typeof request extends fc.Arbitrary<infer T> ? T : never;
    const draw = (on: MapPainter, r: Drawn): Promise<Buffer> =>
      r.kind === 'map'
        ? on.renderMap({ ...r, pins: r.pins.map((p, i) => ({ index: i + 1, ...p })) })
        : on.renderReveal({ guess: r.guess, truth: r.truth, pins: [] });
    const reused = new MapPainter();
    await fc.assert(
      fc.asyncProperty(fc.array(request, { minLength: 1, maxLength: 6 }), async (requests) => {
        // All at once, so several canvases are out and come back in any order.
        const drawn = await Promise.all(requests.map((r) => draw(reused, r)));
        for (const [i, r] of requests.entries()) expect(drawn[i]!.equals(await draw(new MapPainter(), r))).toBe(true);
      }),
      { numRuns: 8 },
    );
  });

  it("draws maps at the model's size as the very JPEG the agent would make of the full-size PNG", async () => {
    // A sweep's environment (modelImagePx) skips the PNG; what the model gets must not change.
    const point = fc.record({ lat: fc.double({ min: -80, max: 80, noNaN: true }), lon: fc.double({ min: -180, max: 180, noNaN: true }) });
    const request = fc.record({
      centerLat: fc.double({ min: -80, max: 80, noNaN: true }),
      centerLon: fc.double({ min: -180, max: 180, noNaN: true }),
      spanDeg: fc.constantFrom(0.5, 3, 40),
      pins: fc.array(point, { maxLength: 2 }),
      guess: fc.option(point, { nil: null }),
      truth: point,
      sizePx: fc.constantFrom(448, 300, 1024),
    });
    await fc.assert(
      fc.asyncProperty(request, async ({ guess, truth, sizePx, ...map }) => {
        const pins = map.pins.map((p, i) => ({ index: i + 1, ...p }));
        const atModelSize = new MapPainter({ modelImagePx: sizePx });
        for (const draw of [(on: MapPainter) => on.renderMap({ ...map, pins }), (on: MapPainter) => on.renderReveal({ guess, truth, pins })]) {
          const jpeg = await draw(atModelSize);
          expect(jpeg.equals((await prepareImage(await draw(painter), sizePx)).bytes)).toBe(true);
          const { format, width, height } = await sharp(jpeg).metadata();
          expect(format).toBe('jpeg');
          expect(Math.max(width!, height!)).toBe(Math.min(sizePx, MAP_WIDTH));
        }
      }),
      { numRuns: 6 },
    );
  });

  it('draws land on both sides of the antimeridian (Fiji)', async () => {
    for (const spanDeg of [3, 1.5]) {
      const request: MapRequest = { centerLat: -17, centerLon: 179.5, spanDeg, pins: [] };
      const view = mapView(request);
      const image = await decode(await painter.renderMap(request));
      const x180 = at(view, -17, 180).x;
      const { rect } = view;
      expect(x180).toBeGreaterThan(rect.x + 50);
      expect(x180).toBeLessThan(rect.x + rect.width - 50);
      expect(image.count(rect.x, rect.y, x180, rect.y + rect.height, MAP_THEME.land)).toBeGreaterThan(200);
      expect(image.count(x180, rect.y, rect.x + rect.width, rect.y + rect.height, MAP_THEME.land)).toBeGreaterThan(200);
    }
  });

  it('keeps a window near a pole inside the map', async () => {
    const view = mapView({ centerLat: 89, centerLon: 30, spanDeg: 7 });
    expect(view.north).toBeLessThanOrEqual(MERCATOR_MAX_LAT + 1e-9);
    expect(view.centerLat).toBeLessThan(89);
    const pins = [{ index: 1, lat: 89, lon: 30 }];
    const png = await painter.renderMap({ centerLat: 89, centerLon: 30, spanDeg: 7, pins });
    expect((await sharp(png).metadata()).width).toBe(MAP_WIDTH);
  });

  it('has no way to receive the truth', async () => {
    expectTypeOf<keyof MapRequest>().toEqualTypeOf<'centerLat' | 'centerLon' | 'spanDeg' | 'pins'>();
    expectTypeOf<keyof Parameters<MapRenderer['renderMap']>[0]>().toEqualTypeOf<
      'centerLat' | 'centerLon' | 'spanDeg' | 'pins'
    >();
    // Whatever else an object carries is not looked at.
    const smuggled = { ...GIBRALTAR, truth: { lat: 35.98, lon: -5.5 } };
    expect((await painter.renderMap(smuggled)).equals(await painter.renderMap(GIBRALTAR))).toBe(true);
  });
});

describe("the build's base frame file (dist/map-base.bin)", () => {
  it('holds exactly the frame drawBase draws, and is refused when missing, truncated or of another format', () => {
    const dir = tempDir('geolab-map-base-');
    const file = join(dir, 'map-base.bin');
    writeFileSync(file, encodeBaseFrame());
    const read = readBaseFrame(file);
    expect(read).not.toBeNull();
    expect([read!.width, read!.height]).toEqual([MAP_WIDTH, MAP_HEIGHT]);
    expect(Buffer.from(read!.data).equals(Buffer.from(drawBase().data))).toBe(true);
    expect(readBaseFrame(join(dir, 'nothing-here.bin'))).toBeNull();
    const bytes = readFileSync(file);
    const other = join(dir, 'other.bin');
    writeFileSync(other, bytes.subarray(0, bytes.length - 8));
    expect(readBaseFrame(other)).toBeNull();
    writeFileSync(other, Buffer.concat([Buffer.from('GTG1'), bytes.subarray(4)]));
    expect(readBaseFrame(other)).toBeNull();
  });
});

describe('renderReveal', () => {
  const guess = { lat: 48.85, lon: 2.35 };
  const truth = { lat: 40.4, lon: -3.7 };

  it('frames and marks guess and truth, with the great circle between them', async () => {
    const view = revealView({ guess, truth });
    const image = await decode(await painter.renderReveal({ guess, truth, pins: [] }));
    const { rect } = view;
    for (const p of [guess, truth]) {
      const { x, y } = at(view, p.lat, p.lon);
      expect(x).toBeGreaterThan(rect.x + 20);
      expect(x).toBeLessThan(rect.x + rect.width - 20);
      expect(y).toBeGreaterThan(rect.y + 20);
      expect(y).toBeLessThan(rect.y + rect.height - 20);
    }
    const g = at(view, guess.lat, guess.lon);
    const t = at(view, truth.lat, truth.lon);
    expect(image.share(g.x, g.y, MAP_THEME.guess)).toBe(1);
    expect(image.share(t.x, t.y, MAP_THEME.truth, 1)).toBeGreaterThan(0.5);
    const middle = greatCirclePoints(guess, truth, 5)[2] as { lat: number; lon: number };
    const m = at(view, middle.lat, middle.lon);
    expect(image.share(m.x, m.y, MAP_THEME.route, 1)).toBeGreaterThan(0);
  });

  it('draws the great circle across the antimeridian', async () => {
    const tokyo = { lat: 35.6, lon: 139.7 };
    const sanFrancisco = { lat: 37.7, lon: -122.4 };
    const view = revealView({ guess: tokyo, truth: sanFrancisco });
    const west = at(view, tokyo.lat, tokyo.lon);
    const east = at(view, sanFrancisco.lat, sanFrancisco.lon);
    // Framed over the Pacific: Tokyo at the left, San Francisco at the right, both inside.
    expect(west.x).toBeGreaterThan(view.rect.x);
    expect(east.x).toBeLessThan(view.rect.x + view.rect.width);
    expect(east.x - west.x).toBeGreaterThan(view.rect.width / 2);
    const image = await decode(await painter.renderReveal({ guess: tokyo, truth: sanFrancisco, pins: [] }));
    for (const t of [0.25, 0.5, 0.75]) {
      const points = greatCirclePoints(tokyo, sanFrancisco, 5);
      const p = points[Math.round(t * 4)] as { lat: number; lon: number };
      const { x, y } = at(view, p.lat, p.lon);
      expect(image.share(x, y, MAP_THEME.route, 1)).toBeGreaterThan(0);
    }
  });

  it('shows the truth alone when there was no guess', async () => {
    const view = revealView({ guess: null, truth });
    const pins = [{ index: 1, lat: 41, lon: -3 }];
    const image = await decode(await painter.renderReveal({ guess: null, truth, pins }));
    const t = at(view, truth.lat, truth.lon);
    expect(image.share(t.x, t.y, MAP_THEME.truth, 1)).toBeGreaterThan(0.5);
    const { rect } = view;
    expect(image.count(rect.x, rect.y, rect.x + rect.width, rect.y + rect.height, MAP_THEME.guess)).toBe(0);
    const pin = at(view, 41, -3);
    expect(image.share(pin.x + 7, pin.y, MAP_THEME.pin, 1)).toBeGreaterThan(0.5);
  });
});

describe('townsWithin (the towns of the 10m maps)', () => {
  it('answers the most populous places in a box first, as GeoNames spells them', () => {
    const box = { south: 35.5, west: -6.5, north: 36.5, east: -4.5 };
    const towns = townsWithin(box, 50_000, 5);
    expect(towns.map((t) => t.name)).toEqual(['Tangier', 'Tétouan', 'Algeciras', 'San Fernando', 'Ceuta']);
    const populations = towns.map((t) => t.population);
    expect(populations).toEqual([...populations].sort((a, b) => b - a));
    expect(townsWithin(box, 1_000_000, 5)).toEqual([]);
  });

  it('reads a box across the antimeridian on both sides', () => {
    const towns = townsWithin({ south: -20, west: 170, north: -10, east: -170 }, 0, 1000);
    expect(towns.some((t) => t.lon > 170)).toBe(true);
    expect(towns.some((t) => t.lon < -170)).toBe(true);
    expect(towns.every((t) => t.lon >= 170 || t.lon <= -170)).toBe(true);
  });
});
