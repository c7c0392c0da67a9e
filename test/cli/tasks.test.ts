import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { geolab } from '../helpers/cli.js';
import { makeTask, tempDir, writeJsonl } from '../helpers/fixtures.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'tasks');

describe('geolab tasks validate', () => {
  it('accepts a clean file with exit 0 and reports counts in JSON', () => {
    const file = writeJsonl([makeTask(0), makeTask(1)]);
    const r = geolab(['tasks', 'validate', file, '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ file, tasks: 2, errors: [] });
  });

  it('rejects a broken file with exit 1 and one precise message per problem', () => {
    const file = writeJsonl([makeTask(0), makeTask(1, { start_frame: 3 }), 'not json', makeTask(3, { task_id: 'fx-00000' })]);
    const r = geolab(['tasks', 'validate', file]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`${file}:2: error: start_frame: start_frame 3 is out of range for 2 frame(s)`);
    expect(r.stdout).toContain(`${file}:3: error: (line): unparseable JSON`);
    expect(r.stdout).toContain(`${file}:4: error: task_id: duplicated task_id "fx-00000" (first on line 1)`);
    const json = JSON.parse(geolab(['tasks', 'validate', file, '--json']).stdout) as { errors: { line: number; field: string }[] };
    expect(json.errors.map((e) => [e.line, e.field])).toEqual([
      [2, 'start_frame'],
      [3, '(line)'],
      [4, 'task_id'],
      [4, 'task_index'],
    ]);
  });

  it('warns without failing: missing country, repeated sequence', () => {
    const file = writeJsonl([makeTask(0, { country: undefined }), makeTask(1, { sequence_id: 'seq0aaaaaaaaaaaaaaaaa' })]);
    const r = geolab(['tasks', 'validate', file, '--json']);
    expect(r.code).toBe(0);
    const kinds = (JSON.parse(r.stdout) as { warnings: { line: number; task_id: string; kind: string }[] }).warnings.map((w) => [
      w.line,
      w.task_id,
      w.kind,
    ]);
    expect(kinds).toEqual([
      [1, 'fx-00000', 'missing_country'],
      [2, 'fx-00001', 'repeated_sequence'],
    ]);
  });

  it('with --panos names the frames that have no panorama on disk', () => {
    const panos = tempDir();
    writeFileSync(join(panos, 'img0a.jpg'), 'x');
    writeFileSync(join(panos, 'img0b.jpg'), 'x');
    writeFileSync(join(panos, 'img1a.jpg'), 'x');
    const file = writeJsonl([makeTask(0), makeTask(1)]);
    const r = geolab(['tasks', 'validate', file, '--panos', panos, '--json']);
    expect(r.code).toBe(1);
    expect((JSON.parse(r.stdout) as { errors: unknown[] }).errors).toEqual([
      { line: 2, field: 'frames.1.image_id', message: `no panorama ${join(panos, 'img1b.jpg')}` },
    ]);
  });

  it('an unreadable file is bad input (exit 2) naming the file', () => {
    const r = geolab(['tasks', 'validate', '/no/such/tasks.jsonl']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('/no/such/tasks.jsonl: cannot read task file: ENOENT');
  });

  it('accepts files in both shapes of the public task files', () => {
    for (const name of ['eval-style.jsonl', 'fixture-style.jsonl']) {
      const r = geolab(['tasks', 'validate', join(FIXTURES, name), '--json']);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect((JSON.parse(r.stdout) as { errors: unknown[] }).errors).toEqual([]);
    }
  });
});

describe('geolab tasks stats', () => {
  it('counts tasks, frames, countries, contributors and months', () => {
    const file = writeJsonl([makeTask(0), makeTask(1, { country: 'France' }), makeTask(2), makeTask(3)]);
    const r = geolab(['tasks', 'stats', file, '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      tasks: 4,
      frames: 8,
      countries: { Italy: 3, France: 1 },
      // The fixture's ids vary (1000 + index), so they tell contributors apart, not the usernames (docs/splits.md, "Contributors").
      contributors: 4,
      contributor_identity: { by: 'id', warnings: [] },
      months: { '2024-05': 4 },
      leak_potential: {
        tasks: 4,
        buffer_km: 1,
        single_country_contributor_share: 1,
        sequence_siblings_share: 0,
        contributors_per_country: { Italy: 3, France: 1 },
      },
    });
    expect(geolab(['tasks', 'stats', file]).stdout).toContain('4 tasks, 8 frames, 2 countries, 4 contributors (by id)');
  });

  it('refuses a file with errors', () => {
    const r = geolab(['tasks', 'stats', writeJsonl([makeTask(0), '{'])]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/tasks.jsonl:2, field \(line\): unparseable JSON/);
  });
});

describe('geolab tasks import', () => {
  it('imports, re-imports as a no-op, and leaves the store untouched on a bad file', () => {
    const home = tempDir();
    const good = writeJsonl([makeTask(0), makeTask(1)]);
    const first = geolab(['tasks', 'import', good, '--name', 'pool', '--json'], { home });
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ status: 'imported', name: 'pool', tasks: 2, frames: 4 });
    expect(JSON.parse(geolab(['tasks', 'import', good, '--name', 'pool', '--json'], { home }).stdout)).toMatchObject({
      status: 'unchanged',
    });
    const badDir = tempDir();
    mkdirSync(badDir, { recursive: true });
    const bad = writeJsonl([makeTask(0), makeTask(1, { frames: [] })], badDir);
    const r = geolab(['tasks', 'import', bad, '--name', 'pool', '--replace'], { home });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(':2, field frames: expected a non-empty list of frames');
    const summary = JSON.parse(geolab(['--json'], { home }).stdout) as { task_sets: { name: string; tasks: number }[] };
    expect(summary.task_sets).toContainEqual({ name: 'pool', tasks: 2, frames: 4 });
  });
});

describe('the demo dataset', () => {
  it('validates with no errors and no warnings (labels agree with accurate borders)', () => {
    const file = join(import.meta.dirname, '..', '..', 'datasets', 'demo', 'tasks.jsonl');
    const r = geolab(['tasks', 'validate', file, '--json']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { tasks: number; errors: unknown[]; warnings: unknown[] };
    expect(out.tasks).toBeGreaterThanOrEqual(24);
    expect(out.errors).toEqual([]);
    expect(out.warnings).toEqual([]);
  });
});
