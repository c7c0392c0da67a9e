/** The audit's town grid answers as the maps' town index does, box for box. */
import { describe, expect, it } from 'vitest';
import { placeTable, townsWithin } from '../../src/geo/cities.js';
import { townIdsInBox } from '../../src/geo/town-grid.js';

/** Places of the shared table by id, as townsWithin answers them. */
function named(ids: number[]) {
  const { buf, nameStart, nameEnd, lat, lon, population } = placeTable();
  return ids.map((id) => ({ name: buf.toString('utf8', nameStart[id], nameEnd[id]), lat: lat[id], lon: lon[id], population: population[id] }));
}

const BOXES = [
  // Around Niš, Paris and Tokyo: hundreds of towns, equal populations among them.
  { south: 42.87, north: 43.77, west: 21.28, east: 22.51 },
  { south: 48.41, north: 49.31, west: 1.67, east: 3.03 },
  { south: 35.23, north: 36.13, west: 139.14, east: 140.24 },
  // Vanua Levu (Fiji), across the antimeridian; and cell edges on whole degrees.
  { south: -17, north: -16, west: 179, east: -179.8 },
  { south: 45, north: 46, west: 7, east: 8 },
];

describe('townIdsInBox', () => {
  it.each(BOXES)('lists the towns of %o in the order townsWithin does', (box) => {
    const expected = townsWithin(box, 0, Number.MAX_SAFE_INTEGER);
    expect(expected.length).toBeGreaterThan(0);
    expect(named(townIdsInBox(box))).toEqual(expected);
  });
});
