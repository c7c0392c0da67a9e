import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { geolab, jsonLines } from '../helpers/cli.js';
import { makeTask, writeJsonl } from '../helpers/fixtures.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'tasks');

describe('geolab geo locate', () => {
  it('takes negative coordinates as positional arguments', () => {
    const r = geolab(['geo', 'locate', '-33.92', '18.42', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const p = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(Object.keys(p)).toEqual([
      'lat',
      'lon',
      'country',
      'subregion',
      'continent',
      'nearest_city',
      'city_distance_km',
      'city_bearing',
      'offshore_km',
    ]);
    expect(p).toMatchObject({ lat: -33.92, lon: 18.42, country: 'South Africa', subregion: 'Southern Africa', continent: 'Africa' });
    expect(p.nearest_city).toBe('Cape Town');
    expect(p.offshore_km).toBe(0);
    expect(geolab(['geo', 'locate', '44.8125', '20.4612']).stdout).toContain('Republic of Serbia');
  });

  it('says open water at sea with null fields', () => {
    const p = JSON.parse(geolab(['geo', 'locate', '30', '-40', '--json']).stdout) as Record<string, unknown>;
    expect(p).toMatchObject({ country: null, subregion: null, continent: null, offshore_km: null });
    expect(geolab(['geo', 'locate', '30', '-40']).stdout).toContain('open water');
  });

  it('streams lat,lon lines from stdin as plain text: a bad line is named on stderr, the rest go on, exit 2 at the end', () => {
    const r = geolab(['geo', 'locate', '-'], { input: '50.8503,4.3517\nnot,a point\n-1.2921,36.8219\n' });
    expect(r.code).toBe(2);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^50\.8503, 4\.3517: Belgium \(/);
    expect(lines[1]).toMatch(/^-1\.2921, 36\.8219: Kenya \(.*Nairobi$/);
    expect(r.stdout).not.toContain('{');
    expect(r.stderr).toContain('geolab: stdin:2: latitude "not" is not a number\n');
  });

  it('with --json streams one object per line; a bad line gets an error object, the rest go on, exit 2 at the end', () => {
    const r = geolab(['geo', 'locate', '-', '--json'], { input: '50.8503,4.3517\nnot,a point\n\n-1.2921,36.8219\n95,10\n' });
    expect(r.code).toBe(2);
    const out = jsonLines(r.stdout) as Record<string, unknown>[];
    expect(out).toHaveLength(4);
    expect(out[0]).toMatchObject({ country: 'Belgium' });
    expect(out[1]).toEqual({ line: 2, error: 'latitude "not" is not a number' });
    expect(out[2]).toMatchObject({ country: 'Kenya', nearest_city: 'Nairobi' });
    expect(out[3]).toEqual({ line: 5, error: 'latitude 95 is out of range [-90, 90]' });
  });

  it('refuses a line of stdin past 4 KiB without holding it, and goes on (docs/reliability.md, "Standard input")', () => {
    const r = geolab(['geo', 'locate', '-', '--json'], { input: `50.8503,4.3517\n${'9'.repeat(3 << 20)}\n-1.2921,36.8219` });
    expect(r.code).toBe(2);
    const out = jsonLines(r.stdout) as Record<string, unknown>[];
    expect(out).toHaveLength(3);
    expect(out[1]).toEqual({ line: 2, error: 'line longer than 4096 bytes; expected "lat,lon"' });
    expect(out[2]).toMatchObject({ country: 'Kenya' });
  });

  it('a clean stream exits 0', () => {
    const r = geolab(['geo', 'locate', '-', '--json'], { input: '35.6762,139.6503\n' });
    expect(r.code).toBe(0);
    expect(jsonLines(r.stdout)[0]).toMatchObject({ country: 'Japan' });
  });

  it('refuses a missing longitude or an out-of-range point with exit 2', () => {
    expect(geolab(['geo', 'locate', '10']).code).toBe(2);
    expect(geolab(['geo', 'locate', '10', '200']).stderr).toContain('longitude 200 is out of range');
  });

  it('agrees with the country labels and regions of task files in the public shapes', () => {
    for (const name of ['eval-style.jsonl', 'fixture-style.jsonl']) {
      const tasks = readFileSync(join(FIXTURES, name), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map(
          (l) =>
            JSON.parse(l) as {
              country: string;
              start_frame?: number;
              frames: { lat: number; lon: number }[];
              meta: { continent?: string; subregion?: string };
            },
        );
      const input = tasks.map((t) => {
        const f = t.frames[t.start_frame ?? 0] as { lat: number; lon: number };
        return `${f.lat},${f.lon}`;
      });
      const out = jsonLines(geolab(['geo', 'locate', '-', '--json'], { input: input.join('\n') }).stdout) as Record<string, string>[];
      expect(out.map((o) => o.country)).toEqual(tasks.map((t) => t.country));
      out.forEach((o, i) => {
        const meta = tasks[i]?.meta ?? {};
        if (meta.subregion) expect(o).toMatchObject({ continent: meta.continent, subregion: meta.subregion });
      });
    }
  });
});

describe('country labels in tasks validate', () => {
  it('warns (exit 0) when a label is a coarse-outline artifact, naming task, both countries and the border distance', () => {
    // A street in Nakhon Phanom, Thailand, on the Mekong: coarse 1:110m outlines put it in Laos.
    const file = writeJsonl([
      makeTask(0, { country: 'Laos', frames: [{ image_id: 'np1', lat: 17.4078, lon: 104.7801 }] }),
      makeTask(1, { country: 'Thailand', frames: [{ image_id: 'np2', lat: 17.4078, lon: 104.7801 }] }),
      makeTask(2, { country: 'Atlantis', frames: [{ image_id: 'np3', lat: 17.4078, lon: 104.7801 }] }),
    ]);
    const r = geolab(['tasks', 'validate', file, '--json']);
    expect(r.code).toBe(0);
    const warnings = (JSON.parse(r.stdout) as { warnings: { line: number; task_id: string; kind: string; message: string }[] })
      .warnings;
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatchObject({ line: 1, task_id: 'fx-00000', kind: 'country_mismatch' });
    expect(warnings[0]?.message).toMatch(/^labelled Laos, but the start point 17\.40780, 104\.78010 is in Thailand, \d+(\.\d)? km from the border$/);
    expect(warnings[1]?.message).toBe('country "Atlantis" is not a Natural Earth admin-0 name');
  });
});
