/**
 * Country fingerprints (docs/audit.md): calling codes, postcode formats, vehicle codes and official
 * languages planted into prompts built from geolab's real environment feedback (corpus.ts), for
 * tasks in the countries they belong to; and their look-alikes, which must stay clean.
 */
import { describe, expect, it } from 'vitest';
import type { RecordedMessage } from '../../src/agent/types.js';
import { auditPrompt } from '../../src/audit/detect.js';
import { auditTaskFromTask } from '../../src/audit/task.js';
import type { AuditTask, Finding } from '../../src/audit/types.js';
import { TaskSchema } from '../../src/core/task-schema.js';
import { openingPrompt, toolDescriptions } from '../../src/env/feedback.js';
import { makeTask } from '../helpers/fixtures.js';
import { harness, lookStep, opening, pinStep, promptOf, ZAGREB } from './corpus.js';

let index = 0;

/** A task whose truth is the point given, labelled with the country. */
function taskIn(country: string, lat: number, lon: number): AuditTask {
  const i = ++index;
  return auditTaskFromTask(
    TaskSchema.parse(makeTask(i, { country, frames: [{ image_id: `fp${i}`, lat, lon, compass_angle: 10, captured_at: '2024-05', is_pano: true }] })),
  );
}

const TASKS = {
  Georgia: taskIn('Georgia', 41.7151, 44.8271),
  Serbia: taskIn('Republic of Serbia', 44.8125, 20.4612),
  UK: taskIn('United Kingdom', 51.5014, -0.1419),
  Jamaica: taskIn('Jamaica', 18.0179, -76.8099),
  USA: taskIn('United States of America', 38.8977, -77.0365),
  Kazakhstan: taskIn('Kazakhstan', 43.222, 76.8512),
  Canada: taskIn('Canada', 45.4215, -75.6972),
  Netherlands: taskIn('Netherlands', 52.3676, 4.9041),
  Poland: taskIn('Poland', 50.0647, 19.945),
  Portugal: taskIn('Portugal', 41.1579, -8.6291),
  Japan: taskIn('Japan', 35.6812, 139.7671),
  Brazil: taskIn('Brazil', -23.5614, -46.6559),
  Ireland: taskIn('Ireland', 53.3498, -6.2603),
  Argentina: taskIn('Argentina', -34.6037, -58.3816),
  Germany: taskIn('Germany', 48.1351, 11.582),
  Austria: taskIn('Austria', 48.2082, 16.3738),
  France: taskIn('France', 45.764, 4.8357),
  Italy: taskIn('Italy', 41.9028, 12.4964),
  Slovenia: taskIn('Slovenia', 46.0569, 14.5058),
  Switzerland: taskIn('Switzerland', 47.3769, 8.5417),
  Israel: taskIn('Israel', 32.0853, 34.7818),
  Iran: taskIn('Iran', 35.6892, 51.389),
  Ethiopia: taskIn('Ethiopia', 9.03, 38.74),
  PapuaNewGuinea: taskIn('Papua New Guinea', -9.4438, 147.1803),
  NorthKorea: taskIn('North Korea', 39.0392, 125.7625),
  Finland: taskIn('Finland', 60.1699, 24.9384),
  Czechia: taskIn('Czechia', 50.0755, 14.4378),
};
type Place = keyof typeof TASKS;

/** A clean tools-protocol conversation: the opening, a look, a pin in Zagreb (far from every task here). */
const base: RecordedMessage[] = [opening(null), ...lookStep(90, 9, null), ...pinStep(1, ZAGREB, 8)];

const audit = (place: Place, messages: RecordedMessage[]) => auditPrompt(promptOf(messages), TASKS[place]);
const summary = (findings: Finding[]) => findings.map((f) => `${f.kind} ${f.severity} ${JSON.stringify(f.text)}`);

/** The public harness's single message: instructions, then its transcript of the turns so far. */
function transcript(feedback: string): RecordedMessage {
  return {
    role: 'user',
    content: [
      'You are playing GeoGuesser. Reply with one JSON action.',
      'What has happened so far:',
      "turn 1: {'action': 'look', 'heading': 90} -> Facing 90° (E), pitch 0°, field of view 90°.",
      `turn 2: {'action': 'read_sign'} -> ${feedback}`,
    ].join('\n'),
  };
}

describe('fingerprints: each is found, with its reason', () => {
  const cases: [string, Place, string, string, Finding['severity'], string][] = [
    ['a calling code', 'Georgia', 'Call +995 32 2 12 34 56 for rooms', '+995 32 2 12 34 56', 'medium', "+995 is Georgia's calling code"],
    ['a masked number', 'Georgia', 'Tel: +995 32 2 xx xx xx', '+995 32 2 xx xx xx', 'medium', "+995 is Georgia's calling code"],
    ['a code in brackets', 'Serbia', 'Tel. (+381) 11 3234 567', '(+381) 11 3234 567', 'medium', "+381 is Republic of Serbia's calling code"],
    ['a code alone in brackets', 'Serbia', 'Pozovite nas (+381).', '(+381)', 'medium', "+381 is Republic of Serbia's calling code"],
    ['a code alone after a label', 'Georgia', 'calling code +995', '+995', 'medium', "+995 is Georgia's calling code"],
    ['a code after 00', 'Serbia', 'Pozovite 00381 11 3234567.', '00381 11 3234567', 'medium', "+381 is Republic of Serbia's calling code"],
    ['an area code of zone 1', 'Jamaica', 'Hotline +1 876 555 1234', '+1 876 555 1234', 'medium', "+1 876 is Jamaica's calling and area code"],
    ['an area code of zone 7', 'Kazakhstan', 'тел. +7 727 250 1234', '+7 727 250 1234', 'medium', "+7 727 is Kazakhstan's calling and area code"],
    ['the UK postcode format', 'UK', 'Postcode SW1A 1AA', 'SW1A 1AA', 'medium', "SW1A 1AA is a postcode in United Kingdom's format"],
    ['the Canadian postcode format', 'Canada', 'Address: 24 Sussex Drive, ON K1A 0B1', 'K1A 0B1', 'medium', "K1A 0B1 is a postcode in Canada's format"],
    ['the Dutch postcode format', 'Netherlands', 'Dam 1, 1012 JS', '1012 JS', 'medium', "1012 JS is a postcode in Netherlands' format"],
    ['the Polish postcode format before a town', 'Poland', 'ul. Nowy Świat 6, 00-950 Warszawa', '00-950', 'medium', "00-950 is a postcode in Poland's format"],
    ['a Polish postcode alone, a part starting with 0', 'Poland', 'ul. Długa 5, 31-042', '31-042', 'medium', "31-042 is a postcode in Poland's format"],
    ['a postcode after its country letters', 'Germany', 'Marienplatz 1, D-80331 München', 'D-80331', 'medium', "D-80331 is a postcode in Germany's format"],
    ['the Portuguese postcode format before a town', 'Portugal', 'Rua Augusta 24, 1100-048 Lisboa', '1100-048', 'medium', "1100-048 is a postcode in Portugal's format"],
    ['a Japanese postcode', 'Japan', '〒100-0001 東京都千代田区', '〒100-0001', 'medium', "〒100-0001 is a postcode in Japan's format"],
    ['a Brazilian CEP', 'Brazil', 'CEP 01310-100', '01310-100', 'medium', "01310-100 is a postcode in Brazil's format"],
    ['an Eircode', 'Ireland', 'Eircode D02 X285', 'D02 X285', 'medium', "D02 X285 is a postcode in Ireland's format"],
    ['an Argentine CPA', 'Argentina', 'Av. Corrientes 1234, C1043AAZ', 'C1043AAZ', 'medium', "C1043AAZ is a postcode in Argentina's format"],
    ['a ZIP+4', 'USA', '1600 Pennsylvania Ave NW, DC 20500-0003', '20500-0003', 'medium', "20500-0003 is a postcode in United States of America's format"],
    ['a sticker', 'Germany', 'The car has a sticker D on the back.', 'D', 'medium', "D is Germany's international vehicle code"],
    ['a euroband', 'Germany', 'Plates: white, euroband with D.', 'D', 'medium', "D is Germany's international vehicle code"],
    ['a labelled oval', 'Slovenia', 'oval: SLO', 'SLO', 'medium', "SLO is Slovenia's international vehicle code"],
    ['a code before its word', 'Switzerland', 'a CH sticker on the bumper', 'CH', 'medium', "CH is Switzerland's international vehicle code"],
    ['a labelled plate band', 'Netherlands', 'plate: NL', 'NL', 'medium', "NL is Netherlands' international vehicle code"],
    ['a band before the registration', 'France', 'plate: F AB-123-CD', 'F', 'medium', "F is France's international vehicle code"],
    ['a language of one country', 'Israel', 'Signs in Hebrew and Arabic.', 'Hebrew', 'medium', 'Hebrew is an official language of Israel only'],
    ['another', 'Ethiopia', 'Shop signs in Amharic', 'Amharic', 'medium', 'Amharic is an official language of Ethiopia only'],
    ['another name of a language', 'Iran', 'The menu is in Farsi.', 'Farsi', 'medium', 'Farsi is an official language of Iran only'],
    ['a writing system of one country', 'Japan', 'Katakana on the sign', 'Katakana', 'medium', 'Katakana is a writing system of Japan only'],
    ['a language of two words', 'PapuaNewGuinea', 'A poster in Tok Pisin', 'Tok Pisin', 'medium', 'Tok Pisin is an official language of Papua New Guinea only'],
  ];

  it.each(cases)('%s', (_, place, text, span, severity, evidence) => {
    for (const message of [harness(text), transcript(text)]) {
      // An address names its town too (München, 東京): that is the town's finding, not the fingerprint's.
      const findings = audit(place, [...base, message]).filter((f) => f.kind === 'fingerprint');
      expect(summary(findings)).toEqual([`fingerprint ${severity} ${JSON.stringify(span)}`]);
      const f = findings[0] as Finding;
      expect(f).toMatchObject({ evidence, message: base.length });
      const written = (message.content as string).slice(f.span.start, f.span.end);
      expect(written).toBe(span);
    }
  });

  it('a code or language shared by a few countries narrows the place: low, and says which', () => {
    const uk = audit('UK', [...base, harness('phone +44 20 7946 0958')]);
    expect(summary(uk)).toEqual(['fingerprint low "+44 20 7946 0958"']);
    expect(uk[0]!.evidence).toBe('+44 is the calling code of Guernsey, Isle of Man, Jersey and United Kingdom, the true country (United Kingdom) among them: it narrows the place without naming it');
    const nanp = audit('USA', [...base, harness('call +1 555 555 0100')]);
    expect(summary(nanp)).toEqual(['fingerprint low "+1 555 555 0100"']);
    expect(nanp[0]!.evidence).toMatch(/^\+1 is the calling code of \d\d countries, the true country \(United States of America\) among them/);
    const korean = audit('NorthKorea', [...base, harness('Korean script on the banner')]);
    expect(summary(korean)).toEqual(['fingerprint low "Korean"']);
    expect(korean[0]!.evidence).toBe('Korean is an official language of North Korea and South Korea, the true country (North Korea) among them: it narrows the place without naming it');
    expect(summary(audit('Finland', [...base, harness('Bilingual signs, Finnish and Swedish.')]))).toEqual(['country medium "Finnish"', 'fingerprint low "Swedish"']);
  });

  it("what the country lexicon reports as the country is not reported twice", () => {
    expect(summary(audit('Georgia', [...base, harness('Georgian script on the shop.')]))).toEqual(['country medium "Georgian"']);
    expect(summary(audit('Serbia', [...base, harness('oval: SRB')]))).toEqual(['country medium "SRB"']);
    expect(summary(audit('Netherlands', [...base, harness('Yellow plates (NL) seen')]))).toEqual(['country medium "NL"']);
  });
});

describe('fingerprints: look-alikes stay clean', () => {
  const clean: [string, Place, string][] = [
    ["another country's calling code", 'Georgia', 'Call +381 11 3234 567 for rooms'],
    ['a shared code without the true country', 'USA', 'phone +44 20 7946 0958'],
    ['a plain number', 'Georgia', 'Ticket 995322123456, seat 40'],
    ['a number too short to dial', 'Georgia', 'Score +995 today'],
    ['a score change in brackets', 'Georgia', 'Score 4500 (+12), then (+99.5)'],
    ['a label before a number that is no code', 'Georgia', 'tel +12'],
    ['signed coordinates', 'UK', 'ISO 6709: +44.8123+020.4561/ and +44.81, +20.45'],
    ['an offset', 'Georgia', 'Time zone UTC+4, 0040 hours'],
    ['a five-digit number', 'USA', 'zip 20500, 12345 steps'],
    ['a four-digit number', 'Netherlands', 'Built in 1012, it is 2024 AD now; about 4000 KM by road, 1200 PM, 1500 NE of the pin'],
    ['a range of numbers', 'Poland', 'between 10-100 km and 50-150 m away'],
    ['a range of larger numbers', 'Portugal', 'years 1500-300 BC'],
    ['a local phone number', 'Japan', 'call 555-1234 now'],
    ['a date', 'Brazil', 'on 2023-07-14 at 12:00'],
    ['capital letters in prose', 'Italy', 'I think A plate I saw was F. I did. A sticker on the pole, the plate I saw.'],
    ['a plate number after its label (D for Düsseldorf)', 'Germany', 'plate: D-XY 1234 was seen'],
    ["a letter that is a word before 'sticker'", 'Austria', 'A sticker on the pole. I sticker nothing.'],
    ['French letters', 'France', 'Letters F and E and rows A to F'],
    ['a language of another country', 'Georgia', 'Signs in Hebrew and Amharic'],
    ['a language in lower case', 'Israel', 'the word hebrew in lower case'],
    ['a word of another country’s name', 'Czechia', 'The Slovak Republic is east of here'],
    ['UK-like codes that are not postcodes', 'UK', 'model A4 3PM, Q1 2AB, paper A4 5AA'],
  ];

  it.each(clean)('%s', (_, place, text) => {
    expect(summary(audit(place, [...base, harness(text)]))).toEqual([]);
    expect(summary(audit(place, [...base, transcript(text)]))).toEqual([]);
  });

  it("geolab's own prompt, tool texts and feedback are clean for every task here", () => {
    const own = [openingPrompt(12, 3), ...Object.values(toolDescriptions(3))].map(harness);
    for (const place of Object.keys(TASKS) as Place[]) {
      expect(summary(audit(place, [...base, ...own, ...lookStep(135, 7, null)]))).toEqual([]);
    }
  });
});
