import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/core/errors.js';
import { loadTaskFile, loadTasksStrict } from '../../src/tasks/load.js';
import { makeTask, writeJsonl } from '../helpers/fixtures.js';

describe('task loader', () => {
  it('loads a clean file sorted by task_index, coercing numeric image ids and filling defaults', async () => {
    const t1 = makeTask(1);
    const t0 = makeTask(0, { frames: [{ image_id: 12345, lat: 1, lon: 2 }] });
    const r = await loadTaskFile(writeJsonl([t1, t0]));
    expect(r.errors).toEqual([]);
    expect(r.tasks.map((t) => t.task_index)).toEqual([0, 1]);
    expect(r.tasks[0]?.frames[0]).toMatchObject({ image_id: '12345', compass_angle: 0, captured_at: '', is_pano: true });
    expect(r.tasks[0]?.start_frame).toBe(0);
  });

  it('reports every error with its line and field', async () => {
    const file = writeJsonl([
      makeTask(0),
      '{"task_index": 1, "task_id": ',
      makeTask(2, { task_id: 'fx-00000' }),
      makeTask(3, { frames: [] }),
      makeTask(4, { start_frame: 5 }),
      makeTask(5, { frames: [{ image_id: 'a', lat: 95, lon: 10 }] }),
      makeTask(6, { frames: [{ image_id: 'a', lat: 10, lon: -181 }] }),
      makeTask(7, { frames: [{ image_id: '../../etc/passwd', lat: 10, lon: 10 }] }),
      makeTask(8),
    ]);
    const r = await loadTaskFile(file);
    const at = (line: number, field: string) => r.errors.find((e) => e.line === line && e.field === field);
    expect(at(2, '(line)')?.message).toMatch(/^unparseable JSON/);
    expect(at(3, 'task_id')?.message).toBe('duplicated task_id "fx-00000" (first on line 1)');
    expect(at(4, 'frames')?.message).toBe('expected a non-empty list of frames');
    expect(at(5, 'start_frame')?.message).toBe('start_frame 5 is out of range for 2 frame(s)');
    expect(at(6, 'frames.0.lat')?.message).toBe('expected a latitude in [-90, 90]');
    expect(at(7, 'frames.0.lon')?.message).toBe('expected a longitude in [-180, 180]');
    expect(at(8, 'frames.0.image_id')?.message).toMatch(/file-safe id/);
    // Line 3 is rejected for its id but its index 2 still counts, so the gap is reported at 1 -> 2.
    expect(at(3, 'task_index')?.message).toBe('task_index is not contiguous: expected 1, found 2');
    expect(r.count).toBe(2);
  });

  it('flags a gap in task_index after sorting, naming the line', async () => {
    const r = await loadTaskFile(writeJsonl([makeTask(0), makeTask(2), makeTask(1), makeTask(4)]));
    expect(r.errors).toEqual([{ line: 4, field: 'task_index', message: 'task_index is not contiguous: expected 3, found 4' }]);
  });

  it('loads a pool with repeated sequences, with warnings', async () => {
    const r = await loadTaskFile(
      writeJsonl([makeTask(0), makeTask(1, { sequence_id: 'seq0aaaaaaaaaaaaaaaaa' }), makeTask(2, { country: undefined, attribution: undefined })]),
    );
    expect(r.errors).toEqual([]);
    expect(r.count).toBe(3);
    expect(r.warnings.map((w) => [w.line, w.kind])).toEqual([
      [2, 'repeated_sequence'],
      [3, 'missing_country'],
      [3, 'missing_attribution'],
    ]);
    expect(r.warnings[0]?.task_id).toBe('fx-00001');
  });

  it('runs the injected label check on every task', async () => {
    const r = await loadTaskFile(writeJsonl([makeTask(0), makeTask(1)]), {
      labelCheck: (t) => (t.task_index === 1 ? 'labelled Italy, start point is in France' : null),
    });
    expect(r.warnings).toEqual([{ line: 2, task_id: 'fx-00001', kind: 'country_mismatch', message: 'labelled Italy, start point is in France' }]);
  });

  it('streams to a callback without keeping tasks', async () => {
    const seen: number[] = [];
    const r = await loadTaskFile(writeJsonl([makeTask(0), makeTask(1)]), { onTask: (t, line) => seen.push(t.task_index * 10 + line) });
    expect(seen).toEqual([1, 12]);
    expect(r.tasks).toEqual([]);
    expect(r.count).toBe(2);
  });

  it('treats an empty file as an error and a missing file as unreadable input', async () => {
    const r = await loadTaskFile(writeJsonl([]));
    expect(r.errors[0]?.message).toBe('no tasks in file: expected one JSON task per line');
    await expect(loadTaskFile('/nonexistent/tasks.jsonl')).rejects.toThrow(/\/nonexistent\/tasks.jsonl: cannot read task file: ENOENT/);
  });

  it('reads a file that starts with a UTF-8 byte order mark', async () => {
    const file = writeJsonl([makeTask(0), makeTask(1)]);
    writeFileSync(file, '\uFEFF' + readFileSync(file, 'utf8'));
    const r = await loadTaskFile(file);
    expect(r.errors).toEqual([]);
    expect(r.count).toBe(2);
  });

  it('strict loading turns the first error into file:line and field', async () => {
    const file = writeJsonl([makeTask(0), makeTask(1, { start_frame: 9 })]);
    const err = await loadTasksStrict(file).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as Error).message).toBe(`${file}:2, field start_frame: start_frame 9 is out of range for 2 frame(s)`);
  });
});
