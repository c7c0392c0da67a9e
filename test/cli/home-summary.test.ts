/** `geolab` without a terminal: the plain summary names runs for what they are and shows only what exists. */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureEvalRun, PLAY_RUN_ID } from '../../src/store/eval-runs.js';
import { workspacePaths } from '../../src/store/workspace.js';
import { geolab } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';

describe('the plain workspace summary', () => {
  it('counts agent, play and imported runs by name, and leaves out audit and training until they exist', () => {
    const home = tempDir();
    const fresh = geolab(['--json'], { home });
    expect(fresh.code, fresh.stderr).toBe(0);
    // The demo episodes come in through an import.
    expect(JSON.parse(fresh.stdout)).toMatchObject({ runs: { agent: 0, play: 0, imported: 1 } });

    const runs = workspacePaths(home).runs;
    const db = new Database(join(home, 'geolab.db'));
    try {
      ensureEvalRun(db, { id: '2026-12-01T10-00-00-aaaaaa', root: join(runs, '2026-12-01T10-00-00-aaaaaa'), config: { policy: 'model' } });
      ensureEvalRun(db, { id: '2026-12-01T11-00-00-bbbbbb', root: join(runs, '2026-12-01T11-00-00-bbbbbb'), config: { policy: 'fixed' } });
      ensureEvalRun(db, { id: PLAY_RUN_ID, name: 'human play', root: join(runs, PLAY_RUN_ID) });
    } finally {
      db.close();
    }

    const plain = geolab([], { home });
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toMatch(/\nruns +2 agent · 1 play · 1 imported\n/);
    expect(plain.stdout).not.toMatch(/eval|audit|training/i);
    const json = JSON.parse(geolab(['--json'], { home }).stdout) as Record<string, unknown>;
    expect(json.runs).toEqual({ agent: 2, sweep: 0, play: 1, imported: 1 });
    expect(Object.keys(json)).not.toEqual(expect.arrayContaining(['eval_runs']));
    expect(json).not.toHaveProperty('open_findings');
    expect(json).not.toHaveProperty('training_runs');
  });
});
