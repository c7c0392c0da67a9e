/**
 * `geolab train watch NAME` for a name that is no launched run, through the real binary: the refusal
 * names every run of the workspace, launched ones with their status and the ones `train init` wrote
 * that never launched; a name of the latter says how to launch it (docs/training.md).
 */
import Database from 'better-sqlite3';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { saveTrainRun } from '../../src/store/train-runs.js';
import { BIN, geolab } from '../helpers/cli.js';
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

  it('on a terminal (where watch opens the Train screen) refuses the same way, before any screen', async () => {
    const home = tempDir();
    expect(geolab(['train', 'init', '--name', 'alpha'], { home }).code).toBe(0);
    // A private tmux server: the binary on a real terminal, then its exit status printed below it.
    const socket = `geolab-watch-${randomUUID().slice(0, 8)}`;
    const tmux = (args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
    let path = '';
    try {
      const command = `env -u CI GEOLAB_HOME='${home}' '${process.execPath}' '${BIN}' train watch nosuchrun; echo "exit status $?"; sleep 600`;
      tmux(['new-session', '-d', '-s', 'w', '-x', '200', '-y', '20', command]);
      path = tmux(['display-message', '-p', '#{socket_path}']).trim();
      const deadline = Date.now() + 30_000;
      let screen = '';
      while (!(screen = tmux(['capture-pane', '-p', '-t', 'w'])).includes('exit status')) {
        if (Date.now() > deadline) throw new Error(`still running:\n${screen}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(screen).toContain('exit status 2');
      expect(screen).toContain('no training run "nosuchrun" in this workspace (runs: alpha (initialised, not launched))');
    } finally {
      try {
        tmux(['kill-server']);
      } catch {
        // already gone
      }
      if (path) rmSync(path, { force: true });
    }
  });

  it('in a workspace with no runs, says how to make one', () => {
    const r = geolab(['train', 'watch', 'nosuchrun', '--once'], { home: tempDir() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no training run "nosuchrun" in this workspace (none initialised or launched yet: `geolab train init`)');
  });
});
