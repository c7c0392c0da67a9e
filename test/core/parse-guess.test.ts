import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GUESS_GUIDANCE, parseGuess, type ParsedGuess } from '../../src/core/parse-guess.js';

function expectGuess(result: ParsedGuess, lat: number, lon: number, format: string): void {
  expect(result.ok, JSON.stringify(result)).toBe(true);
  if (!result.ok) return;
  expect(result.lat).toBeCloseTo(lat, 9);
  expect(result.lon).toBeCloseTo(lon, 9);
  expect(result.format).toBe(format);
}

function expectFailure(result: ParsedGuess, note: RegExp): void {
  expect(result.ok, JSON.stringify(result)).toBe(false);
  if (result.ok) return;
  expect(result.note).toMatch(note);
  expect(result.guidance).toBe(GUESS_GUIDANCE);
}

describe('parseGuess formats', () => {
  it.each([
    ['{"lat": 48.8584, "lon": 2.2945}', 48.8584, 2.2945],
    ['{"latitude": -33.9, "longitude": 18.4}', -33.9, 18.4],
    ["{'lng': 18.4, 'lat': -33.9}", -33.9, 18.4],
    ['{lat: 12.5, long: -70}', 12.5, -70],
    ['{"lat": "48.85", "lon": "2.29"}', 48.85, 2.29],
    ['{"action": "guess", "lat": 35.68, "confidence": 0.4, "lon": 139.76}', 35.68, 139.76],
    ['I am fairly sure.\n```json\n{"action":"guess","lat":-1.29,"lon":36.82}\n```', -1.29, 36.82],
    ['{"LAT": 10, "LON": 20}', 10, 20],
  ])('reads JSON-ish keys: %s', (text, lat, lon) => {
    expectGuess(parseGuess(text), lat, lon, 'json');
  });

  it('prefers a JSON object to keys mentioned earlier in prose', () => {
    expectGuess(parseGuess('Not lat: 1, lon: 2 but {"lat": 3, "lon": 4}'), 3, 4, 'json');
  });

  it.each([
    ['lat: 48.85 lon: 2.29', 48.85, 2.29],
    ['Latitude = 48.85; Longitude = 2.29', 48.85, 2.29],
    ['lon=2.29&lat=48.85', 48.85, 2.29],
    ['Lat: -33.9\nLng: 18.4', -33.9, 18.4],
    ['lat 48.85, lon 2.29', 48.85, 2.29],
    ['"lat": 48.85, "lon": 2.29', 48.85, 2.29],
    ['Latitude: 33.9° S, Longitude: 18.4° E', -33.9, 18.4],
    [`Latitude: 48°51'29.6"N Longitude: 2°17'40.2"E`, 48 + 51 / 60 + 29.6 / 3600, 2 + 17 / 60 + 40.2 / 3600],
  ])('reads labelled values: %s', (text, lat, lon) => {
    expectGuess(parseGuess(text), lat, lon, 'labelled');
  });

  it.each([
    [`48°51'29.6"N 2°17'40.2"E`, 48 + 51 / 60 + 29.6 / 3600, 2 + 17 / 60 + 40.2 / 3600],
    [`48°51'29.6''N, 2°17'40.2''W`, 48 + 51 / 60 + 29.6 / 3600, -(2 + 17 / 60 + 40.2 / 3600)],
    ['48° 51.5′ N 2° 17′ E', 48 + 51.5 / 60, 2 + 17 / 60],
    ['48.85 N, 2.29 E', 48.85, 2.29],
    ['33.9S 18.4E', -33.9, 18.4],
    ['33.9 South, 18.4 East', -33.9, 18.4],
    ['N 48.85, E 2.29', 48.85, 2.29],
    ['S33.9 W70.6', -33.9, -70.6],
    ['2.29 E 48.85 N', 48.85, 2.29],
    ['-33.9°, 18.4°', -33.9, 18.4],
    ['48.85° N and 2.29° W', 48.85, -2.29],
    ['12 degrees S, 77 degrees W', -12, -77],
    ['48.85º N / 2.29º E', 48.85, 2.29],
  ])('reads degrees, minutes, seconds and hemispheres: %s', (text, lat, lon) => {
    expectGuess(parseGuess(text), lat, lon, 'degrees');
  });

  it.each([
    ['48.8584, 2.2945', 48.8584, 2.2945],
    ['-33.9 / 18.4', -33.9, 18.4],
    ['(12.5; -70.0)', 12.5, -70],
    ['48.85 and 2.29', 48.85, 2.29],
    ['48.85   2.29', 48.85, 2.29],
    ['48,2', 48, 2],
    ['−33.9, 18.4', -33.9, 18.4],
    ['90, -180', 90, -180],
    ['My final answer: 35.6762, 139.6503.', 35.6762, 139.6503],
  ])('reads a bare decimal pair: %s', (text, lat, lon) => {
    expectGuess(parseGuess(text), lat, lon, 'decimal');
  });

  it('tries the formats in order, not by position', () => {
    expectGuess(parseGuess('Near 10, 20 or rather lat: 48.85 lon: 2.29'), 48.85, 2.29, 'labelled');
    expectGuess(parseGuess('Between 10, 20 and 33.9S 18.4E'), -33.9, 18.4, 'degrees');
  });

  it('passes over an out-of-range pair for a later good one of the same format', () => {
    expectGuess(parseGuess('Captured 2024/03; I guess 48.85, 2.29'), 48.85, 2.29, 'decimal');
  });

  it('does not pair numbers across prose or inside dates', () => {
    expectFailure(parseGuess('Heading 90, which shows 3 cars'), /No latitude and longitude/);
    expectFailure(parseGuess('It was 2024-03-05 at 12:30'), /No latitude and longitude/);
  });
});

describe('parseGuess <guess> tag', () => {
  it('reads the tag content before the rest of the reply', () => {
    const result = parseGuess('Maybe 10, 20? No. <guess>48.8584, 2.2945</guess>');
    expectGuess(result, 48.8584, 2.2945, 'decimal');
    expect(result.ok && result.note).toBeUndefined();
  });

  it('accepts any case, spaces in the tag and a missing closing tag', () => {
    expectGuess(parseGuess('<GUESS >-33.9, 18.4</Guess>'), -33.9, 18.4, 'decimal');
    expectGuess(parseGuess('Done. <guess>-33.9, 18.4'), -33.9, 18.4, 'decimal');
  });

  it('uses the first tag', () => {
    expectGuess(parseGuess('<guess>1, 2</guess> <guess>3, 4</guess>'), 1, 2, 'decimal');
  });

  it('falls back to the whole reply when the tag holds no coordinates, and says so', () => {
    const result = parseGuess('<guess>somewhere in France</guess> I would say 48.85, 2.29');
    expectGuess(result, 48.85, 2.29, 'decimal');
    expect(result.ok && result.note).toMatch(/<guess> tag held no coordinates/);
  });

  it('fails on an out-of-range tag even when the reply has good coordinates elsewhere', () => {
    expectFailure(parseGuess('I thought 48.85, 2.29 but <guess>95, 10</guess>'), /Latitude 95 is out of range/);
  });
});

describe('parseGuess failures', () => {
  it('fails on an empty reply with the guidance', () => {
    expect(parseGuess('')).toEqual({ ok: false, note: 'The reply is empty.', guidance: GUESS_GUIDANCE });
    expectFailure(parseGuess('  \n '), /empty/);
  });

  it('exports the exact guidance', () => {
    expect(GUESS_GUIDANCE).toBe('Reply with a latitude and longitude, for example <guess>48.8584, 2.2945</guess>');
  });

  it('fails on words only', () => {
    expectFailure(parseGuess('I have no idea where this is, maybe Europe?'), /No latitude and longitude found/);
    expectFailure(parseGuess('<guess></guess>'), /No latitude and longitude found/);
  });

  it('fails on a single number', () => {
    expectFailure(parseGuess('48.85'), /No latitude and longitude found/);
    expectFailure(parseGuess('lat: 48.85'), /No latitude and longitude found/);
    expectFailure(parseGuess('{"lat": 48.85}'), /No latitude and longitude found/);
  });

  it('names an out-of-range latitude', () => {
    expectFailure(parseGuess('95.5, 10'), /^Latitude 95.5 is out of range: it must be between -90 and 90\.$/);
    expectFailure(parseGuess('{"lat": -91, "lon": 10}'), /Latitude -91 is out of range/);
    expectFailure(parseGuess('lat: 100 lon: 10'), /Latitude 100 is out of range/);
    expectFailure(parseGuess('91°N 10°E'), /Latitude 91 is out of range/);
  });

  it('names an out-of-range longitude', () => {
    expectFailure(parseGuess('45, 180.5'), /^Longitude 180.5 is out of range: it must be between -180 and 180\.$/);
    expectFailure(parseGuess('{"lat": 45, "lon": -200}'), /Longitude -200 is out of range/);
    expectFailure(parseGuess('45 N 181 W'), /Longitude -181 is out of range/);
  });

  it('rejects minutes of 60 or more', () => {
    expectFailure(parseGuess(`48°60'N 2°17'E`), /Minutes must be below 60, got 60 in "48°60'N"/);
    expectFailure(parseGuess(`48°12'N 2°75.5'E`), /Minutes must be below 60, got 75.5/);
  });

  it('rejects seconds of 60 or more', () => {
    expectFailure(parseGuess(`48°51'60"N 2°17'40"E`), /Seconds must be below 60, got 60/);
  });

  it('does not read two latitudes as a pair', () => {
    expectFailure(parseGuess('48.85 N 2.29 S'), /No latitude and longitude found/);
  });

  it('does not pair a marked coordinate with a plain number', () => {
    expectFailure(parseGuess('48.85° N, 2.29'), /No latitude and longitude found/);
  });
});

describe('parseGuess properties', () => {
  // String(-0) is "0", so a written -0 comes back as 0: compare as numbers, not as objects.
  const lat = fc.double({ min: -90, max: 90, noNaN: true }).map((v) => (Object.is(v, -0) ? 0 : v));
  const lon = fc.double({ min: -180, max: 180, noNaN: true }).map((v) => (Object.is(v, -0) ? 0 : v));

  it('reads back any valid "lat, lon"', () => {
    fc.assert(
      fc.property(lat, lon, (la, lo) => {
        const result = parseGuess(`${la}, ${lo}`);
        expect(result).toEqual({ ok: true, lat: la, lon: lo, format: 'decimal' });
      }),
    );
  });

  it('reads back any valid JSON object, inside prose and a guess tag', () => {
    fc.assert(
      fc.property(lat, lon, fc.boolean(), (la, lo, lonFirst) => {
        const json = JSON.stringify(lonFirst ? { lon: lo, lat: la } : { lat: la, lon: lo });
        expect(parseGuess(json)).toEqual({ ok: true, lat: la, lon: lo, format: 'json' });
        expect(parseGuess(`Step 3 of 12. <guess>${json}</guess>`)).toEqual({ ok: true, lat: la, lon: lo, format: 'json' });
      }),
    );
  });

  it('reads back degrees, minutes and seconds with hemispheres', () => {
    // Built from whole components so that no rounding can push the seconds to 60.
    const dms = (maxDeg: number, pos: string, neg: string) =>
      fc
        .tuple(fc.integer({ min: 0, max: maxDeg - 1 }), fc.integer({ min: 0, max: 59 }), fc.integer({ min: 0, max: 59_999 }), fc.boolean())
        .map(([d, m, milliSec, negative]) => ({
          text: `${d}°${m}'${milliSec / 1000}"${negative ? neg : pos}`,
          deg: (negative ? -1 : 1) * (d + m / 60 + milliSec / 1000 / 3600),
        }));
    fc.assert(
      fc.property(dms(90, 'N', 'S'), dms(180, 'E', 'W'), fc.constantFrom(' ', ', ', ' / '), (la, lo, sep) => {
        const result = parseGuess(`${la.text}${sep}${lo.text}`);
        expect(result.ok && result.format).toBe('degrees');
        if (!result.ok) return;
        expect(result.lat).toBeCloseTo(la.deg, 12);
        expect(result.lon).toBeCloseTo(lo.deg, 12);
      }),
    );
  });

  it('never throws on arbitrary text', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'0123456789.,;/-+ NSEWlatonlg:="\'{}°<>guess'.split('')) }), (text) => {
        const result = parseGuess(text);
        if (result.ok) {
          expect(Math.abs(result.lat)).toBeLessThanOrEqual(90);
          expect(Math.abs(result.lon)).toBeLessThanOrEqual(180);
        } else {
          expect(result.guidance).toBe(GUESS_GUIDANCE);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('stays linear on hostile input (a backtracking pattern would hit the test timeout)', () => {
    for (const hostile of ['1 '.repeat(50_000), `1°1'`.repeat(30_000), 'lat '.repeat(30_000), '{lat:'.repeat(20_000), '<guess>'.repeat(20_000)]) {
      expect(parseGuess(hostile)).toHaveProperty('ok');
    }
  });
});
