/**
 * `geolab train watch NAME` for a name that is no launched run, through the real binary: the refusal
 * names every run of the workspace, launched ones with their status and the ones `train init` wrote
 * that never launched; a name of the latter says how to launch it (docs/training.md).
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { saveTrainRun } from '../../src/store/train-runs.js';
import { geolab } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';

describe('train watch, a run that is not launched', () => {
  it('lists launched and initialised runs alike, and names the launch command of an initialised one', () => {
    const home = tempDir();
    for (const name of ['alpha', 'beta']) {
      const init = geolab(['train', 'init', '--name', name], { home });
      expect(init.code, init.stderr).toBe(0);
    }
    const db = new Database(join(home, 'geolab.db'));
    try {
      // A launched run, as `train launch` records it (its folder is elsewhere: no launch.json needed to list it).
      const outputDir = join(tempDir(), 'r0');
      saveTrainRun(db, {
        name: 'r0',
        config_path: join(outputDir, 'config.json'),
        config_json: '{}',
        output_dir: outputDir,
        status: 'done',
        pid: null,
        env_pid: null,
        started_at: '2026-12-01T10:00:00Z',
        ended_at: '2026-12-01T12:00:00Z',
        last_step: 250,
        max_steps: 250,
      });
    } finally {
      db.close();
    }

    for (const args of [['--once'], ['--once', '--json'], []]) {
      const r = geolab(['train', 'watch', 'nosuchrun', ...args], { home });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(
        'no training run "nosuchrun" in this workspace (runs: r0 (done), alpha (initialised, not launched), beta (initialised, not launched)); or give a run\'s output directory',
      );
    }

    const initialised = geolab(['train', 'watch', 'beta', '--once'], { home });
    expect(initialised.code).toBe(2);
    expect(initialised.stderr).toContain(`training run "beta" was initialised but never launched: \`geolab train launch ${join(home, 'train', 'beta', 'config.json')}\``);
  });

  it('in a workspace with no runs, says how to make one', () => {
    const r = geolab(['train', 'watch', 'nosuchrun', '--once'], { home: tempDir() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no training run "nosuchrun" in this workspace (none initialised or launched yet: `geolab train init`)');
  });
});
