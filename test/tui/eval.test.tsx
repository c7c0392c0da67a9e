/**
 * The Eval board on a real workspace: the arms and the paired comparisons read as the report core
 * computes them over the same episodes, the run filter and the baseline picker change them as
 * `--run` and `--baseline` do, an arm by country and by verdict opens its worst episodes and the
 * Player, and a sweep found through its runs shows its progress (a dead writer as "stopped") and
 * its episodes as they land.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { cleanup } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import type { ArmRow, Comparison } from '../../src/eval/report.js';
import { tempDir } from '../helpers/fixtures.js';
import { evalEpisode, evalWorkspace, threeArms, type EvalWorkspace } from './eval-workspace.js';
import { KEY, renderApp } from './render.js';

let workspace: EvalWorkspace | undefined;

afterEach(async () => {
  cleanup();
  await workspace?.close();
  workspace = undefined;
});

// Wide enough for every column of the arms table.
const WIDE = 280;

async function openBoard(options: { columns?: number; rows?: number } = {}) {
  workspace = await evalWorkspace(threeArms());
  const app = await renderApp({ route: { screen: 'eval' }, services: workspace.services, columns: options.columns ?? WIDE, rows: options.rows ?? 40 });
  await app.waitFor((f) => f.includes('Paired vs'));
  return { app, ws: workspace };
}

/** The words of the frame's line that starts (after the cursor and marks) with `first`. */
function rowOf(frame: string, first: string): string[] {
  const line = frame.split('\n').find((l) => l.replace(/^[\s›!]+/, '').startsWith(`${first} `));
  if (!line) throw new Error(`no row for ${first} in:\n${frame}`);
  return line.replace(/^[\s›!]+/, '').trim().split(/\s+/);
}

const f = (v: number, digits: number) => (Number.isFinite(v) ? v.toFixed(digits) : '-');
const s = (v: number, digits: number) => `${v >= 0 ? '+' : ''}${v.toFixed(digits)}`;

/** pass@k's cell: its k named when the arms' k differ (a failure leaves a task fewer attempts). */
function passAtKCells(a: ArmRow, arms: readonly ArmRow[]): string[] {
  return new Set(arms.map((x) => x.pass_k)).size === 1 ? [f(a.pass_at_k, 4)] : [f(a.pass_at_k, 4), `(k=${a.pass_k})`];
}

function armCells(a: ArmRow, arms: readonly ArmRow[]): string[] {
  return [
    a.arm,
    String(a.tasks),
    String(a.failed),
    String(a.episodes),
    f(a.k, 2),
    f(a.mean_of_k, 4),
    f(a.mean_of_k_se, 4),
    `[${f(a.mean_of_k_ci_low, 4)},`,
    `${f(a.mean_of_k_ci_high, 4)}]`,
    f(a.best_of_k, 4),
    f(a.pass_at_1, 4),
    ...passAtKCells(a, arms),
    f(a.median_km, 1),
    f(a.within_25km, 1),
    f(a.within_200km, 1),
    f(a.within_750km, 1),
    f(a.country_pct, 1),
    f(a.env_floor_pct, 1),
    f(a.no_guess_pct, 1),
    f(a.forced_pct, 1),
    f(a.turns, 2),
    f(a.looks, 2),
    f(a.moves, 2),
    f(a.pins, 2),
    f(a.cost, 3),
    f(a.tokens_out, 0),
  ];
}

function comparisonCells(c: Comparison): string[] {
  return [c.arm, String(c.n), s(c.delta, 4), f(c.se, 4), `[${s(c.ci_low, 4)},`, `${s(c.ci_high, 4)}]`, `${c.better}/${c.n}`, `${c.worse}/${c.n}`, String(c.ties), c.significant ? 'yes' : 'no'];
}

function expectBoard(frame: string, report: { arms: ArmRow[]; comparisons: Comparison[] }) {
  for (const arm of report.arms) expect(rowOf(frame, arm.arm)).toEqual(armCells(arm, report.arms));
  const paired = frame.slice(frame.indexOf('Paired vs'));
  for (const c of report.comparisons) expect(rowOf(paired, c.arm)).toEqual(comparisonCells(c));
}

/** The files `x` wrote into the workspace, oldest first. */
function exported(home: string): string[] {
  const dir = join(home, 'exports');
  return existsSync(dir) ? readdirSync(dir).sort().map((name) => join(dir, name)) : [];
}

/** The status line of the last frame. */
const noticeOf = (frame: string) => frame.split('\n').find((line) => /CSV/.test(line))?.trim() ?? '';

/** RFC 4180 read back: CRLF records, quoted fields with doubled quotes. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') {
      const end = text.indexOf('"', i + 1);
      field += text.slice(i + 1, end);
      i = end;
      if (text[i + 1] === '"') field += '"';
    } else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      rows.push([...row, field]);
      row = [];
      field = '';
      i++;
    } else field += c;
  }
  return rows;
}

// The reference curve (docs/scoring.md) written out again here.
const reference = (km: number, cost: number) => Math.min(1, 0.5 * Math.exp(-km / 1492.7) + 0.5 * Math.exp(-km / 5000)) * (1 - Math.min(cost, 0.2));
const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

describe('Eval board', () => {
  it("shows every arm's numbers and the paired comparisons as the report core computes them", async () => {
    const { app, ws } = await openBoard();
    const frame = app.frame();
    expect(frame).toContain('EVAL BOARD · 30 episodes · 3 runs · 3 arms · baseline alpha@v2');
    expect(frame).toContain('SE = standard error · 95% CI = delta ± 1.96 SE');
    const expected = await ws.report({ baseline: 'alpha@v2' });
    expect(expected.arms.map((a) => a.arm)).toEqual(['alpha@v2', 'beta@v2', 'gamma@v2']);
    expect(expected.comparisons).toHaveLength(2);
    expectBoard(frame, expected);
    // Independently: beta beats alpha on tasks 2..5 of 6.
    expect(rowOf(frame.slice(frame.indexOf('Paired vs')), 'beta@v2')[6]).toBe('4/6');
  });

  it('flags an arm whose numbers are not to be trusted, and says why', async () => {
    // gamma's task 0, sample 0 recorded twice: duplicated (task, sample), and 7 episodes over 6 tasks.
    const duplicate = { record: evalEpisode('gamma', 0, 0, 1000), runId: 'run-c' };
    duplicate.record.episode_id = 'gamma-t0-s0-again';
    workspace = await evalWorkspace([...threeArms(), duplicate]);
    const app = await renderApp({ route: { screen: 'eval' }, services: workspace.services, columns: WIDE, rows: 40 });
    await app.waitFor((fr) => fr.includes('Paired vs'));
    const expected = await workspace.report({ baseline: 'alpha@v2' });
    expect(expected.arms[2]!.flags).toEqual(['duplicate_samples', 'non_integral_k']);
    expectBoard(app.frame(), expected);
    expect(app.frame()).toMatch(/^ {3}!gamma@v2 /m);
    expect(app.frame()).toContain(
      '! gamma@v2: duplicate_samples (a (task, sample) is recorded more than once); non_integral_k (its tasks have unequal numbers of attempts)',
    );
    expect(app.frame()).not.toMatch(/!alpha@v2/);
  });

  it("keeps the last record of each episode of a sweep's run, as the sweep's folder does", async () => {
    workspace = await evalWorkspace([]);
    await workspace.addSweepRun('sw', tempDir());
    // alpha's 0/0 finished in a process killed before the folder got its line, and was played again.
    const leftover = evalEpisode('alpha', 0, 0, 3000);
    leftover.episode_id = 'alpha-t0-s0-killed';
    const sweep = [leftover, ...[0, 1, 2].flatMap((t) => [0, 1].map((sm) => evalEpisode('alpha', t, sm, 100 + 50 * t + 10 * sm)))];
    // An imported run keeps every record: beta's 0/0 twice is a duplicate sample there.
    const twice = evalEpisode('beta', 0, 0, 500);
    twice.episode_id = 'beta-t0-s0-again';
    const imported = [twice, ...[0, 1, 2].flatMap((t) => [0, 1].map((sm) => evalEpisode('beta', t, sm, 500)))];
    await workspace.record([...sweep.map((record) => ({ record, runId: 'sw' })), ...imported.map((record) => ({ record, runId: 'imported' }))]);
    const app = await renderApp({ route: { screen: 'eval' }, services: workspace.services, columns: WIDE, rows: 40 });
    await app.waitFor((fr) => fr.includes('Paired vs'));
    const expected = await workspace.report({ baseline: 'alpha@v2' });
    const [alpha, beta] = expected.arms;
    expect([alpha!.episodes, alpha!.flags]).toEqual([6, []]);
    expect(alpha!.mean_of_k).toBeCloseTo(avg([0, 1, 2].map((t) => avg([0, 1].map((sm) => reference(100 + 50 * t + 10 * sm, 0.03))))), 12);
    expect([beta!.episodes, beta!.flags]).toEqual([7, ['duplicate_samples', 'non_integral_k']]);
    expectBoard(app.frame(), expected);
    expect(app.frame()).not.toMatch(/!alpha@v2/);
  });

  it('counts a failed episode apart, in no statistic, and flags the arm past 2%', async () => {
    const { app, ws } = await openBoard();
    const frame = app.frame();
    const beta = (await ws.report()).arms.find((a) => a.arm === 'beta@v2')!;
    // beta's t5 sample 1 failed: 11 scored episodes over 6 tasks, task 5 scored once.
    expect([beta.episodes, beta.failed, beta.tasks]).toEqual([11, 1, 6]);
    const perTask = [0, 1, 2, 3, 4].map((t) => avg([0, 1].map((sm) => reference(t < 2 ? 2600 + 10 * sm : 60 + 40 * t + 15 * sm, 0.03))));
    const mean = avg([...perTask, reference(60 + 200, 0.03)]);
    expect(beta.mean_of_k).toBeCloseTo(mean, 12);
    expect(rowOf(frame, 'beta@v2').slice(0, 6)).toEqual(['beta@v2', '6', '1', '11', f(11 / 6, 2), f(mean, 4)]);
    expect(frame).toMatch(/^ {3}!beta@v2 /m);
    expect(frame).toContain('! beta@v2: non_integral_k (its tasks have unequal numbers of attempts); failed_episodes (over 2% of its episodes failed');
    // Every pass@k title names its threshold.
    expect(frame).toMatch(/pass@1<=25km +pass@k<=25km/);
  });

  it('keeps the most wanted columns on a narrow terminal', async () => {
    const { app, ws } = await openBoard({ columns: 80, rows: 24 });
    const [alpha] = (await ws.report()).arms;
    const row = rowOf(app.frame(), 'alpha@v2');
    // Tasks, failed and mean@k are kept first.
    expect(row.slice(0, 3)).toEqual(['alpha@v2', String(alpha!.tasks), String(alpha!.failed)]);
    expect(row).toContain(f(alpha!.mean_of_k, 4));
    expect(app.frame()).not.toContain('tok out');
  });

  it('leaves runs out of the report as --run does', async () => {
    const { app, ws } = await openBoard();
    await app.press('r');
    expect(app.frame()).toContain('Runs in the report');
    expect(app.frame()).toMatch(/› \[x\] run-a +12 episodes/);
    await app.press(KEY.down, ' ');
    expect(app.frame()).toMatch(/\[ \] run-b +12 episodes/);
    await app.press(KEY.enter);
    await app.waitFor((fr) => fr.includes('2 of 3 runs · 2 arms') && !fr.includes('updating'));
    expect(app.frame()).not.toContain('beta@v2');
    expectBoard(app.frame(), await ws.report({ runs: ['run-a', 'run-c'], baseline: 'alpha@v2' }));
  });

  it('compares against the baseline picked', async () => {
    const { app, ws } = await openBoard();
    await app.press('b');
    expect(app.frame()).toContain('(•) alpha@v2');
    await app.press(KEY.down, KEY.enter);
    await app.waitFor((fr) => fr.includes('Paired vs beta@v2') && !fr.includes('updating'));
    expectBoard(app.frame(), await ws.report({ baseline: 'beta@v2' }));
  });

  it("shows the selected arm by country as --by country does, and opens a country's worst episode in the Player", async () => {
    const { app, ws } = await openBoard();
    await app.press(KEY.down, 'c');
    await app.waitFor((fr) => fr.includes('EVAL BOARD · beta@v2 by country'));
    const rows = (await ws.report({ by: 'country' })).by!.rows.filter((r) => r.arm === 'beta@v2');
    // The failed episode's record names no country.
    expect(rows.map((r) => r.group)).toEqual(['(unknown)', 'Austria', 'Chile', 'Japan']);
    for (const r of rows) expect(rowOf(app.frame(), r.group)).toEqual([r.group, String(r.tasks), String(r.episodes), String(r.failed), f(r.mean_of_k, 4), f(r.median_km, 1)]);

    // Austria holds tasks 0 and 3: the farthest guesses first.
    await app.press(KEY.down, KEY.enter);
    await app.waitFor((fr) => fr.includes('Austria: worst first'));
    const order = ['beta-t0-s1', 'beta-t0-s0', 'beta-t3-s1', 'beta-t3-s0'];
    const lines = app.frame().split('\n');
    const at = order.map((id) => lines.findIndex((l) => l.includes(id)));
    expect(at.every((line, i) => line > 0 && (i === 0 || line > at[i - 1]!))).toBe(true);
    expect(rowOf(app.frame(), 'beta-t0-s1')).toEqual(['beta-t0-s1', 'eval/0', '1', '2610.0', f(reference(2610, 0.03), 4), 'Wrong', 'continent']);
    await app.press(KEY.enter);
    await app.waitFor((fr) => fr.includes('episode beta-t0-'));
    // Back from the Player lands on the same list.
    await app.press('q');
    await app.waitFor((fr) => fr.includes('Austria: worst first'));
  });

  it('shows the selected arm by verdict, failures apart', async () => {
    const { app } = await openBoard();
    await app.press(KEY.down, 'v');
    await app.waitFor((fr) => fr.includes('EVAL BOARD · beta@v2 by verdict'));
    // beta: t0, t1 at 2600+ km; t2, t3 within 200 km; t4 and t5's first sample within 1500; t5's second failed.
    const close = avg([avg([reference(140, 0.03), reference(155, 0.03)]), avg([reference(180, 0.03), reference(195, 0.03)])]);
    expect(rowOf(app.frame(), 'Close')).toEqual(['Close', '2', '4', '0', f(close, 4), f((155 + 180) / 2, 1)]);
    expect(rowOf(app.frame(), 'Wrong')).toEqual(['Wrong', 'continent', '2', '4', '0', f(avg([reference(2600, 0.03), reference(2610, 0.03)]), 4), '2605.0']);
    // The failure is counted in its own row and scores nothing: no task, no mean.
    expect(rowOf(app.frame(), 'failed')).toEqual(['failed', '0', '0', '1', '-', '-']);
    const lines = app.frame().split('\n');
    expect(['Close', 'Right region', 'Wrong continent', 'failed'].map((v) => lines.findIndex((l) => l.replace(/^[\s›]+/, '').startsWith(`${v} `)))).toEqual([3, 4, 5, 6]);
    await app.press(KEY.down, KEY.enter);
    await app.waitFor((fr) => fr.includes('Right region: worst first'));
    expect(rowOf(app.frame(), 'beta-t5-s0')).toEqual(['beta-t5-s0', 'eval/5', '0', '260.0', f(reference(260, 0.03), 4), 'Japan']);
  });

  it('x writes the table shown as CSV into the workspace, every column even on a narrow terminal, and says where', async () => {
    const { app, ws } = await openBoard({ columns: 80, rows: 24 });
    expect(app.frame()).not.toContain('tok out');
    await app.press('x');
    const written = await app.waitFor((fr) => fr.includes('CSV of the arms'));
    const [file] = exported(ws.home);
    expect(basename(file!)).toMatch(/^eval-\d{8}-\d{6}-\d{3}\.csv$/);
    // The path fits in 80 columns only without the row count; its end (the name) always shows.
    expect(noticeOf(written)).toMatch(new RegExp(`^CSV of the arms: .*${basename(file!)}$`));
    const text = readFileSync(file!, 'utf8');
    expect(text.endsWith('\r\n')).toBe(true);
    const rows = parseCsv(text);
    const report = await ws.report({ baseline: 'alpha@v2' });
    expect(rows[0]!.slice(0, 4)).toEqual(['arm', 'tasks', 'failed', 'scored']);
    expect(rows[0]).toContain('tok out');
    expect(rows[0]!.at(-1)).toBe('flags');
    expect(rows.slice(1).map((r) => r[0])).toEqual(report.arms.map((a) => a.arm));
    // The board's cells, the interval quoted as one field (it holds a comma).
    const alpha = report.arms[0]!;
    expect(rows[1]!.slice(0, 8)).toEqual([alpha.arm, String(alpha.tasks), String(alpha.failed), String(alpha.episodes), f(alpha.k, 2), f(alpha.mean_of_k, 4), f(alpha.mean_of_k_se, 4), `[${f(alpha.mean_of_k_ci_low, 4)}, ${f(alpha.mean_of_k_ci_high, 4)}]`]);
    expect(text).toContain(`"[${f(alpha.mean_of_k_ci_low, 4)}, ${f(alpha.mean_of_k_ci_high, 4)}]"`);
    // An arm's groups: the table in view is the one written.
    await app.press(KEY.down, 'c');
    await app.waitFor((fr) => fr.includes('EVAL BOARD · beta@v2 by country'));
    await app.press('x');
    await app.waitFor(() => exported(ws.home).length === 2);
    const groups = parseCsv(readFileSync(exported(ws.home)[1]!, 'utf8'));
    expect(groups).toEqual([
      ['country', 'tasks', 'scored', 'failed', 'mean@k', 'median km'],
      ...(await ws.report({ by: 'country' })).by!.rows.filter((r) => r.arm === 'beta@v2').map((r) => [r.group, String(r.tasks), String(r.episodes), String(r.failed), f(r.mean_of_k, 4), f(r.median_km, 1)]),
    ]);
  });

  it('shows a sweep found through its runs: bars per model, "stopped" when its writer is gone', async () => {
    const { app, ws } = await openBoard();
    const out = tempDir();
    const dead = spawnSync(process.execPath, ['-e', '']).pid!;
    const sweep = (pid: number, done: number) => ({
      run_id: 'sweep-1',
      pid,
      status: 'running',
      started_at: '2026-12-01T10:00:00Z',
      updated_at: '2026-12-01T10:05:00Z',
      models: [
        { name: 'beta', done, failed: 2, total: 100, per_min: 12.5, eta_s: (100 - done) * 4.8 },
        { name: 'gamma', done: 100, failed: 0, total: 100, per_min: 20, eta_s: 0 },
      ],
    });
    writeFileSync(join(out, 'sweep.json'), JSON.stringify(sweep(dead, 40)));
    await ws.addSweepRun('sweep-1-beta', out);
    await app.waitFor((fr) => fr.includes('Sweeps'));
    expect(app.frame()).toMatch(/sweep-1 · stopped \(its process is gone/);
    expect(app.frame()).toMatch(new RegExp(`beta +${'█'.repeat(8)}${'░'.repeat(12)} 40/100 · 2 failed · 12\\.5/min`));
    expect(app.frame()).toMatch(new RegExp(`gamma +${'█'.repeat(20)} 100/100 · 20\\.0/min`));

    // The writer alive again: running, with the time left; its episodes join the table as they land.
    writeFileSync(join(out, 'sweep.json'), JSON.stringify(sweep(process.pid, 60)));
    await ws.record([{ record: evalEpisode('beta', 6, 0, 50), runId: 'sweep-1-beta' }]);
    await app.waitFor((fr) => fr.includes('sweep-1 · running') && fr.includes('31 episodes') && !fr.includes('updating'));
    expect(app.frame()).toContain('60/100 · 2 failed · 12.5/min · ETA 3m 12s');
    expectBoard(app.frame(), await ws.report({ baseline: 'alpha@v2' }));
    expect(rowOf(app.frame(), 'beta@v2')[1]).toBe('7');
  });

  it('puts sweeps still going first and leaves out what does not fit', async () => {
    const { app, ws } = await openBoard({ columns: 100, rows: 24 });
    const models = [
      { name: 'beta', done: 10, failed: 0, total: 100, per_min: 5, eta_s: 1080 },
      { name: 'gamma', done: 10, failed: 0, total: 100, per_min: 5, eta_s: 1080 },
    ];
    for (const [run, status, pid] of [
      ['sweep-old', 'done', 1],
      ['sweep-live', 'running', process.pid],
      ['sweep-older', 'done', 1],
    ] as const) {
      const out = tempDir();
      writeFileSync(join(out, 'sweep.json'), JSON.stringify({ run_id: run, pid, status, started_at: '', updated_at: '', models }));
      await ws.addSweepRun(run, out);
    }
    await app.waitFor((fr) => fr.includes('sweep-live · running'));
    expect(app.frame()).toContain('… 2 more sweeps');
    expect(app.frame()).not.toContain('sweep-old');
    expect(app.frame()).toContain('gamma@v2');
    expect(app.frame().split('\n').length).toBeLessThanOrEqual(24);
  });

  it("says what is wrong with a sweep's progress file", async () => {
    const { app, ws } = await openBoard();
    const out = tempDir();
    writeFileSync(join(out, 'sweep.json'), JSON.stringify({ run_id: 'x', pid: 1, status: 'paused', started_at: '', updated_at: '', models: [] }));
    await ws.addSweepRun('sweep-2', out);
    await app.waitFor((fr) => fr.includes('cannot read its progress'));
    expect(app.frame()).toContain(`${join(out, 'sweep.json')}, field status: expected "running", "done", "failed", "interrupted", got "paused"`);
  });
});

describe('Home and the Eval board', () => {
  it('opens the board with its key', async () => {
    workspace = await evalWorkspace(threeArms());
    const app = await renderApp({ route: { screen: 'home' }, services: workspace.services, columns: 120, rows: 30 });
    expect(app.frame()).toMatch(/Eval board +compare models\n/);
    await app.press('v');
    await app.waitFor((fr) => fr.includes('EVAL BOARD · 30 episodes'));
  });
});
