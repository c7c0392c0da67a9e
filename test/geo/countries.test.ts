import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { aliasesOf, allCountries, countryByAdmin, countryByIso, countryByName } from '../../src/geo/countries.js';
import { countryOfCoderFeature } from '../../src/geo/locate.js';

const require = createRequire(import.meta.url);

describe('country table', () => {
  it('has unique ADMIN names, codes and names', () => {
    const seen = new Map<string, string>();
    const clashes: string[] = [];
    for (const c of allCountries()) {
      for (const key of [
        `admin:${c.admin}`,
        ...[c.iso2, c.iso3, ...c.codes].filter(Boolean).map((code) => `code:${code}`),
        ...[c.admin, ...c.names].map((name) => `name:${name.toLowerCase()}`),
      ]) {
        const owner = seen.get(key);
        if (owner !== undefined && owner !== c.admin) clashes.push(`${key} in ${owner} and ${c.admin}`);
        seen.set(key, c.admin);
      }
    }
    expect(clashes).toEqual([]);
  });

  it("is sorted as English collation sorts the ADMIN names (Intl's, which the table's own sort avoids loading)", () => {
    const admins = allCountries().map((c) => c.admin);
    expect(admins).toEqual([...admins].sort((a, b) => a.localeCompare(b, 'en')));
    // The names that would sort apart by code units: lower-case first letter, accents.
    for (const [before, after] of [['Estonia', 'eSwatini'], ['eSwatini', 'Ethiopia'], ['Cuba', 'Curaçao'], ['Curaçao', 'Cyprus'], ['Guinea', 'Guinea-Bissau']] as const) {
      expect(admins.indexOf(before), before).toBeGreaterThanOrEqual(0);
      expect(admins.indexOf(before), `${before} before ${after}`).toBeLessThan(admins.indexOf(after));
    }
  });

  it('gives every row codes, a continent and a subregion', () => {
    for (const c of allCountries()) {
      expect(c.iso3, c.admin).toMatch(/^[A-Z]{3}$/);
      if (c.iso2 !== null) expect(c.iso2, c.admin).toMatch(/^[A-Z]{2}$/);
      expect(c.continent, c.admin).not.toBe('');
      expect(c.subregion, c.admin).not.toBe('');
    }
  });

  it('finds rows by ADMIN name, including the newer and former names', () => {
    expect(countryByAdmin('United States of America')?.iso2).toBe('US');
    expect(countryByAdmin('Republic of Serbia')?.iso3).toBe('SRB');
    expect(countryByAdmin('North Macedonia')?.iso2).toBe('MK');
    expect(countryByAdmin('Macedonia')?.admin).toBe('North Macedonia');
    expect(countryByAdmin('Swaziland')?.admin).toBe('eSwatini');
    expect(countryByAdmin('Czech Republic')?.admin).toBe('Czechia');
    expect(countryByAdmin('Hong Kong S.A.R.')?.subregion).toBe('Eastern Asia');
    expect(countryByAdmin('Serbia')).toBeNull(); // an alias, not an ADMIN name
    expect(countryByAdmin('Atlantis')).toBeNull();
  });

  it('finds rows by ISO code, ADM0_A3 and folded territories', () => {
    expect(countryByIso('CIV')?.admin).toBe('Ivory Coast');
    expect(countryByIso('cd')?.admin).toBe('Democratic Republic of the Congo');
    expect(countryByIso('CG')?.admin).toBe('Republic of the Congo');
    expect(countryByIso('TZ')?.admin).toBe('United Republic of Tanzania');
    expect(countryByIso('FRA')).toMatchObject({ admin: 'France', iso2: 'FR' });
    expect(countryByIso('NOR')).toMatchObject({ admin: 'Norway', iso2: 'NO' });
    expect(countryByIso('KOS')).toMatchObject({ admin: 'Kosovo', iso2: 'XK' });
    expect(countryByIso('SOL')).toMatchObject({ admin: 'Somaliland', iso2: null });
    expect(countryByIso('RE')?.admin).toBe('France');
    expect(countryByIso('SJ')?.admin).toBe('Norway');
    expect(countryByIso('CX')?.admin).toBe('Indian Ocean Territories');
    expect(countryByIso('ZZ')).toBeNull();
  });

  it('finds rows by any name, ignoring case and accents', () => {
    expect(countryByName('USA')?.admin).toBe('United States of America');
    expect(countryByName('cote d’ivoire')?.admin).toBe('Ivory Coast');
    expect(countryByName('DRC')?.admin).toBe('Democratic Republic of the Congo');
    expect(countryByName('Tanzania')?.admin).toBe('United Republic of Tanzania');
    expect(countryByName('Timor-Leste')?.admin).toBe('East Timor');
    expect(countryByName('Bahamas')?.admin).toBe('The Bahamas');
    expect(countryByName('Britain')?.admin).toBe('United Kingdom');
  });

  it('lists names, codes and demonyms as aliases', () => {
    const texts = (admin: string, kind: string): string[] =>
      (aliasesOf(admin) ?? []).filter((a) => a.kind === kind).map((a) => a.text);
    expect(texts('United States of America', 'name')).toEqual(
      expect.arrayContaining(['United States of America', 'USA', 'United States', 'America']),
    );
    expect(texts('United States of America', 'code')).toEqual(['US', 'USA']);
    expect(texts('United States of America', 'demonym')).toContain('American');
    expect(texts('United Kingdom', 'name')).toEqual(expect.arrayContaining(['UK', 'Britain', 'Great Britain']));
    expect(texts('United Kingdom', 'demonym')).toContain('British');
    expect(texts('Republic of Serbia', 'name')).toContain('Serbia');
    expect(texts('Republic of Serbia', 'demonym')).toContain('Serbian');
    expect(texts('Ivory Coast', 'name')).toContain("Côte d'Ivoire");
    expect(texts('Ivory Coast', 'demonym')).toContain('Ivorian');
    expect(texts('Democratic Republic of the Congo', 'name')).toContain('DRC');
    expect(texts('United Republic of Tanzania', 'demonym')).toContain('Tanzanian');
    expect(texts('Czechia', 'name')).toContain('Czech Republic');
    expect(texts('Czechia', 'demonym')).toContain('Czech');
    expect(texts('North Macedonia', 'name')).toContain('Macedonia');
    expect(texts('France', 'code')).toEqual(expect.arrayContaining(['FR', 'FRA', 'RE', 'GUF']));
    expect(aliasesOf('Serbia')).toBeNull();
  });

  it('gives every country a demonym except uninhabited territories', () => {
    const withoutDemonym = allCountries().filter((c) => c.demonyms.length === 0).map((c) => c.admin);
    expect(withoutDemonym).toEqual(
      expect.arrayContaining(['Siachen Glacier', 'Spratly Islands', 'Heard Island and McDonald Islands']),
    );
    expect(withoutDemonym).not.toContain('Kosovo');
    expect(withoutDemonym.length).toBeLessThan(25);
  });
});

const TSV = fileURLToPath(new URL('../fixtures/geo/ne-admin0-110m.tsv', import.meta.url));

describe('the Natural Earth 1:110m rows (test/fixtures/geo/ne-admin0-110m.tsv)', () => {
  const RENAMED: Record<string, string> = { Macedonia: 'North Macedonia', Swaziland: 'eSwatini' };
  const [header = '', ...lines] = readFileSync(TSV, 'utf8').trim().split('\n');
  const columns = header.split('\t');
  const rows = lines.map((line) => Object.fromEntries(line.split('\t').map((v, i) => [columns[i], v])));

  it('holds every feature of the release', () => {
    expect(rows).toHaveLength(177);
  });

  it.each(rows.map((r) => [r.ADMIN as string, r] as const))('%s', (_admin, r) => {
    const c = countryByAdmin(r.ADMIN as string);
    expect(c).toMatchObject({
      admin: RENAMED[r.ADMIN as string] ?? r.ADMIN,
      iso3: r.ISO_A3 === '-99' ? r.ADM0_A3 : r.ISO_A3,
      continent: r.CONTINENT,
      subregion: r.SUBREGION,
    });
    if (r.ISO_A2 !== '-99') expect(c?.iso2).toBe(r.ISO_A2);
  });
});

describe('joins to the data sets', () => {
  it('names every world-atlas 10m outline', () => {
    const topology = require('world-atlas/countries-10m.json') as {
      objects: { countries: { geometries: { properties: { name: string } }[] } };
    };
    const names = topology.objects.countries.geometries.map((g) => g.properties.name);
    expect(names.filter((name) => countryByName(name) === null)).toEqual([]);
  });

  it('maps every country-coder feature a point can resolve to (Bir Tawil, unclaimed, excepted)', () => {
    const { borders } = require('@rapideditor/country-coder') as {
      borders: { features: ({ geometry: unknown } & Parameters<typeof countryOfCoderFeature>[0])[] };
    };
    const levels = ['subterritory', 'territory', 'subcountryGroup', 'country'];
    const unmapped = borders.features
      .filter((f) => f.geometry !== null || levels.includes((f.properties as { level?: string }).level ?? ''))
      .filter((f) => countryOfCoderFeature(f) === null)
      .map((f) => f.properties.id);
    expect(unmapped).toEqual(['Q620634']);
  });
});
