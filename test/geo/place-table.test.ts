/**
 * The place table is read once per process, whoever asks first: the major cities (pins' nearest
 * city), the maps' towns and the audit's town grid share one table of places. With the build's
 * places.bin in place (npm test builds dist/), cities.pbf itself is never read: the file carries
 * the places' strings.
 */
import { describe, expect, it, vi } from 'vitest';

const reads = vi.hoisted(() => ({ pbf: 0, places: 0 }));

vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs')>();
  const readFileSync = ((...args: Parameters<typeof actual.readFileSync>) => {
    if (String(args[0]).endsWith('cities.pbf')) reads.pbf++;
    if (String(args[0]).endsWith('places.bin')) reads.places++;
    return actual.readFileSync(...args);
  }) as typeof actual.readFileSync;
  return { ...actual, default: { ...actual, readFileSync }, readFileSync };
});

const { nearestCity, townsWithin } = await import('../../src/geo/cities.js');
const { townIdsInBox } = await import('../../src/geo/town-grid.js');

describe('the place table', () => {
  it('is read once for the major cities, the towns and the town grid, from places.bin alone', () => {
    expect(nearestCity(43.32, 21.9).name).toBe('Niš');
    const box = { south: 42.87, north: 43.77, west: 21.28, east: 22.51 };
    expect(townIdsInBox(box).length).toBeGreaterThan(10);
    expect(townsWithin(box, 0, 5)).toHaveLength(5);
    expect(reads.places).toBe(1);
    expect(reads.pbf).toBe(0);
  });
});
