/**
 * The Splits screen in a real terminal on the real binary: Home -> Splits -> the demo task set ->
 * leave a country out -> write (directory, name, confirm) -> the files, the manifest and the task sets.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openWorkspace } from '../../src/store/index.js';
import { readTasks } from '../../src/store/task-sets.js';
import { BIN, geolab } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { TmuxPane } from '../helpers/tmux.js';

const panes: TmuxPane[] = [];
afterEach(() => panes.splice(0).forEach((p) => p.kill()));

describe('the Splits screen in a real terminal', () => {
  it('toggles a country and writes both splits with their manifest, only after the confirmation', async () => {
    const home = tempDir('geolab-e2e-home-');
    const out = join(tempDir(), 'cut');
    const pane = new TmuxPane([process.execPath, BIN], { GEOLAB_HOME: home, TERM: 'xterm-256color' });
    panes.push(pane);
    await pane.waitFor((s) => s.includes('Splits') && / geolab {2}workspace /.test(s));
    pane.send(['Down', 'Down', 'Down', 'Down', 'Down']);
    await pane.waitFor('› Splits');
    pane.send(['Enter']);
    await pane.waitFor(/› demo +\d+ tasks/);
    pane.send(['Enter']);
    // The table shows once the first split is computed.
    const table = await pane.waitFor((s) => /SPLITS · demo · \d+ tasks/.test(s) && s.includes('preview:'));
    const first = /› \[x\] (\S+(?: \S+)*?) {2,}/.exec(table)?.[1];
    if (!first) throw new Error(`no selected country in\n${table}`);
    pane.send(['Space']);
    await pane.waitFor(`› [ ] ${first}`);
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
    await pane.waitFor('import cut-eval, cut-train?');
    expect(existsSync(out)).toBe(false);
    pane.send(['y']);
    await pane.waitFor(/wrote \d+ eval and \d+ train tasks/);

    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as {
      eval: { tasks: number; per_country: Record<string, number> };
      train: { tasks: number; per_country: Record<string, number> };
      options: { exclude_countries: string[] };
    };
    expect(manifest.options.exclude_countries).toEqual([first]);
    expect(manifest.eval.per_country[first]).toBeUndefined();
    expect(manifest.train.per_country[first]).toBeUndefined();
    expect(readFileSync(join(out, 'eval.jsonl'), 'utf8').trim().split('\n')).toHaveLength(manifest.eval.tasks);
    expect(readFileSync(join(out, 'train.jsonl'), 'utf8').trim().split('\n')).toHaveLength(manifest.train.tasks);
    pane.send(['q', 'q']);

    await pane.waitFor((s) => !s.includes('SPLITS') && !s.includes('Watch a model'));
    const ws = await openWorkspace(home);
    try {
      expect(readTasks(ws.db, 'cut-eval')).toHaveLength(manifest.eval.tasks);
      expect(readTasks(ws.db, 'cut-train')).toHaveLength(manifest.train.tasks);
    } finally {
      ws.close();
    }
    const check = geolab(['splits', 'check', '--train', join(out, 'train.jsonl'), '--eval', join(out, 'eval.jsonl')]);
    expect(check.code).toBe(0);
  });
});
