/**
 * Home counts the splits the workspace holds (docs/splits.md, step 5: a split is the task sets
 * NAME-eval and NAME-train): after `geolab splits build` on the real binary, Home in a real terminal
 * (tmux) names the split with its tasks, and so does the plain summary off a terminal.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEMO_TASKS_FILE } from '../../src/paths.js';
import { openWorkspace, summarize } from '../../src/store/index.js';
import { savedSplits } from '../../src/store/saved-splits.js';
import { importTaskFile } from '../../src/store/task-sets.js';
import { BIN, geolab } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { TmuxPane } from '../helpers/tmux.js';

const panes: TmuxPane[] = [];
afterEach(() => panes.splice(0).forEach((p) => p.kill()));

describe('Home after `geolab splits build`', () => {
  it('says the split is saved, by name with its eval and train tasks, instead of "none saved"', async () => {
    const home = tempDir('geolab-home-splits-');
    const built = geolab(['splits', 'build', DEMO_TASKS_FILE, '--out-dir', join(tempDir(), 'cut'), '--eval', '10', '--json'], { home });
    expect(built.code, built.stderr).toBe(0);
    const { eval: evalSplit, train } = JSON.parse(built.stdout) as { eval: { tasks: number }; train: { tasks: number } };
    expect(evalSplit.tasks).toBe(10);
    const line = `Splits     1 saved: cut (eval 10, train ${train.tasks})`;

    const pane = new TmuxPane([process.execPath, BIN], { GEOLAB_HOME: home, TERM: 'xterm-256color' });
    panes.push(pane);
    const screen = await pane.waitFor((s) => s.includes('Watch a model') && /Splits {5}\S/.test(s));
    expect(screen).toContain(line);
    expect(screen).not.toContain('none saved');
    expect(screen).toContain(`cut-eval 10, cut-train ${train.tasks}`);
    pane.send(['q']);

    // Off a terminal the summary counts the same splits.
    expect(geolab([], { home }).stdout).toMatch(/^splits +1$/m);
  });

  it('counts a name only with both its task sets, whatever else the workspace holds', async () => {
    const home = tempDir('geolab-home-splits-');
    const dir = tempDir();
    const file = (name: string, tasks: number) => {
      const path = join(dir, `${name}.jsonl`);
      writeFileSync(path, readFileSync(DEMO_TASKS_FILE, 'utf8').trim().split('\n').slice(0, tasks).join('\n') + '\n');
      return path;
    };
    const ws = await openWorkspace(home);
    try {
      expect(savedSplits(ws.db)).toEqual([]);
      for (const [name, tasks] of [['solo-eval', 3], ['b-eval', 2], ['b-train', 5], ['a-train', 4], ['a-eval', 1], ['c-train', 2]] as const) {
        await importTaskFile(ws.db, file(name, tasks), name);
      }
      expect(savedSplits(ws.db)).toEqual([
        { name: 'a', eval: 1, train: 4 },
        { name: 'b', eval: 2, train: 5 },
      ]);
      expect(summarize(ws).splits).toBe(2);
    } finally {
      ws.close();
    }
  });
});
