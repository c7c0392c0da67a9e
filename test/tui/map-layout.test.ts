import { describe, expect, it } from 'vitest';
import { imageCells, isWide, liveImageCells } from '../../src/tui/layout.js';
import { landDots } from '../../src/tui/map/land.js';
import { drawWorldMap, fitMap, greatCircle, GUESS_MARK, TRUTH_MARK } from '../../src/tui/map/world-map.js';
import { haversineKm } from '../../src/core/geodesy.js';

const text = (lines: ReturnType<typeof drawWorldMap>) => lines.map((l) => l.map((s) => s.text).join(''));

describe('the world map', () => {
  it('puts land where land is', () => {
    const width = 360;
    const height = 145;
    const dots = landDots(width, height);
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
    const points = greatCircle(a, b, 1);
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
