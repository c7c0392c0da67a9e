import { describe, expect, it } from 'vitest';
import { haversineKm } from '../../src/core/geodesy.js';
import { foldWord, wordHash } from '../../src/audit/words.js';
import { AuditSession } from '../../src/audit/session.js';
import { CITY_RADIUS_KM, TownDictionary, type NearbyCity } from '../../src/audit/places.js';
import { townsWithin } from '../../src/geo/cities.js';

const NIS = { lat: 43.3209, lon: 21.8958 };
const SPLIT = { lat: 43.5081, lon: 16.4402 };

/** Every town the dictionary names, in its order, by trying each word of the towns around. */
function named(truth: { lat: number; lon: number }): NearbyCity[] {
  const dictionary = new TownDictionary(truth, new AuditSession());
  const box = { south: truth.lat - 1, north: truth.lat + 1, west: truth.lon - 1.5, east: truth.lon + 1.5 };
  const indexes = new Set<number>();
  for (const town of townsWithin(box, 0, Number.MAX_SAFE_INTEGER)) {
    const first = foldWord(town.name.split(/[^\p{L}\p{M}\p{N}]+/u).find(Boolean) ?? '');
    for (const c of dictionary.withFirst(wordHash(first)) ?? []) indexes.add(c);
  }
  return [...indexes].sort((a, b) => a - b).flatMap((c) => dictionary.city(c) ?? []);
}

describe("a task's towns", () => {
  it('names the towns within 50 km once each, most populous first, by their native names', () => {
    const towns = named(NIS);
    expect(towns.map((t) => t.name)).toContain('Niš');
    const dictionary = new TownDictionary(NIS, new AuditSession());
    expect((dictionary.withFirst(wordHash('nis')) ?? []).map((c) => dictionary.city(c)?.name)).toContain('Niš');
    for (const town of towns) expect(haversineKm(NIS.lat, NIS.lon, town.lat, town.lon)).toBeLessThanOrEqual(CITY_RADIUS_KM);
    const keys = towns.map((t) => t.words.join(' '));
    expect(new Set(keys).size).toBe(keys.length);
    expect(towns.length).toBeGreaterThan(10);
  });

  it('keeps names that are common words as names only, and knows no town far away', () => {
    const towns = named(SPLIT);
    expect(towns.length).toBeGreaterThan(5);
    expect(towns.find((t) => t.name === 'Split')).toMatchObject({ asName: true, trueTown: true });
    expect(towns.find((t) => t.name === 'Solin')).toMatchObject({ asName: false, trueTown: false });
    expect(named(NIS).map((t) => t.name)).not.toContain('Solin');
    expect(towns.map((t) => t.name)).toContain('Solin');
  });

  it('is empty without a truth', () => {
    expect(new TownDictionary(null, new AuditSession()).isEmpty).toBe(true);
  });
});
