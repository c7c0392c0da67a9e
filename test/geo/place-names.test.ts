import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { placeTable } from '../../src/geo/cities.js';
import { countryByAdmin } from '../../src/geo/countries.js';
import {
  countryNamesText,
  decodeTownTable,
  districtCodeOf,
  districtOf,
  indexTownLines,
  referenceTownNames,
  regionByAdmin1,
  townNames,
  townNamesIn,
} from '../../src/geo/place-names.js';

/** The place table's id of the most populous place of this name in this country. */
function placeId(name: string, iso2: string): number {
  const { buf, count, nameStart, nameEnd, iso2Start, iso2End, population } = placeTable();
  let best = -1;
  for (let id = 0; id < count; id++) {
    if (buf.toString('utf8', nameStart[id], nameEnd[id]) !== name || buf.toString('latin1', iso2Start[id], iso2End[id]) !== iso2) continue;
    if (best < 0 || (population[id] as number) > (population[best] as number)) best = id;
  }
  return best;
}

describe('place names in other languages (datasets/geo)', () => {
  it("names countries by the project's ADMIN names, folded or in scripts without spaces", () => {
    const lines = countryNamesText().trim().split('\n');
    expect(lines.length).toBeGreaterThan(200);
    for (const line of lines) {
      const [admin = '', names = ''] = line.split('\t');
      expect(countryByAdmin(admin)?.admin, admin).toBe(admin);
      for (const name of names.split('|')) expect(name, admin).toMatch(/^(?:[a-z0-9]+(?: [a-z0-9]+)*|[^\sa-z0-9|]+)$/);
    }
    const serbia = lines.find((l) => l.startsWith('Republic of Serbia\t')) ?? '';
    for (const name of ['serbiya', 'servia', 'serbien', '塞尔维亚', 'セルビア']) expect(serbia.split(/[\t|]/)).toContain(name);
  });

  it("knows the region of nearly every sizeable town by the place table's admin1 code", () => {
    const { buf, count, population, iso2Start, iso2End, adminStart, adminEnd } = placeTable();
    let towns = 0;
    let named = 0;
    for (let id = 0; id < count; id++) {
      if ((population[id] as number) < 50_000) continue;
      towns++;
      if (regionByAdmin1(buf.toString('latin1', iso2Start[id], iso2End[id]), buf.toString('latin1', adminStart[id], adminEnd[id]))) named++;
    }
    expect(towns).toBeGreaterThan(5_000);
    expect(named / towns).toBeGreaterThan(0.95);
    const lviv = placeId('Lviv', 'UA');
    expect(regionByAdmin1('UA', buf.toString('latin1', adminStart[lviv], adminEnd[lviv]))).toMatchObject({ name: 'Lviv Oblast', iso2: 'UA' });
  });

  it("knows the districts (GeoNames admin2) of Serbia's and Taiwan's places, and no other country's", () => {
    const aleksinac = placeId('Aleksinac', 'RS');
    expect(districtOf('RS', aleksinac)).toMatchObject({ iso2: 'RS', admin: '20', district: true, name: 'Nišava' });
    expect(districtOf('RS', aleksinac)?.names).toEqual(expect.arrayContaining(['nisavski okrug', 'nishavski okrug', 'nisava']));
    expect(districtOf('RS', placeId('Novi Sad', 'RS'))?.names).toContain('juznobacki okrug');
    expect(districtOf('TW', placeId('Nantou', 'TW'))?.name).toBe('Nantou');
    expect(districtCodeOf('UA', placeId('Lviv', 'UA'))).toBeNull();
  });

  it("gives regions their names in their country's own languages (CLDR)", () => {
    expect(regionByAdmin1('GB', 'SCT')?.names).toEqual(expect.arrayContaining(['alba', 'yr alban']));
    expect(regionByAdmin1('GB', 'WLS')?.names).toContain('cymru');
  });

  it("gives towns their other names, line for line with the place table, and marks names that are English words", () => {
    const count = placeTable().count;
    expect(townNames(placeId('Lviv', 'UA'), count).names).toEqual(expect.arrayContaining(['lvov', 'lemberg', '利沃夫']));
    expect(townNames(placeId('Niš', 'RS'), count).names).toContain('nish');
    expect(townNames(placeId('Deal', 'GB'), count).wordLike).toBe(true);
    expect(townNames(placeId('Sandwich', 'GB'), count).wordLike).toBe(true);
    expect(townNames(placeId('Canterbury', 'GB'), count).wordLike).toBe(false);
  });
});

describe("towns' further names read as bytes (townNamesIn, indexTownLines)", () => {
  it('answers every place of the shipped table as the whole-text reference does', () => {
    const { count } = placeTable();
    const table = decodeTownTable(count);
    const reference = referenceTownNames(gunzipSync(readFileSync(new URL('../../datasets/geo/town-names.tsv.gz', import.meta.url))).toString('utf8'), count);
    let named = 0;
    for (let id = 0; id < count; id++) {
      const got = townNamesIn(table, id);
      expect(got, String(id)).toEqual(reference(id));
      if (got.names.length > 0) named++;
    }
    expect(named).toBeGreaterThan(10_000);
    expect(townNames(0, count)).toEqual(reference(0));
  });

  it('answers any table as the reference does: names beyond ASCII, places past the count, a last line without a newline', () => {
    const name = fc.oneof(fc.stringMatching(/^[a-zé~ ]{1,12}$/), fc.constantFrom('niš', 'ниш', '東京', 'สวัสดี', '~grand est', 'łódź'));
    const line = fc.record({ delta: fc.integer({ min: 0, max: 40 }), wordLike: fc.boolean(), names: fc.array(name, { maxLength: 4 }) });
    fc.assert(
      fc.property(fc.array(line, { maxLength: 30 }), fc.boolean(), fc.integer({ min: 0, max: 400 }), (lines, lastNewline, placeCount) => {
        const text = lines.map((l) => `${l.delta}\t${l.wordLike ? 'w' : ''}\t${l.names.join('|')}`).join('\n') + (lastNewline && lines.length ? '\n' : '');
        const bytes = Buffer.from(text, 'utf8');
        const table = { text: bytes, lineStart: indexTownLines(bytes, placeCount) };
        const reference = referenceTownNames(text, placeCount);
        for (let id = 0; id < placeCount; id++) expect(townNamesIn(table, id)).toEqual(reference(id));
      }),
      { numRuns: 300 },
    );
  });
});
