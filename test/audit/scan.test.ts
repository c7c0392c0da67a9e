import { describe, expect, it } from 'vitest';
import { budgetSentence } from '../../src/agent/protocols/common.js';
import { findCoordinates } from '../../src/audit/coordinates.js';
import { scanText } from '../../src/audit/scan.js';
import { scannableRanges } from '../../src/audit/text.js';
import { episodeStarted, lookFeedback, OUT_OF_ACTIONS, panFeedback } from '../../src/env/feedback.js';

const pairs = (text: string) => findCoordinates(text).map((p) => [p.lat, p.lon]);

describe('coordinates in any common notation', () => {
  it('reads decimal, signed, hemisphere, DMS, labelled and URL forms', () => {
    expect(pairs('-33.8688, 151.2093')).toContainEqual([-33.8688, 151.2093]);
    expect(pairs('33.8688 S 151.2093 E')).toEqual([[-33.8688, 151.2093]]);
    expect(pairs('S 33.8688, E 151.2093')).toEqual([[-33.8688, 151.2093]]);
    expect(pairs(`33°52'07.7"S 151°12'33.5"E`)[0]!.map((d) => Math.round(d * 1e4) / 1e4)).toEqual([-33.8688, 151.2093]);
    expect(pairs('33°52.13′S, 151°12.56′E')[0]!.map((d) => Math.round(d * 1e3) / 1e3)).toEqual([-33.869, 151.209]);
    expect(pairs('33d52m7s S 151d12m33s E')).toHaveLength(1);
    expect(pairs('LAT=-33.87 LNG=151.21')).toEqual([[-33.87, 151.21]]);
    expect(pairs('https://www.openstreetmap.org/?mlat=-33.87&mlon=151.21#map=15')).toEqual([[-33.87, 151.21]]);
    expect(pairs('ll=-33.87%2C151.21&z=12')).toContainEqual([-33.87, 151.21]);
    expect(pairs('−33.87 / 151.21')).toContainEqual([-33.87, 151.21]);
  });

  it("reads none in geolab's own camera and budget sentences, versions, times or prose", () => {
    const texts = [
      lookFeedback({ headingDeg: 90, pitchDeg: 0, fovDeg: 90 }),
      panFeedback(45, { headingDeg: 135, pitchDeg: 10, fovDeg: 60 }),
      episodeStarted(12),
      'between 10 and 120 degrees, version 1.2.3, at 12:30, 3 of 10',
    ];
    for (const text of texts) expect(pairs(text), text).toEqual([]);
  });
});

describe('budget sentences', () => {
  const claims = (text: string) => scanText(text).budget.map((c) => `${c.unit} ${c.left}`);

  it("reads the harnesses' and the environment's wording", () => {
    expect(claims(`Facing 0°. ${budgetSentence(8, 'tool call')}`)).toEqual(['turns 8']);
    expect(claims(budgetSentence(1, 'tool call'))).toEqual(['turns 1']);
    expect(claims(budgetSentence(0, 'turn'))).toEqual(['turns 0']);
    expect(claims('Turn 3 of 10: 8 turns left, this one included.')).toEqual(['turns 8']);
    expect(claims('WARNING: only 2 turn(s) left.')).toEqual(['turns 2']);
    expect(claims(`${episodeStarted(12)} 5 actions remain. ${OUT_OF_ACTIONS}`)).toEqual(['steps 12', 'steps 5', 'steps 0']);
    expect(claims('Running out of actions without a guess scores 0.')).toEqual([]);
  });
});

describe('base64 payloads are never scanned', () => {
  it('skips a data URL inside a text and keeps the offsets of the rest', () => {
    const text = 'before data:image/png;base64,QUJD+/0= after SRB';
    const ranges = scannableRanges(text);
    expect(ranges.map(([a, b]) => text.slice(a, b))).toEqual(['before data:image/png;base64,', ' after SRB']);
    const scan = scanText(text);
    expect(scan.words.map((w) => text.slice(w.start, w.end))).toEqual(['before', 'data', 'image', 'png', 'base64', 'after', 'SRB']);
  });
});
