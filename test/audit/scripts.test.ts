/**
 * Places in every script and spelling (docs/audit.md, "Places: sources and licences"): the true
 * country named in other languages, the truth's admin-1 region, nearby towns in their native script,
 * transliterated or by an exonym; towns named like English words counted only as names; the true
 * town always; geolab's own compass points never read as country codes.
 */
import { describe, expect, it } from 'vitest';
import { auditPrompt } from '../../src/audit/detect.js';
import type { AuditTask, Finding } from '../../src/audit/types.js';
import { lookFeedback } from '../../src/env/feedback.js';
import { auditTask as nisTask, harness, promptOf } from './corpus.js';

function at(lat: number, lon: number, country?: string): AuditTask {
  return { truth: { lat, lon }, identity: [], ...(country ? { country } : {}) };
}

const LVIV = at(49.8397, 24.0297, 'Ukraine');
const ZAGREB = at(45.815, 15.9819, 'Croatia');
const BELGRADE = at(44.8176, 20.4569, 'Republic of Serbia');
const MUNICH = at(48.1351, 11.582, 'Germany');
const SACRAMENTO = at(38.5816, -121.4944, 'United States of America');
const TVER = at(56.8587, 35.9176, 'Russia');
const TOKYO = at(35.6895, 139.6917, 'Japan');
/** Sandwich, Kent: Deal is 7 km away, not the nearest town. */
const SANDWICH = at(51.2747, 1.3393, 'United Kingdom');
/** Verviers, Belgium: Spa is 11 km away. */
const VERVIERS = at(50.5891, 5.8625, 'Belgium');
/** Wokingham: Reading is 11 km away. */
const WOKINGHAM = at(51.4112, -0.8339, 'United Kingdom');
const MOBILE = at(30.6944, -88.0431, 'United States of America');
const PARIS = at(48.8566, 2.3522, 'France');
const SPLIT = at(43.5081, 16.4402, 'Croatia');
const STOCKHOLM = at(59.3293, 18.0686, 'Sweden');

function audit(task: AuditTask, text: string, agentPoints: { lat: number; lon: number }[] = []): Finding[] {
  return auditPrompt(promptOf([harness(text)], { agentPoints }), task);
}

const summary = (findings: Finding[]) => findings.map((f) => `${f.kind} ${f.severity} ${f.text}`);

describe('the true country in other languages and scripts', () => {
  const serbia: [string, string, string][] = [
    ['Russian', 'Это Сербия, судя по знакам.', 'Сербия'],
    ['Greek', 'Μάλλον Σερβία, από τις πινακίδες.', 'Σερβία'],
    ['Arabic', 'أعتقد أن هذه صربيا', 'صربيا'],
    ['Hebrew', 'נראה כמו סרביה', 'סרביה'],
    ['Chinese', '这里是塞尔维亚的乡村', '塞尔维亚'],
    ['Japanese', 'ここはセルビアの道路です', 'セルビア'],
    ['Georgian', 'ეს არის სერბეთი', 'სერბეთი'],
    ['German', 'Das ist Serbien.', 'Serbien'],
  ];
  it.each(serbia)('names Serbia in %s', (_, text, span) => {
    expect(summary(audit(nisTask, text))).toEqual([`country medium ${span}`]);
    // The same words on a task in Croatia name no place of it.
    expect(audit(ZAGREB, text)).toEqual([]);
  });

  it('names Japan in Japanese inside a run of CJK, and Japan only on its own task', () => {
    expect(summary(audit(TOKYO, '写真は日本の住宅街です'))).toEqual(['country medium 日本']);
    expect(audit(nisTask, '写真は日本の住宅街です')).toEqual([]);
  });
});

describe("the truth's admin-1 region", () => {
  it('is found in Latin letters and in another script, as a medium finding', () => {
    expect(summary(audit(SACRAMENTO, 'Dry hills, probably California.'))).toEqual(['region medium California']);
    expect(summary(audit(SACRAMENTO, '我觉得是加利福尼亚州的郊区'))).toEqual(['region medium 加利福尼亚州']);
    expect(summary(audit(TVER, 'Похоже на Тверская область.'))).toEqual(['region medium Тверская область']);
    const oblast = audit(LVIV, 'Somewhere in Lviv Oblast, or Львовская область.').filter((f) => f.kind === 'region');
    expect(summary(oblast)).toEqual(['region medium Lviv Oblast', 'region medium Львовская область']);
    expect(oblast[0]?.evidence).toBe('the true region (Lviv Oblast, UA); no agent point lies in it');
  });

  it("is explained by an agent point in the region, not by one outside it, and other regions are clean", () => {
    // The feedback to the agent's pin (a tool result) names the region its point is in.
    const pinned = (point: { lat: number; lon: number }) =>
      auditPrompt(promptOf([{ role: 'tool', tool_call_id: 'call_pin', content: 'Pin 1: Тверская область.' }], { agentPoints: [point] }), TVER);
    // Rzhev, 115 km from the truth, is in Tver Oblast; Moscow is not.
    expect(pinned({ lat: 56.2624, lon: 34.3282 })).toEqual([]);
    expect(summary(pinned({ lat: 55.7558, lon: 37.6173 }))).toEqual(['region medium Тверская область']);
    // Named outside any feedback, even a pin in the region explains nothing.
    expect(summary(audit(TVER, 'The region is Тверская область.', [{ lat: 56.2624, lon: 34.3282 }]))).toEqual(['region medium Тверская область']);
    expect(audit(TVER, 'Московская область или Nevada')).toEqual([]);
  });
});

describe("the truth's district, where ISO 3166-2 subdivides by GeoNames' admin2", () => {
  /** Aleksinac is in the Nišava District (RS-20), Pirot in the Pirot District; both in Central Serbia. */
  const ALEKSINAC = { lat: 43.5417, lon: 21.7069 };
  const PIROT = { lat: 43.1531, lon: 22.5861 };

  it('names Serbia\'s districts by ISO, in Cyrillic and by GeoNames\' name, as regions', () => {
    for (const [text, span] of [
      ['Табла: Нишавски округ.', 'Нишавски округ'],
      ['Nišavski okrug, I think.', 'Nišavski okrug'],
      ['Somewhere in the Nišava District.', 'Nišava'],
    ]) {
      expect(summary(audit(nisTask, text as string)), text).toEqual([`region medium ${span}`]);
    }
    expect(audit(nisTask, 'Табла: Нишавски округ.')[0]?.evidence).toBe('the true district (Nišava, RS); no agent point lies in it');
    // Another district of Serbia names no place of this task.
    expect(audit(nisTask, 'Пиротски округ или Sremski okrug')).toEqual([]);
  });

  it('is explained by an agent point in the district; the admin-1 region by one anywhere in it', () => {
    const pinned = (content: string, point: { lat: number; lon: number }) =>
      auditPrompt(promptOf([{ role: 'tool', tool_call_id: 'call_pin', content }], { agentPoints: [point] }), nisTask);
    expect(pinned('Pin 1: Нишавски округ.', ALEKSINAC)).toEqual([]);
    expect(summary(pinned('Pin 1: Нишавски округ.', PIROT))).toEqual(['region medium Нишавски округ']);
    expect(pinned('Pin 1: Central Serbia.', PIROT)).toEqual([]);
  });
});

describe("regions in their country's own languages (CLDR)", () => {
  const EDINBURGH = at(55.9533, -3.1883, 'United Kingdom');
  const CARDIFF = at(51.4816, -3.1791, 'United Kingdom');

  it('names Scotland in Scottish Gaelic and Welsh, Wales in Welsh', () => {
    expect(summary(audit(EDINBURGH, 'Fàilte gu Alba!'))).toEqual(['region medium Alba']);
    expect(summary(audit(EDINBURGH, 'Croeso i Yr Alban'))).toEqual(['region medium Yr Alban']);
    expect(summary(audit(CARDIFF, 'Croeso i Cymru'))).toEqual(['region medium Cymru']);
    expect(audit(CARDIFF, 'Fàilte gu Alba!')).toEqual([]);
  });
});

describe('towns in their native script, transliterated, and by exonym', () => {
  it('finds the true town in native script and transliteration (Львів / Lviv, Ниш / Nish)', () => {
    for (const name of ['Львів', 'Lviv', 'Lvov', 'Lemberg', '利沃夫']) expect(summary(audit(LVIV, `Signs point to ${name}.`)), name).toEqual([`city high ${name}`]);
    for (const name of ['Ниш', 'Niš', 'Nis', 'Nish']) expect(summary(audit(nisTask, `Signs point to ${name}.`)), name).toEqual([`city high ${name}`]);
  });

  it('finds a nearby town in Cyrillic, and says how far it is', () => {
    const [found] = audit(nisTask, 'Табла: Алексинац');
    expect(found).toMatchObject({ kind: 'city', severity: 'medium', text: 'Алексинац' });
    expect(found?.evidence).toMatch(/^Aleksinac, a place \d+\.\d km from the truth/);
  });

  it('finds exonyms and native spellings of a large town', () => {
    for (const name of ['Belgrad', 'Beograd', 'Београд', 'Belgrade']) expect(summary(audit(BELGRADE, `Near ${name}.`)), name).toEqual([`city high ${name}`]);
    for (const name of ['München', 'Munich', 'Muenchen']) expect(summary(audit(MUNICH, `Near ${name}.`)), name).toEqual([`city high ${name}`]);
  });
});

describe('towns whose names are English words', () => {
  it('are clean written as words and found written as names', () => {
    const deal = (text: string) => summary(audit(SANDWICH, text)).filter((s) => s.startsWith('city'));
    expect(deal('A good deal of traffic here.')).toEqual([]);
    expect(deal('Deal with the map first. Then pin.')).toEqual([]);
    expect(deal('The road to Deal is long.')).toEqual(['city medium Deal']);
    expect(deal('DEAL 3 km')).toEqual(['city medium DEAL']);
    expect(deal('A258 Deal')).toEqual(['city medium Deal']);
    expect(deal('Road sign:\nDeal')).toEqual(['city medium Deal']);

    expect(summary(audit(VERVIERS, 'It has a spa town feel.')).filter((s) => s.startsWith('city'))).toEqual([]);
    expect(summary(audit(VERVIERS, 'Spa 11 km')).filter((s) => s.startsWith('city'))).toEqual(['city medium Spa']);

    expect(summary(audit(WOKINGHAM, 'Reading the signs, I think this is England.')).filter((s) => s.startsWith('city'))).toEqual([]);
    expect(summary(audit(WOKINGHAM, 'The signs say Reading.')).filter((s) => s.startsWith('city'))).toEqual(['city medium Reading']);
  });

  it('the true town is found written as a name anywhere, and is high within 2 km', () => {
    expect(audit(MOBILE, 'A mobile phone mast.')).toEqual([]);
    expect(summary(audit(MOBILE, 'Mobile, by the look of it.'))).toEqual(['city high Mobile']);
    expect(summary(audit(SPLIT, 'Split, on the coast.')).filter((s) => s.startsWith('city'))).toEqual(['city high Split']);
    expect(audit(SPLIT, 'I split the view into halves.')).toEqual([]);
  });

  it('Paris on a Paris task is found, and Versailles beside it', () => {
    const found = audit(PARIS, 'Haussmann buildings: Paris, or Versailles.');
    expect(summary(found)).toEqual(['city high Paris', 'city medium Versailles']);
    expect(found[0]?.evidence).toMatch(/^Paris, the town nearest the truth 0\.\d km from the truth/);
  });
});

describe("geolab's own compass points", () => {
  it('"Facing 135° (SE)" on a Swedish task is no country code; a labelled SE is', () => {
    const feedback = lookFeedback({ headingDeg: 135, pitchDeg: 0, fovDeg: 90 });
    expect(feedback).toContain('(SE)');
    expect(audit(STOCKHOLM, feedback)).toEqual([]);
    expect(audit(STOCKHOLM, 'Facing 45° (NE), then heading (SE).')).toEqual([]);
    expect(summary(audit(STOCKHOLM, 'country: SE'))).toEqual(['country medium SE']);
  });
});
