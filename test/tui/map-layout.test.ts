import { describe, expect, it } from 'vitest';
import { imageCells, isWide, liveImageCells } from '../../src/tui/layout.js';
import { landDots } from '../../src/geo/outlines.js';
import { drawWorldMap, fitMap, GUESS_MARK, TRUTH_MARK, WORLD_WINDOW, type MapSegment } from '../../src/tui/map/world-map.js';
import { drawRegionalMap, fitRegion, projectDot } from '../../src/tui/map/regional-map.js';
import { destinationPoint, greatCircleEvery, haversineKm, KM_PER_DEG } from '../../src/core/geodesy.js';

const text = (lines: ReturnType<typeof drawWorldMap>) => lines.map((l) => l.map((s) => s.text).join(''));

describe('the world map', () => {
  it('puts land where land is', () => {
    const width = 360;
    const height = 145;
    const dots = landDots(WORLD_WINDOW, width, height, '110m');
    // One dot per degree from 85 N: (lon + 180, 85 - lat).
    const at = (lat: number, lon: number) => dots[Math.floor(85 - lat) * width + Math.floor(lon + 180)];
    expect(at(48.5, 2.5)).toBe(1); // France
    expect(at(-25, 135)).toBe(1); // Australia
    expect(at(0, -30)).toBe(0); // Atlantic
    expect(at(65, 100)).toBe(1); // Siberia, on a ring that crosses the antimeridian
    expect(at(64.5, -150)).toBe(1); // Alaska
    expect(at(41.5, 51)).toBe(0); // the Caspian Sea, a hole in the land
  });

  it('marks the guess and the truth and draws the great circle between them', () => {
    const lines = drawWorldMap({ columns: 72, rows: 15, guess: { lat: 40.7, lon: -74 }, truth: { lat: 51.5, lon: -0.1 } });
    expect(lines).toHaveLength(15);
    for (const line of text(lines)) expect([...line]).toHaveLength(72);
    const all = lines.flat();
    expect(all.filter((s) => s.kind === 'guess').map((s) => s.text)).toEqual([GUESS_MARK]);
    expect(all.filter((s) => s.kind === 'truth').map((s) => s.text)).toEqual([TRUTH_MARK]);
    expect(all.filter((s) => s.kind === 'path').reduce((n, s) => n + s.text.length, 0)).toBeGreaterThan(5);
  });

  it('numbers pins', () => {
    const lines = drawWorldMap({ columns: 72, rows: 15, pins: [{ lat: 47, lon: 10 }, { lat: -33, lon: 151 }] });
    expect(lines.flat().filter((s) => s.kind === 'pin').map((s) => s.text)).toEqual(['1', '2']);
  });

  it('samples the great circle evenly, ending at the truth', () => {
    const a = { lat: 40.7, lon: -74 };
    const b = { lat: 35.7, lon: 139.7 };
    const points = greatCircleEvery(a, b, 1);
    const last = points[points.length - 1]!;
    expect(haversineKm(last.lat, last.lon, b.lat, b.lon)).toBeLessThan(1);
    // New York to Tokyo goes over the Arctic, far north of both ends.
    expect(Math.max(...points.map((p) => p.lat))).toBeGreaterThan(60);
  });

  it('fits the map to the space, keeping its shape', () => {
    expect(fitMap(116, 30)).toEqual({ columns: 116, rows: 24 });
    expect(fitMap(76, 13)).toEqual({ columns: 64, rows: 13 });
  });
});

describe('layout', () => {
  it('120x40 keeps the side panel and a large square image', () => {
    expect(isWide({ columns: 120, rows: 40 })).toBe(true);
    expect(imageCells({ columns: 120, rows: 40 }, 'large')).toEqual({ width: 58, height: 29 });
    expect(imageCells({ columns: 120, rows: 40 }, 'small')).toEqual({ width: 30, height: 15 });
  });

  it('80x24 drops the side panel and shrinks the image', () => {
    expect(isWide({ columns: 80, rows: 24 })).toBe(false);
    expect(imageCells({ columns: 80, rows: 24 }, 'large')).toEqual({ width: 26, height: 13 });
    expect(liveImageCells({ columns: 80, rows: 24 }).height).toBeLessThanOrEqual(16);
  });
});

describe('the regional map', () => {
  const belgrade = { lat: 44.8176, lon: 20.4569 };
  const cellOf = (lines: MapSegment[][], kind: MapSegment['kind']) => {
    const found: { row: number; col: number }[] = [];
    lines.forEach((line, row) => {
      let col = 0;
      for (const s of line) {
        [...s.text].forEach((_, i) => s.kind === kind && found.push({ row, col: col + i }));
        col += [...s.text].length;
      }
    });
    return found;
  };
  const apart = (a: { row: number; col: number }, b: { row: number; col: number }) => Math.max(Math.abs(a.row - b.row), Math.abs(a.col - b.col));

  it.each([9.5, 201])('keeps guess and truth %s km apart in cells well apart, where the world map cannot', (km) => {
    const truth = destinationPoint(belgrade.lat, belgrade.lon, 60, km);
    const world = drawWorldMap({ columns: 116, rows: 24, guess: belgrade, truth });
    // On the world map the truth covers the guess or sits in the next cell.
    const [worldTruth] = cellOf(world, 'truth');
    const [worldGuess = worldTruth] = cellOf(world, 'guess');
    expect(apart(worldGuess!, worldTruth!)).toBeLessThanOrEqual(1);
    const map = drawRegionalMap({ columns: 116, rows: 24, guess: belgrade, truth })!;
    const [guessCell] = cellOf(map.lines, 'guess');
    const [truthCell] = cellOf(map.lines, 'truth');
    expect(guessCell && truthCell && apart(guessCell, truthCell)).toBeGreaterThanOrEqual(8);
    for (const line of map.lines) expect([...line.map((s) => s.text).join('')]).toHaveLength(116);
  });

  it('fits both points inside the margins, a kilometre as long across as up and down', () => {
    const truth = { lat: 45.2671, lon: 19.8335 };
    const region = fitRegion(belgrade, truth, 60, 20)!;
    for (const p of [belgrade, truth]) {
      const dot = projectDot(region, 120, 80, p)!;
      expect(dot.x).toBeGreaterThanOrEqual(120 * 0.2 - 1e-9);
      expect(dot.x).toBeLessThanOrEqual(120 * 0.8 + 1e-9);
      expect(dot.y).toBeGreaterThanOrEqual(80 * 0.2 - 1e-9);
      expect(dot.y).toBeLessThanOrEqual(80 * 0.8 + 1e-9);
    }
    const midLat = region.north - region.latSpanDeg / 2;
    const kmAcross = (region.lonSpanDeg / 120) * Math.cos((midLat * Math.PI) / 180);
    expect(kmAcross).toBeCloseTo(region.latSpanDeg / 80, 10);
    expect(region.kmPerCell).toBeCloseTo((region.latSpanDeg / 80) * 2 * KM_PER_DEG, 10);
  });

  it('crosses the antimeridian as one small crop', () => {
    const guess = { lat: -16.5, lon: 179.8 };
    const truth = { lat: -16.9, lon: -179.7 };
    const region = fitRegion(guess, truth, 60, 20)!;
    expect(region.lonSpanDeg).toBeLessThan(5);
    expect(projectDot(region, 120, 80, guess)!.x).toBeLessThan(projectDot(region, 120, 80, truth)!.x);
  });

  it('draws the great circle from guess to truth without gaps', () => {
    const truth = destinationPoint(belgrade.lat, belgrade.lon, 90, 201);
    const map = drawRegionalMap({ columns: 60, rows: 20, guess: belgrade, truth })!;
    const [g] = cellOf(map.lines, 'guess');
    const [t] = cellOf(map.lines, 'truth');
    const path = cellOf(map.lines, 'path');
    for (let col = g!.col + 1; col < t!.col; col++) expect(path.some((c) => c.col === col)).toBe(true);
    expect(path.every((c) => Math.abs(c.row - g!.row) <= 1)).toBe(true);
  });

  it('leaves guesses half a world away to the world map', () => {
    expect(fitRegion({ lat: 40.7, lon: -74 }, { lat: -33.9, lon: 151.2 }, 116, 24)).toBeNull();
    expect(drawRegionalMap({ columns: 116, rows: 24, guess: { lat: 40.7, lon: -74 }, truth: { lat: -33.9, lon: 151.2 } })).toBeNull();
  });
});
