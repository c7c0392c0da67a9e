/**
 * The Splits screen over the real core, store and files: a pool the test generates (three countries,
 * six tasks each, 20 km apart, so the default 1 km buffer drops nothing), imported as a task set of a
 * real workspace or typed as a path; counts checked against what `buildSplits` must give.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanup } from 'ink-testing-library';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openWorkspace } from '../../src/store/index.js';
import { importTaskFile, readTasks } from '../../src/store/task-sets.js';
import { splitsService } from '../../src/tui/splits/service.js';
import { workspaceSession, type WorkspaceSession } from '../../src/tui/workspace-session.js';
import { tempDir } from '../helpers/fixtures.js';
import { poolRecord, spreadPool } from '../splits/pools.js';
import { KEY, renderApp } from './render.js';

let home: string;
let cwd: string;
let poolFile: string;
let session: WorkspaceSession;

beforeEach(async () => {
  home = tempDir();
  cwd = tempDir();
  poolFile = join(tempDir(), 'pool.jsonl');
  const pool = spreadPool(['France', 'Germany', 'Japan'], 6);
  writeFileSync(poolFile, pool.map((t, i) => JSON.stringify(poolRecord(t, i))).join('\n') + '\n');
  const ws = await openWorkspace(home);
  try {
    await importTaskFile(ws.db, poolFile, 'pool');
  } finally {
    ws.close();
  }
  session = workspaceSession(home);
});

afterEach(async () => {
  cleanup();
  await session.close();
});

/** Home -> Splits -> the task set "pool" (after the demo's, in name order). */
async function openPool() {
  const app = await renderApp({ route: { screen: 'home' }, services: { splits: splitsService(session, cwd) }, columns: 140, rows: 30 });
  await app.press(KEY.down, KEY.down, KEY.down, KEY.down, KEY.down);
  expect(app.frame()).toContain('› Splits');
  await app.press(KEY.enter);
  await app.waitFor((f) => f.includes('pool') && f.includes('18 tasks'));
  await app.press(KEY.down, KEY.enter);
  await settled(app);
  return app;
}

type App = Awaited<ReturnType<typeof renderApp>>;

/** The frame once the split shown is the one of the settings shown (it is recomputed after a burst of keys). */
function settled(app: App, ok: (frame: string) => boolean = () => true): Promise<string> {
  return app.waitFor((f) => f.includes('preview:') && !f.includes('recomputing') && ok(f));
}

function row(frame: string, country: string): number[] {
  const line = frame.split('\n').find((l) => l.includes(`] ${country} `));
  if (!line) throw new Error(`no row for ${country} in\n${frame}`);
  return line.trim().split(/\s+/).slice(-4).map(Number);
}

describe('the Splits screen', () => {
  it('shows the per-country table of pool, eval, train and cap, and the preview', async () => {
    const app = await openPool();
    const frame = await settled(app);
    for (const country of ['France', 'Germany', 'Japan']) expect(row(frame, country)).toEqual([6, 4, 2, 4]);
    expect(frame).toContain('preview: eval 12 tasks in 3 countries · train 6 tasks in 3 countries');
    expect(frame).toContain('dropped: 0 shared sequence · 0 buffer · 0 contributor · 0 cap · 0 left out');
    expect(frame).toContain('warning: train gets only 6 of the 18 pool tasks (33.3%, under 50 tasks');
  });

  it('leaves a country out with space and recomputes the counts', async () => {
    const app = await openPool();
    // Rows by pool count, ties by name: France is first and selected.
    expect(app.frame()).toContain('› [x] France');
    await app.press(' ');
    const frame = await settled(app, (f) => f.includes('[ ] France'));
    expect(row(frame, 'France')).toEqual([6, 0, 0, 4]);
    expect(frame).toContain('preview: eval 8 tasks in 2 countries · train 4 tasks in 2 countries');
    expect(frame).toContain('6 left out');
    await app.press(' ');
    await settled(app, (f) => f.includes('preview: eval 12 tasks'));
  });

  it("changes the selected country's eval cap with + and -, and the eval count with it", async () => {
    const app = await openPool();
    await app.press(KEY.down);
    expect(app.frame()).toContain('› [x] Germany');
    await app.press('+');
    let frame = await settled(app, (f) => f.includes('preview: eval 13 tasks'));
    expect(row(frame, 'Germany')).toEqual([6, 5, 1, 5]);
    await app.press('-', '-', '-');
    frame = await settled(app, (f) => f.includes('preview: eval 10 tasks'));
    expect(row(frame, 'Germany')).toEqual([6, 2, 4, 2]);
    expect(row(frame, 'France')).toEqual([6, 4, 2, 4]);
  });

  it('opens from Home with its key as well as from the menu', async () => {
    const app = await renderApp({ route: { screen: 'home' }, services: { splits: splitsService(session, cwd) }, columns: 140, rows: 30 });
    await app.press('s');
    await app.waitFor((f) => f.includes('SPLITS · choose a pool') && f.includes('18 tasks'));
  });

  it('recomputes the preview as the eval size, the buffer and contributor exclusivity change', async () => {
    const app = await openPool();
    // Eval size 200 -> 10: the first ten of the selection order, at most four a country.
    await app.press(...Array<string>(19).fill('['));
    let frame = await settled(app, (f) => f.includes('eval size 10 ·'));
    expect(frame).toContain('preview: eval 10 tasks');
    expect(frame).toContain('train 8 tasks');
    // Neighbours are 20 km apart: a 21 km buffer drops the train tasks next to an eval task.
    await app.press(...Array<string>(40).fill('>'));
    frame = await settled(app, (f) => f.includes('buffer 21 km'));
    expect(frame).toMatch(/dropped: 0 shared sequence · [1-9]\d* buffer/);
    await app.press(...Array<string>(42).fill('<'));
    frame = await settled(app, (f) => f.includes('buffer 0 km'));
    expect(frame).toContain('0 buffer');
    // Every task has its own contributor here, so exclusivity is shown but drops nothing.
    await app.press('c');
    await app.waitFor((f) => f.includes('contributor-exclusive on'));
  });

  it('cycles the sort column with s', async () => {
    const app = await openPool();
    await app.press(KEY.down, '+');
    expect(app.frame()).toContain('sort: pool');
    await app.press('s');
    const frame = await settled(app, (f) => f.includes('sort: eval'));
    const order = frame.split('\n').filter((l) => /\] (France|Germany|Japan) /.test(l)).map((l) => /\] (\w+)/.exec(l)![1]);
    expect(order).toEqual(['Germany', 'France', 'Japan']);
  });

  it('writes nothing until confirmed, then writes the files and the manifest and imports NAME-eval / NAME-train', async () => {
    const app = await openPool();
    await app.press(' ');
    await settled(app, (f) => f.includes('preview: eval 8 tasks'));
    const out = join(cwd, 'splits', 'pool');
    await app.press('w');
    await app.waitFor((f) => f.includes('write to directory: splits/pool'));
    await app.press(KEY.enter);
    await app.waitFor((f) => f.includes('NAME: pool'));
    await app.press(KEY.enter);
    await app.waitFor((f) => f.includes('import pool-eval, pool-train?'));
    expect(existsSync(out)).toBe(false);
    await app.press('n');
    await app.waitFor((f) => f.includes('Nothing written.'));
    expect(existsSync(out)).toBe(false);

    await app.press('w', KEY.enter);
    for (const _ of 'pool') await app.press(KEY.backspace);
    await app.press(...'cut');
    await app.press(KEY.enter);
    await app.waitFor((f) => f.includes('import cut-eval, cut-train?'));
    expect(existsSync(out)).toBe(false);
    await app.press('y');
    await app.waitFor((f) => f.includes('wrote 8 eval and 4 train tasks'));

    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as {
      eval: { tasks: number; per_country: Record<string, number> };
      train: { tasks: number };
      options: { exclude_countries: string[] };
      inputs: { pool: string };
    };
    expect(manifest.eval).toMatchObject({ tasks: 8, per_country: { Germany: 4, Japan: 4 } });
    expect(manifest.train.tasks).toBe(4);
    expect(manifest.options.exclude_countries).toEqual(['France']);
    expect(manifest.inputs.pool).toBe(poolFile);
    expect(readFileSync(join(out, 'eval.jsonl'), 'utf8').trim().split('\n')).toHaveLength(8);
    const ws = await openWorkspace(home);
    try {
      expect(readTasks(ws.db, 'cut-eval')).toHaveLength(8);
      expect(readTasks(ws.db, 'cut-train')).toHaveLength(4);
    } finally {
      ws.close();
    }
  });

  it('opens a task file typed as a path, and refuses to write a split whose self-check fails', async () => {
    const app = await renderApp({ route: { screen: 'splits' }, services: { splits: splitsService(session, cwd) }, columns: 140, rows: 30 });
    await app.waitFor((f) => f.includes('a task file…'));
    await app.press(KEY.down, KEY.down, KEY.enter);
    await app.waitFor((f) => f.includes('task file:'));
    await app.press(...poolFile, KEY.enter);
    await settled(app, (f) => f.includes(`SPLITS · ${poolFile} · 18 tasks`));
    // Every country out: no eval split, nothing to write.
    await app.press(' ', KEY.down, ' ', KEY.down, ' ');
    await settled(app, (f) => f.includes('preview: eval 0 tasks'));
    await app.press('w');
    const frame = await app.waitFor((f) => f.includes('not written: the eval split would be empty'));
    expect(frame).not.toContain('write to directory');
    expect(existsSync(join(cwd, 'splits'))).toBe(false);
  });

  it('says why a typed task file cannot be opened, and stays on the pool choice', async () => {
    const app = await renderApp({ route: { screen: 'splits' }, services: { splits: splitsService(session, cwd) }, columns: 140, rows: 30 });
    await app.waitFor((f) => f.includes('a task file…'));
    await app.press(KEY.down, KEY.down, KEY.enter, ...'missing.jsonl', KEY.enter);
    const frame = await app.waitFor((f) => f.includes('cannot open missing.jsonl'));
    expect(frame).toContain(join(cwd, 'missing.jsonl'));
    expect(frame).toContain('› a task file…');
  });
});
