/**
 * `splits build --countries` takes what the episode filters take (names, aliases, ISO codes,
 * demonyms), names every unknown entry with what it may mean, and the build warns about a small
 * train split (docs/splits.md, "How a split is made").
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { countryNamesFor } from '../../src/geo/countries.js';
import { resolveCountries } from '../../src/splits/countries.js';
import { geolab } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { CENTRES, northOf, poolRecord, spreadPool, writeJsonlFile, type PoolTask } from './pools.js';

/** Two tasks in Serbia (by its Natural Earth ADMIN name) and two in France, 50 km apart. */
function serbiaAndFrance(): PoolTask[] {
  return [
    { country: 'Republic of Serbia', lat: 44, lon: 20.9 },
    { country: 'Republic of Serbia', ...northOf(44, 20.9, 50) },
    { country: 'France', lat: CENTRES.France![0], lon: CENTRES.France![1] },
    { country: 'France', ...northOf(...CENTRES.France!, 50) },
  ];
}

describe('splits build --countries', () => {
  it('takes a demonym as the episode filters do, and names every unknown entry with its did-you-mean', () => {
    const dir = tempDir();
    const pool = writeJsonlFile(dir, 'pool.jsonl', serbiaAndFrance().map(poolRecord));
    const bad = geolab(['splits', 'build', pool, '--out-dir', join(dir, 'x'), '--countries', 'Serbian,Frnace,Atlantis'], { home: tempDir() });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      `--countries: 2 unknown countries: "Frnace" (did you mean "France"?), "Atlantis" (nothing close; did you mean one of the pool's countries: France, Republic of Serbia?)`,
    );
    expect(bad.stderr).not.toContain('"Serbian"');

    const out = join(dir, 'cut');
    const good = geolab(['splits', 'build', pool, '--out-dir', out, '--eval', '2', '--eval-per-country', '1', '--countries', 'Serbian,fra', '--json'], { home: tempDir() });
    expect(good.code, good.stderr).toBe(0);
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as { options: { countries: string[] }; eval: { per_country: Record<string, number> } };
    expect(manifest.options.countries).toEqual(['Republic of Serbia', 'France']);
    expect(manifest.eval.per_country).toEqual({ 'Republic of Serbia': 1, France: 1 });
  });

  it('is the same resolver as the episode filters: whole spellings here, starts there', () => {
    for (const text of ['Serbian', 'serbia', 'RS', 'SRB', 'Srbija']) {
      expect(resolveCountries(text, '--countries')).toEqual(['Republic of Serbia']);
      expect(countryNamesFor(text)).toContain('Republic of Serbia');
    }
    // A shared demonym is named with both countries it may mean.
    expect(() => resolveCountries('Congolese', '--countries')).toThrow(
      '--countries: "Congolese" names 2 countries; did you mean "Democratic Republic of the Congo" or "Republic of the Congo"?',
    );
    // A start is enough for a filter, not for a list of countries to keep.
    expect(countryNamesFor('serbi')).toContain('Republic of Serbia');
    expect(() => resolveCountries('serbi', '--countries')).toThrow('unknown country "serbi"; did you mean "Republic of Serbia"?');
  });
});

describe('splits build: a small train split', () => {
  it('warns when train gets under 50 tasks (the default --eval 200 on a 230-task pool), and writes it', () => {
    const dir = tempDir();
    const pool = writeJsonlFile(dir, 'pool.jsonl', spreadPool(['Brazil', 'Japan'], 115).map(poolRecord));
    const out = join(dir, 'cut');
    const r = geolab(['splits', 'build', pool, '--out-dir', out, '--eval-per-country', '100', '--json'], { home: tempDir() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(
      'geolab: warning: train gets only 30 of the 230 pool tasks (13.0%, under 50 tasks; eval takes 200): lower --eval or --eval-per-country, or narrow --buffer-km, for a larger train split\n',
    );
    expect((JSON.parse(r.stdout) as { train: { tasks: number } }).train.tasks).toBe(30);
  });

  it('warns when train gets under 10% of the pool, and not when it is neither small nor a small share', () => {
    const dir = tempDir();
    const pool = writeJsonlFile(dir, 'pool.jsonl', spreadPool(['Brazil', 'Japan'], 300).map(poolRecord));
    const under = geolab(['splits', 'build', pool, '--out-dir', join(dir, 'a'), '--eval', '545', '--eval-per-country', '300'], { home: tempDir() });
    expect(under.code, under.stderr).toBe(0);
    expect(under.stderr).toContain('geolab: warning: train gets only 55 of the 600 pool tasks (9.2%, under 10% of the pool; eval takes 545)');
    const fine = geolab(['splits', 'build', pool, '--out-dir', join(dir, 'b'), '--eval', '200', '--eval-per-country', '100'], { home: tempDir() });
    expect(fine.code, fine.stderr).toBe(0);
    expect(fine.stderr).toBe('');
    expect(fine.stdout).toContain('train 400 tasks');
  });
});
