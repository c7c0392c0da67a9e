/**
 * The Splits screen's `w` onto a split already there, in a real terminal on the real binary: the
 * confirmation names the files and the task sets it would replace, with their task and episode
 * counts (docs/splits.md, Replacing a split); nothing changes until it is answered, and after the
 * replacement the old version of the task set is still readable.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEMO_TASKS_FILE } from '../../src/paths.js';
import { saveEpisode } from '../../src/store/episodes.js';
import { openWorkspace } from '../../src/store/index.js';
import { readTasks, readTasksAt, taskSetVersions } from '../../src/store/task-sets.js';
import { BIN, geolab } from '../helpers/cli.js';
import { failedRecord } from '../helpers/episodes.js';
import { tempDir } from '../helpers/fixtures.js';
import { TmuxPane } from '../helpers/tmux.js';

const panes: TmuxPane[] = [];
afterEach(() => panes.splice(0).forEach((p) => p.kill()));

/** The screen without its line breaks and spaces: a long question wraps at the pane's width. */
const flat = (text: string) => text.replace(/\s/g, '');

describe('the Splits screen onto a split already there', () => {
  it('asks before replacing, naming the files, the task sets, their tasks and the episodes on them', async () => {
    const home = tempDir('geolab-e2e-home-');
    const out = join(tempDir(), 'cut');
    const built = geolab(['splits', 'build', DEMO_TASKS_FILE, '--out-dir', out, '--eval', '8', '--json'], { home });
    expect(built.code, built.stderr).toBe(0);
    const firstVersion = (JSON.parse(built.stdout) as { task_sets: { eval: { version: string } } }).task_sets.eval.version;
    const ws = await openWorkspace(home);
    const before = { eval: readTasks(ws.db, 'cut-eval'), train: readTasks(ws.db, 'cut-train') };
    saveEpisode(ws.db, failedRecord({ split: 'cut-eval', index: 0, id: 'played-on-cut' }));
    ws.close();
    const files = Object.fromEntries(readdirSync(out).map((f) => [f, readFileSync(join(out, f), 'utf8')]));

    const pane = new TmuxPane([process.execPath, BIN], { GEOLAB_HOME: home, TERM: 'xterm-256color' });
    panes.push(pane);
    await pane.waitFor((s) => s.includes('Splits') && / geolab {2}workspace /.test(s));
    pane.send(['Down', 'Down', 'Down', 'Down', 'Down']);
    await pane.waitFor('› Splits');
    pane.send(['Enter']);
    await pane.waitFor(/› cut-eval +\d+ tasks/);
    // The pools are listed by name: cut-eval, cut-train, demo.
    pane.send(['Down', 'Down']);
    await pane.waitFor(/› demo +\d+ tasks/);
    pane.send(['Enter']);
    await pane.waitFor((s) => /SPLITS · demo · \d+ tasks/.test(s) && s.includes('preview:'));
    // The demo is too small for the default eval size of 200: every task would go to eval.
    pane.send([...Array<string>(19).fill('[')]);
    await pane.waitFor(/eval size 10 ·[^\n]*\n[^]*preview: eval 10 tasks/);
    pane.send(['w']);
    await pane.waitFor('write to directory: splits/demo');
    pane.send([...Array<string>('splits/demo'.length).fill('BSpace')]);
    await pane.waitFor((s) => /write to directory: +\S* *enter next/.test(s) && !s.includes('splits/demo'));
    pane.send([out], true);
    pane.send(['Enter']);
    await pane.waitFor('NAME: cut');
    pane.send(['Enter']);
    const question = await pane.waitFor((s) => flat(s).includes(flat('y replace')));
    expect(flat(question)).toContain(
      flat(
        `Replace ${join(out, 'eval.jsonl')}, ${join(out, 'train.jsonl')}, ${join(out, 'manifest.json')}, ` +
          `task set cut-eval (${before.eval.length} tasks, 1 episode recorded on it), task set cut-train (${before.train.length} tasks, no episodes recorded on it)?`,
      ),
    );
    expect(Object.fromEntries(readdirSync(out).map((f) => [f, readFileSync(join(out, f), 'utf8')]))).toEqual(files);
    pane.send(['y']);
    await pane.waitFor(/wrote 10 eval and \d+ train tasks/);
    pane.send(['q', 'q']);
    await pane.waitFor((s) => !s.includes('SPLITS') && !s.includes('Watch a model'));

    const after = await openWorkspace(home);
    try {
      expect(readTasks(after.db, 'cut-eval')).toHaveLength(10);
      const versions = taskSetVersions(after.db, 'cut-eval');
      expect(versions.map((v) => [v.sha256, v.n_tasks, v.replaced_at === null])).toEqual([
        [firstVersion, 8, false],
        [expect.any(String), 10, true],
      ]);
      expect(readTasksAt(after.db, 'cut-eval', firstVersion)).toEqual(before.eval);
    } finally {
      after.close();
    }
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as { eval: { tasks: number } };
    expect(manifest.eval.tasks).toBe(10);
  });
});
