import { describe, expect, it } from 'vitest';
import { budgetSentence } from '../../src/agent/protocols/common.js';
import { coordinatesByPattern, findCoordinates, mayHoldPair } from '../../src/audit/coordinates.js';
import { loadLexicon, placeMentions } from '../../src/audit/places.js';
import { AuditSession } from '../../src/audit/session.js';
import { foldWord, sameWord, wordHash } from '../../src/audit/words.js';
import { scannableRanges } from '../../src/audit/text.js';
import { episodeStarted, lookFeedback, OUT_OF_ACTIONS, panFeedback } from '../../src/env/feedback.js';

/** One session for the file, as a run holds one. */
const session = new AuditSession();
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

describe("the coordinate pattern's quick test", () => {
  // Texts of two components in random notations with random gaps, prose around and random pieces
  // dropped in: most hold a point, many hold none.
  const PIECES = ['-', '.', ',', '°', "'", '"', 'd', 'm', 's', 'N', 'E', ' ', ';', ':', '%2C', 'x', ' and ', '(', 'of ', 'turn ', '7', '12'];
  const GAPS = [', ', ',', '; ', ' / ', ' | ', ':', ' & ', ' x ', ' and ', '%2C', '%2c', ' ', '  ', '\n', ', pitch ', ' of '];
  const PROSE = ['', 'at ', 'Turn 3 of 12: ', 'q=', '@', '(', 'heading ', 'Pin 1 placed at '];

  it('never rules out a text in which the pattern finds a point (20,000 random texts)', () => {
    let seed = 7;
    const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const pick = <T,>(list: readonly T[]): T => list[Math.floor(rand() * list.length)] as T;
    const maybe = (p: number, text: string) => (rand() < p ? text : '');
    const component = () => {
      const deg = String(Math.floor(rand() * 180));
      const decimal = maybe(0.5, pick(['.', ',']) + String(Math.floor(rand() * 10_000)));
      const dms = maybe(0.3, pick(['°', 'º', '˚', 'deg', 'd', ' °']) + maybe(0.6, `${Math.floor(rand() * 60)}${pick(["'", '′', '’', 'min', 'm'])}` + maybe(0.5, `${Math.floor(rand() * 60)}${pick(['"', '″', '”', "''", 'sec', 's'])}`)));
      return maybe(0.2, pick(['N', 'S', 'E', 'W']) + maybe(0.5, ' ')) + maybe(0.3, pick(['-', '+', '\u2212'])) + deg + decimal + dms + maybe(0.25, maybe(0.5, ' ') + pick(['N', 'S', 'E', 'W']));
    };
    let withPoints = 0;
    let without = 0;
    for (let n = 0; n < 20_000; n++) {
      let text = pick(PROSE) + component() + pick(GAPS) + component() + maybe(0.5, pick(GAPS) + component()) + maybe(0.5, pick(PROSE));
      for (let k = Math.floor(rand() * 3); k > 0; k--) {
        const at = Math.floor(rand() * (text.length + 1));
        text = text.slice(0, at) + pick(PIECES) + text.slice(at);
      }
      if (coordinatesByPattern(text).length === 0) {
        without++;
        continue;
      }
      withPoints++;
      expect(mayHoldPair(text), JSON.stringify(text)).toBe(true);
    }
    // Both kinds in numbers, or the property means little.
    expect(withPoints).toBeGreaterThan(3_000);
    expect(without).toBeGreaterThan(1_000);
  });

  it('rules out the prose of prompts and their transcripts', () => {
    for (const text of ['Turn 8 of 12: 5 turns left, this one included.', '- turn 3: look(heading_deg=22) -> Facing 29°.', 'heading 90°, field of view 90°, pitch 0°.', 'at 12:30, 3 of 10, 1/3']) {
      expect(mayHoldPair(text), text).toBe(false);
    }
  });
});

describe('words', () => {
  it('keeps the words a dictionary holds, hashed as read the way wordHash hashes their folded form', () => {
    const text = 'NIŠ, Niš and nis; Ελλάδα İstanbul São-Paulo ZQXWV-unheld 2f9a4c1e0b7d';
    const held = ['nis', 'ellada', 'istanbul', 'sao', 'paulo'];
    for (const word of held) session.addDictionaryWord(wordHash(word));
    const scan = session.scanText(text);
    const kept = Array.from({ length: scan.count }, (_, i) => scan.folded(i));
    for (const word of held) expect(kept).toContain(word);
    expect(kept).not.toContain('zqxwv');
    for (let i = 0; i < scan.count; i++) {
      const word = text.slice(scan.start(i), scan.end(i));
      expect(scan.folded(i)).toBe(foldWord(word));
      expect(scan.hash(i), word).toBe(wordHash(foldWord(word)));
    }
    expect(scan.lowerAt(kept.indexOf('nis') + 1)).toBe('niš');
    expect(scan.hexWords.map((w) => w.lower)).toEqual(['2f9a4c1e0b7d']);
  });

  it('compares a stretch of text with a folded word as foldWord would, ASCII or not', () => {
    const cases: [string, string][] = [
      ['Nis', 'nis'],
      ['NIS', 'nis'],
      ['Niš', 'nis'],
      ['Nix', 'nis'],
      ['Ni', 'nis'],
      ['Nise', 'nis'],
      ['Sa\u0303o', 'sao'],
      ['İstanbul', 'istanbul'],
      ['Ελλάδα', 'ελλαδα'],
      ['x2', 'x2'],
    ];
    for (const [text, word] of cases) expect(sameWord(`(${text})`, 1, text.length + 1, word), text).toBe(foldWord(text) === word);
    expect(cases.filter(([text, word]) => foldWord(text) === word).length).toBeGreaterThan(5);
  });

  it("reads a phrase's later words from the text: adjacent ones only", () => {
    loadLexicon(session);
    const spans = (text: string) => placeMentions(text, session.scanText(text)).map((m) => text.slice(m.start, m.end));
    expect(spans('Plates of Papua New Guinea.')).toEqual(['Papua New Guinea']);
    expect(spans('Papua,  New Guinea')).toEqual(['Papua,  New Guinea']);
    // A word between, or more than three characters, and the phrase is not there.
    expect(spans('Papua X New Guinea')).not.toContain('Papua X New Guinea');
    expect(spans('Papua ... New Guinea')).not.toContain('Papua ... New Guinea');
  });

  it('scans a text again once a dictionary holds a word it did not', () => {
    const text = 'Passing through Qwertyville today.';
    expect(session.scanText(text).count === 0 || !Array.from({ length: session.scanText(text).count }, (_, i) => session.scanText(text).folded(i)).includes('qwertyville')).toBe(true);
    session.addDictionaryWord(wordHash('qwertyville'));
    const again = session.scanText(text);
    expect(Array.from({ length: again.count }, (_, i) => again.folded(i))).toContain('qwertyville');
  });
});

describe('budget sentences', () => {
  const claims = (text: string) => session.scanText(text).budget.map((c) => `${c.unit} ${c.left}`);

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
    // An alpha-3 code after the payload is found where it stands; the same letters inside it are not.
    loadLexicon(session);
    expect(placeMentions(text, session.scanText(text)).map((m) => text.slice(m.start, m.end))).toEqual(['SRB']);
    const inside = 'data:image/png;base64,QUJD SRB+/0=';
    expect(placeMentions(inside, session.scanText(inside))).toEqual([]);
  });
});
