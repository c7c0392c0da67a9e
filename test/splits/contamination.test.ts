/**
 * `splits check` finds a row of one split in the other whatever its task_index, and takes a
 * task_index repeated inside one file as a warning (docs/splits.md, "What makes it leak-proof").
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { geolab } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { poolRecord, spreadPool, writeJsonlFile } from './pools.js';

interface Check {
  clean: boolean;
  rows_in_both: { count: number; listed: { train_id: string; eval_id: string; by: string }[] };
  warnings: string[];
}

/** A clean split built by the binary: 3 eval tasks and the train tasks the 1 km buffer keeps. */
function builtSplit(): { train: string; eval: string; trainLines: string[]; evalLines: string[] } {
  const dir = tempDir();
  const pool = writeJsonlFile(dir, 'pool.jsonl', spreadPool(['France', 'Germany', 'Japan'], 4).map(poolRecord));
  const out = join(dir, 'cut');
  const r = geolab(['splits', 'build', pool, '--out-dir', out, '--eval', '3', '--eval-per-country', '1'], { home: tempDir() });
  expect(r.code, r.stderr).toBe(0);
  const lines = (file: string) => readFileSync(file, 'utf8').trim().split('\n');
  const train = join(out, 'train.jsonl');
  const evalFile = join(out, 'eval.jsonl');
  return { train, eval: evalFile, trainLines: lines(train), evalLines: lines(evalFile) };
}

describe('geolab splits check: rows in both splits', () => {
  it('an eval row appended to train as it is: contamination (exit 1), its repeated task_index only a warning', () => {
    const split = builtSplit();
    expect(split.trainLines).toHaveLength(9);
    appendFileSync(split.train, split.evalLines[1] + '\n');
    const r = geolab(['splits', 'check', '--train', split.train, '--eval', split.eval, '--json']);
    expect(r.code).toBe(1);
    const c = JSON.parse(r.stdout) as Check;
    expect(c.clean).toBe(false);
    expect(c.rows_in_both).toEqual({ count: 1, listed: [{ train_id: 'eval-00001', eval_id: 'eval-00001', by: 'task_id' }] });
    expect(c.warnings).toEqual([`${split.train}:10: duplicated task_index 1 (first on line 2)`]);
    expect(r.stderr).toBe(`geolab: warning: ${split.train}:10: duplicated task_index 1 (first on line 2)\n`);

    const text = geolab(['splits', 'check', '--train', split.train, '--eval', split.eval]);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain('tasks in both splits (same task_id or start frame): 1\n  eval-00001 - eval-00001: same task_id\n');
    expect(text.stdout).toMatch(/contaminated\n$/);
  });

  it('an eval row under a train id and the next task_index: found by its start frame, even with no buffer', () => {
    const split = builtSplit();
    const row = JSON.parse(split.evalLines[2]!) as Record<string, unknown>;
    appendFileSync(split.train, JSON.stringify({ ...row, task_id: 'train-00009', task_index: 9, sequence_id: 'another-sequence' }) + '\n');
    const r = geolab(['splits', 'check', '--train', split.train, '--eval', split.eval, '--buffer-km', '0', '--json']);
    expect(r.code).toBe(1);
    const c = JSON.parse(r.stdout) as Check;
    expect(c.rows_in_both.listed).toEqual([{ train_id: 'train-00009', eval_id: 'eval-00002', by: 'start_frame' }]);
    expect(c.warnings).toEqual([]);
    expect(r.stderr).toBe('');
  });

  it('a task_index repeated or skipped inside one file, with no row in both: a warning, and clean (exit 0)', () => {
    const split = builtSplit();
    const rows = split.trainLines.map((l) => JSON.parse(l) as Record<string, unknown>);
    rows[4] = { ...rows[4], task_index: 3 };
    rows[8] = { ...rows[8], task_index: 12 };
    writeJsonlFile(join(split.train, '..'), 'train.jsonl', rows);
    const r = geolab(['splits', 'check', '--train', split.train, '--eval', split.eval]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`geolab: warning: ${split.train}:5: duplicated task_index 3 (first on line 4)`);
    expect(r.stderr).toContain(`geolab: warning: ${split.train}:6: task_index is not contiguous: expected 4, found 5`);
    expect(r.stdout).toContain('tasks in both splits (same task_id or start frame): 0');
    expect(r.stdout).toMatch(/clean\n$/);
    // Elsewhere the same file is still refused: a task set needs each index once.
    expect(geolab(['tasks', 'validate', split.train]).code).toBe(1);
  });
});
