/**
 * `geolab eval report` through the real binary over harness-format run trees: a run, a sharded
 * two-pass sweep and a contaminated run, with failed and no-guess episodes, a duplicated
 * (task, sample), two prompt versions of one model and stored rewards that are deliberately wrong.
 * Every expected number is computed here from the specs, not by the code under test.
 */
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { EpisodeRecord } from '../../src/core/episode.js';
import { detachFromRun, saveEpisode } from '../../src/store/episodes.js';
import { ensureEvalRun } from '../../src/store/eval-runs.js';
import { openWorkspace } from '../../src/store/index.js';
import { geolab } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';

interface Spec {
  model: string;
  prompt: string;
  task: number;
  sample: number;
  /** undefined: no guess; 'failed': the harness's error record. */
  km?: number | 'failed';
  cost?: number;
  countryHit?: boolean;
  forced?: boolean;
  /** Model turns: finish reasons (null: missing). */
  finish?: (string | null)[];
  tokensOut?: number;
  looks?: number;
  country?: string;
}

const COUNTRIES = ['Austria', 'Chile', 'Japan', 'Kenya'];
/** Of COUNTRIES, those Natural Earth puts in South America. */
const SOUTH_AMERICA = new Set(['Chile']);
let serial = 0;

function record(s: Spec): object {
  const task = { split: 'eval', index: s.task, sample: s.sample, task_id: `t${s.task}`, country: s.country ?? COUNTRIES[s.task % 4] };
  const head = { schema_version: 2, episode_id: `e${serial++}`, model_name: s.model, task, config: { prompt_version: s.prompt, mode: 'agentic' } };
  if (s.km === 'failed') return { ...head, error: 'ConnectionError: endpoint down', traceback: 'Traceback (most recent call last): ...' };
  const finish = s.finish ?? ['stop', 'stop'];
  const turns = [
    { turn: 0, status: 'ok', camera_before: { heading_deg: 0, pitch_deg: 0, fov_deg: 90 }, action: { action: 'reset' } },
    ...finish.map((reason, i) => ({
      turn: i + 1,
      status: 'ok',
      action: { action: 'look', heading_deg: 90 },
      model: { reply: 'look', ...(reason === null ? {} : { finish_reason: reason }), tokens: { input: 100, output: 10 } },
    })),
  ];
  const outcome: Record<string, unknown> = {
    // Wrong on purpose: the report must recompute, never read these.
    reward: 0.123,
    train_reward: 0.456,
    parsed_ok: s.km !== undefined,
    action_cost: s.cost ?? 0,
    forced_guess: s.forced ?? false,
    turns_used: finish.length,
    n_looks: s.looks ?? finish.length,
    n_moves: 0,
    n_pins: 1,
    tokens_out: s.tokensOut ?? 10 * finish.length,
  };
  if (s.km !== undefined) {
    outcome.distance_km = s.km;
    outcome.country_hit = s.countryHit ?? s.km < 500;
  }
  return { ...head, turns, outcome };
}

function writeRun(dir: string, specs: Spec[]): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'episodes.jsonl'), specs.map((s) => JSON.stringify(record(s))).join('\n') + '\n');
  writeFileSync(join(dir, 'run.json'), JSON.stringify({ run_id: dir, created_at: '2026-01-01T00:00:00Z' }));
}

// The reference curve as docs/scoring.md states it, written out again here.
const reference = (km: number | undefined | 'failed', cost: number) =>
  km === undefined || km === 'failed' ? 0 : Math.min(1, 0.5 * Math.exp(-km / 1492.7) + 0.5 * Math.exp(-km / 5000)) * (1 - Math.min(cost, 0.2));
const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const med = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

// alpha@v1: 4 tasks x 2 samples; task 3 sample 1 failed, task 2 sample 0 no guess (forced).
const ALPHA_V1: Spec[] = (
  [
  { task: 0, sample: 0, km: 10, cost: 0.05 },
  { task: 0, sample: 1, km: 300, cost: 0.1 },
  { task: 1, sample: 0, km: 1348.52, cost: 0.05 },
  { task: 1, sample: 1, km: 4000, cost: 0.3, countryHit: false },
  { task: 2, sample: 0, forced: true, cost: 0.02 },
  { task: 2, sample: 1, km: 150, cost: 0 },
  { task: 3, sample: 0, km: 720, cost: 0.04 },
  { task: 3, sample: 1, km: 'failed' },
  ] as Omit<Spec, 'model' | 'prompt'>[]
).map((s) => ({ ...s, model: 'alpha', prompt: 'v1' }));
// alpha@v2, a sharded two-pass sweep: pass p holds sample p.
const ALPHA_V2: Spec[] = (
  [
  { task: 0, sample: 0, km: 5, cost: 0.01 },
  { task: 0, sample: 1, km: 20, cost: 0.01 },
  { task: 1, sample: 0, km: 900, cost: 0.02 },
  { task: 1, sample: 1, km: 1100, cost: 0.02 },
  { task: 2, sample: 0, km: 60, cost: 0.03 },
  { task: 2, sample: 1, km: 3500, cost: 0.25, countryHit: false },
  { task: 3, sample: 0, km: 400, cost: 0.05 },
  { task: 3, sample: 1, km: 200, cost: 0.05 },
  ] as Omit<Spec, 'model' | 'prompt'>[]
).map((s) => ({ ...s, model: 'alpha', prompt: 'v2' }));
// beta@v1: (task 1, sample 0) twice -> k = 9/4; 2 of 18 model turns without a finish_reason.
const BETA_V1: Spec[] = (
  [
  { task: 0, sample: 0, km: 800, cost: 0.05, finish: ['stop', null] },
  { task: 0, sample: 1, km: 50, cost: 0.05 },
  { task: 1, sample: 0, km: 2000, cost: 0.1 },
  { task: 1, sample: 0, km: 2500, cost: 0.1 },
  { task: 1, sample: 1, km: 30, cost: 0.1, finish: ['length', null] },
  { task: 2, sample: 0, km: 100, cost: 0 },
  { task: 2, sample: 1, km: 12000, cost: 0, countryHit: false },
  { task: 3, sample: 0, km: 700, cost: 0.2 },
  { task: 3, sample: 1, km: 700, cost: 0.2 },
  ] as Omit<Spec, 'model' | 'prompt'>[]
).map((s) => ({ ...s, model: 'beta', prompt: 'v1' }));

interface ArmJson {
  arm: string;
  episodes: number;
  failed: number;
  tasks: number;
  k: number;
  mean_of_k: number;
  best_of_k: number;
  median_km: number;
  within_25km: number;
  within_200km: number;
  within_750km: number;
  country_pct: number;
  turns: number;
  cost: number;
  env_floor_pct: number;
  no_guess_pct: number;
  forced_pct: number;
  tokens_out: number;
  flags: string[];
}
interface ComparisonJson {
  arm: string;
  baseline: string;
  n: number;
  delta: number;
  se: number;
  ci_low: number;
  ci_high: number;
  better: number;
  significant: boolean;
}

/** The arm's numbers as docs/eval.md defines them: a failed record is counted, and in no statistic. */
function expectedArm(all: Spec[]) {
  const specs = all.filter((s) => s.km !== 'failed');
  const byTask = new Map<number, number[]>();
  for (const s of specs) byTask.set(s.task, [...(byTask.get(s.task) ?? []), reference(s.km, s.cost ?? 0)]);
  const guessed = specs.filter((s) => typeof s.km === 'number');
  const km = guessed.map((s) => s.km as number);
  const completed = specs.filter((s) => s.km !== 'failed');
  const pct = (n: number, of: number) => (100 * n) / of;
  const gameFloor = (s: Spec) => typeof s.km !== 'number' || Math.exp(-s.km / 1492.7) - (s.cost ?? 0) <= 0;
  return {
    episodes: specs.length,
    failed: all.length - specs.length,
    tasks: byTask.size,
    k: specs.length / byTask.size,
    mean_of_k: avg([...byTask.values()].map(avg)),
    best_of_k: avg([...byTask.values()].map((v) => Math.max(...v))),
    median_km: med(km),
    within_25km: pct(km.filter((d) => d <= 25).length, specs.length),
    within_200km: pct(km.filter((d) => d <= 200).length, specs.length),
    within_750km: pct(km.filter((d) => d <= 750).length, specs.length),
    country_pct: pct(guessed.filter((s) => s.countryHit ?? (s.km as number) < 500).length, guessed.length),
    turns: avg(completed.map((s) => (s.finish ?? ['stop', 'stop']).length)),
    cost: avg(completed.map((s) => s.cost ?? 0)),
    env_floor_pct: pct(specs.filter(gameFloor).length, specs.length),
    no_guess_pct: pct(specs.length - guessed.length, specs.length),
    forced_pct: pct(specs.filter((s) => s.forced).length, specs.length),
    tokens_out: avg(completed.map((s) => s.tokensOut ?? 10 * (s.finish ?? ['stop', 'stop']).length)),
  };
}

function expectedComparison(arm: Spec[], base: Spec[]) {
  const perTask = (specs: Spec[]) => {
    const m = new Map<number, number[]>();
    for (const s of specs) if (s.km !== 'failed') m.set(s.task, [...(m.get(s.task) ?? []), reference(s.km, s.cost ?? 0)]);
    return new Map([...m].map(([t, v]) => [t, avg(v)]));
  };
  const a = perTask(arm);
  const b = perTask(base);
  const diffs = [...a].filter(([t]) => b.has(t)).map(([t, v]) => v - b.get(t)!);
  const delta = avg(diffs);
  const sd = Math.sqrt(diffs.reduce((acc, d) => acc + (d - delta) ** 2, 0) / (diffs.length - 1));
  const se = sd / Math.sqrt(diffs.length);
  return { n: diffs.length, delta, se, ci_low: delta - 1.96 * se, ci_high: delta + 1.96 * se, better: diffs.filter((d) => d > 0).length };
}

let root = '';
beforeAll(() => {
  root = tempDir();
  writeRun(join(root, 'run-a'), ALPHA_V1);
  writeRun(join(root, 'sweep', 'pass-0', 'shard-0'), ALPHA_V2.filter((s) => s.sample === 0 && s.task < 2));
  writeRun(join(root, 'sweep', 'pass-0', 'shard-1'), ALPHA_V2.filter((s) => s.sample === 0 && s.task >= 2));
  writeRun(join(root, 'sweep', 'pass-1', 'shard-0'), ALPHA_V2.filter((s) => s.sample === 1));
  writeRun(join(root, 'run-c'), BETA_V1);
});

describe('geolab eval report', () => {
  it('checks its own reference curve against docs/scoring.md', () => {
    expect(reference(1348.52, 0.05)).toBeCloseTo(0.5552, 4);
  });

  it('reports every arm from a run tree, recomputing scores and flagging contamination', () => {
    const r = geolab(['eval', 'report', root, '--json', '--baseline', 'alpha@v1']);
    expect(r.stderr).toBe('');
    // beta is flagged: the command worked and found a problem.
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout) as { arms: ArmJson[]; comparisons: ComparisonJson[] };
    expect(report.arms.map((a) => a.arm)).toEqual(['alpha@v1', 'alpha@v2', 'beta@v1']);
    for (const [arm, specs] of [
      ['alpha@v1', ALPHA_V1],
      ['alpha@v2', ALPHA_V2],
      ['beta@v1', BETA_V1],
    ] as const) {
      const got = report.arms.find((a) => a.arm === arm)!;
      const want = expectedArm(specs);
      for (const [key, value] of Object.entries(want)) expect([arm, key, got[key as keyof ArmJson]]).toEqual([arm, key, expect.closeTo(value, 9)]);
    }
    // Its failed record is 1 of 8 episodes, and leaves task 3 one scored sample.
    expect(report.arms.find((a) => a.arm === 'alpha@v1')!.flags.sort()).toEqual(['failed_episodes', 'non_integral_k']);
    expect(report.arms.find((a) => a.arm === 'alpha@v2')!.flags).toEqual([]);
    expect(report.arms.find((a) => a.arm === 'beta@v1')!.flags.sort()).toEqual(['duplicate_samples', 'no_finish_reason', 'non_integral_k']);
    expect(report.arms.find((a) => a.arm === 'beta@v1')!.k).toBe(2.25);

    expect(report.comparisons.map((c) => c.arm)).toEqual(['alpha@v2', 'beta@v1']);
    for (const [arm, specs] of [
      ['alpha@v2', ALPHA_V2],
      ['beta@v1', BETA_V1],
    ] as const) {
      const got = report.comparisons.find((c) => c.arm === arm)!;
      const want = expectedComparison(specs, ALPHA_V1);
      expect(got.baseline).toBe('alpha@v1');
      expect(got.n).toBe(want.n);
      expect(got.better).toBe(want.better);
      for (const key of ['delta', 'se', 'ci_low', 'ci_high'] as const) expect([arm, key, got[key]]).toEqual([arm, key, expect.closeTo(want[key], 9)]);
      expect(got.significant).toBe(want.ci_low > 0 || want.ci_high < 0);
    }
  });

  it('prints SE and the 95% CI under their own names, and Markdown on request', () => {
    const r = geolab(['eval', 'report', join(root, 'run-a'), join(root, 'sweep'), '--baseline', 'alpha@v1']);
    // alpha@v1 is flagged (failed_episodes): the report is printed all the same.
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('95% CI = delta +/- 1.96 SE');
    const want = expectedComparison(ALPHA_V2, ALPHA_V1);
    const sign = (v: number) => `${v >= 0 ? '+' : ''}${v.toFixed(4)}`;
    expect(r.stdout).toContain(`[${sign(want.ci_low)}, ${sign(want.ci_high)}]`);
    expect(r.stdout).toContain(`${want.better}/${want.n}`);
    const md = geolab(['eval', 'report', join(root, 'sweep'), '--markdown']);
    expect(md.code).toBe(0);
    expect(md.stdout).toContain('| arm | scored | failed | tasks | k | mean@k |');
    expect(md.stdout).toContain(`| alpha@v2 | 8 | 0 | 4 | 2.00 | ${expectedArm(ALPHA_V2).mean_of_k.toFixed(4)} |`);
  });

  it('adds a per-country breakdown with --by country', () => {
    const r = geolab(['eval', 'report', join(root, 'sweep'), '--by', 'country', '--json']);
    expect(r.code).toBe(0);
    const by = (JSON.parse(r.stdout) as { by: { key: string; rows: { arm: string; group: string; tasks: number; mean_of_k: number }[] } }).by;
    expect(by.key).toBe('country');
    const chile = by.rows.find((row) => row.group === 'Chile')!;
    expect(chile.tasks).toBe(1);
    expect(chile.mean_of_k).toBeCloseTo(avg(ALPHA_V2.filter((s) => s.task === 1).map((s) => reference(s.km, s.cost ?? 0))), 9);
  });

  it('groups by Natural Earth continent with --by continent', () => {
    const r = geolab(['eval', 'report', join(root, 'sweep'), '--by', 'continent', '--json']);
    expect(r.code).toBe(0);
    const by = (JSON.parse(r.stdout) as { by: { key: string; rows: { arm: string; group: string; tasks: number; mean_of_k: number }[] } }).by;
    expect(by.key).toBe('continent');
    const southAmerica = by.rows.find((row) => row.group === 'South America')!;
    const tasks = [...new Set(ALPHA_V2.filter((s) => SOUTH_AMERICA.has(s.country ?? COUNTRIES[s.task % 4]!)).map((s) => s.task))];
    expect(southAmerica.tasks).toBe(tasks.length);
    const perTask = tasks.map((t) => avg(ALPHA_V2.filter((s) => s.task === t).map((s) => reference(s.km, s.cost ?? 0))));
    expect(southAmerica.mean_of_k).toBeCloseTo(avg(perTask), 9);
    expect(geolab(['eval', 'report', join(root, 'sweep'), '--by', 'planet']).code).toBe(2);
  });

  it('refuses bad input with exit 2 and the file:line of the bad record', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'episodes.jsonl'), JSON.stringify(record({ model: 'm', prompt: 'v1', task: 0, sample: 0, km: 5 })) + '\n{"schema_version": 2}\n');
    const r = geolab(['eval', 'report', dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${join(dir, 'episodes.jsonl')}:2`);
    expect(r.stderr).not.toContain('    at ');
    const unknown = geolab(['eval', 'report', root, '--baseline', 'gamma']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('alpha@v1, alpha@v2, beta@v1');
    const ambiguous = geolab(['eval', 'report', root, '--baseline', 'alpha']);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain('names 2 arms');
  });
});

describe('geolab episodes import of run trees, and the report over the workspace', () => {
  it('imports a whole tree (failed episodes included) idempotently, each episode in its run', () => {
    const home = tempDir();
    const all = ALPHA_V1.length + ALPHA_V2.length + BETA_V1.length;
    const first = geolab(['episodes', 'import', root, '--json'], { home });
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const result = JSON.parse(first.stdout) as { files: { file: string }[]; new: number; already_present: number };
    expect(result.files).toHaveLength(5);
    expect([result.new, result.already_present]).toEqual([all, 0]);
    const again = JSON.parse(geolab(['episodes', 'import', root, join(root, 'run-a', 'episodes.jsonl'), '--json'], { home }).stdout) as typeof result;
    expect([again.new, again.already_present]).toEqual([0, all + ALPHA_V1.length]);

    const runs = (run: string) => (JSON.parse(geolab(['episodes', 'list', '--run', run, '--limit', '0', '--json'], { home }).stdout) as unknown[]).length;
    expect([runs('run-a'), runs('sweep'), runs('run-c')]).toEqual([ALPHA_V1.length, ALPHA_V2.length, BETA_V1.length]);
    const failed = JSON.parse(geolab(['episodes', 'list', '--search', 'endpoint down', '--json'], { home }).stdout) as { state: string }[];
    expect(failed).toHaveLength(1);
    // Every completed record stores 0.123 as its reward; failed ones have none.
    const rewarded = (run: string, min: string) =>
      (JSON.parse(geolab(['episodes', 'list', '--run', run, '--min-reward', min, '--limit', '0', '--json'], { home }).stdout) as unknown[]).length;
    expect([rewarded('run-a', '0.1'), rewarded('run-c', '0.1'), rewarded('run-a', '0.2')]).toEqual([ALPHA_V1.length - 1, BETA_V1.length, 0]);

    const fromFiles = JSON.parse(geolab(['eval', 'report', join(root, 'run-a'), join(root, 'sweep'), '--json', '--baseline', 'alpha@v1']).stdout) as object;
    const fromWorkspace = geolab(['eval', 'report', '--workspace', '--run', 'run-a', 'sweep', '--json', '--baseline', 'alpha@v1'], { home });
    // alpha@v1's failed episode flags it, from either source.
    expect(fromWorkspace.code).toBe(1);
    expect(JSON.parse(fromWorkspace.stdout)).toEqual(fromFiles);
    const everything = geolab(['--workspace', home, 'eval', 'report', '--json'], { home: tempDir() });
    expect(everything.code).toBe(1);
    // The new workspace's seeded demo episode is an arm of its own.
    expect((JSON.parse(everything.stdout) as { arms: { arm: string }[] }).arms.map((a) => a.arm)).toEqual(expect.arrayContaining(['alpha@v1', 'alpha@v2', 'beta@v1']));
    const unknownRun = geolab(['eval', 'report', '--workspace', '--run', 'nope'], { home });
    expect(unknownRun.code).toBe(2);
    expect(unknownRun.stderr).toContain('run "nope" is not in the workspace');
  });
});

describe('failed episodes are counted and in no statistic', () => {
  // gamma: 30 tasks x 3 samples, all scored; then 7 failed records: tasks 30-32 failed outright (as the
  // issue's tree: 33 tasks shown for 30), task 5's sample 1 failed once before its re-played success.
  // base: the same 33 tasks all scored, so a task that failed in gamma would pair as a 0 if let in.
  const km = (task: number, sample: number) => ((task * 7919 + sample * 104_729) % 400) / 4;
  const scored = (model: string, tasks: number): Spec[] =>
    Array.from({ length: tasks * 3 }, (_, i) => {
      const [task, sample] = [Math.floor(i / 3), i % 3];
      return { model, prompt: 'v1', task, sample, km: model === 'base' ? km(task, sample) * 1.5 : km(task, sample), cost: 0.01 * sample };
    });
  const GAMMA = scored('gamma', 30);
  const BASE = scored('base', 33);
  const FAILURES: Spec[] = [
    ...[30, 31, 32].flatMap((task) => [0, 1].map((sample) => ({ model: 'gamma', prompt: 'v1', task, sample, km: 'failed' as const }))),
    { model: 'gamma', prompt: 'v1', task: 5, sample: 1, km: 'failed' },
  ];
  const SUCCESS_KM = 25;

  // Written out again from docs/eval.md, not from src/core/stats.ts.
  const choose = (n: number, k: number) => {
    let r = 1;
    for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i;
    return k < 0 || k > n ? 0 : r;
  };
  function expectedStats(specs: Spec[], successKm: number) {
    const byTask = new Map<number, Spec[]>();
    for (const s of specs) if (s.km !== 'failed') byTask.set(s.task, [...(byTask.get(s.task) ?? []), s]);
    const means = [...byTask.values()].map((list) => avg(list.map((s) => reference(s.km, s.cost ?? 0))));
    const m = avg(means);
    const se = Math.sqrt(means.reduce((acc, x) => acc + (x - m) ** 2, 0) / (means.length - 1)) / Math.sqrt(means.length);
    const k = Math.min(...[...byTask.values()].map((l) => l.length));
    const pass = (kk: number) =>
      avg([...byTask.values()].map((l) => 1 - choose(l.length - l.filter((s) => (s.km as number) <= successKm).length, kk) / choose(l.length, kk)));
    return { tasks: byTask.size, mean_of_k: m, mean_of_k_se: se, mean_of_k_ci_low: m - 1.96 * se, mean_of_k_ci_high: m + 1.96 * se, pass_k: k, pass_at_1: pass(1), pass_at_k: pass(k) };
  }

  function report(specs: Spec[], extra: string[] = []) {
    const dir = tempDir();
    // The failures among the rest, as a sweep's shards hold them.
    writeRun(join(dir, 'pass-0', 'shard-0'), specs.filter((_, i) => i % 2 === 0));
    writeRun(join(dir, 'pass-0', 'shard-1'), specs.filter((_, i) => i % 2 === 1));
    const r = geolab(['eval', 'report', dir, '--json', '--baseline', 'base@v1', ...extra]);
    expect(r.stderr).toBe('');
    return { code: r.code, report: JSON.parse(r.stdout) as { success_km: number; arms: (ArmJson & Record<string, unknown>)[]; comparisons: ComparisonJson[] } };
  }

  it('gives the same per-arm numbers and pairs with and without the failed records', () => {
    const without = report([...BASE, ...GAMMA]);
    const withFailures = report([...BASE, ...GAMMA.slice(0, 20), ...FAILURES, ...GAMMA.slice(20)]);
    const [a, b] = [without.report.arms.find((x) => x.arm === 'gamma@v1')!, withFailures.report.arms.find((x) => x.arm === 'gamma@v1')!];
    expect([a.failed, b.failed]).toEqual([0, FAILURES.length]);
    expect([a.episodes, b.episodes]).toEqual([90, 90]);
    expect([a.tasks, b.tasks]).toEqual([30, 30]);
    // 7 of 97 episodes failed: over 2%. The failed record beside its success is no duplicate sample.
    expect([a.flags, b.flags]).toEqual([[], ['failed_episodes']]);
    expect({ ...b, failed: 0, flags: [] }).toEqual(a);
    expect(withFailures.report.arms.find((x) => x.arm === 'base@v1')).toEqual(without.report.arms.find((x) => x.arm === 'base@v1'));
    // Only the 30 tasks gamma scored pair with base; none of the failed ones enters as a 0.
    expect(withFailures.report.comparisons).toEqual(without.report.comparisons);
    const c = withFailures.report.comparisons[0]!;
    const want = expectedComparison(GAMMA, BASE);
    expect(c.n).toBe(30);
    expect(c.better).toBe(want.better);
    expect(c.delta).toBeCloseTo(want.delta, 12);
    expect(c.se).toBeCloseTo(want.se, 12);

    const expected = expectedStats([...GAMMA, ...FAILURES], SUCCESS_KM);
    expect(expected.pass_k).toBe(3);
    expect(expectedArm([...GAMMA, ...FAILURES]).mean_of_k).toBeCloseTo(expected.mean_of_k, 12);
    for (const [key, value] of Object.entries(expected)) expect([key, b[key]]).toEqual([key, expect.closeTo(value, 12)]);
    expect(withFailures.report.success_km).toBe(SUCCESS_KM);
    expect(b.success_km).toBe(SUCCESS_KM);
    expect(withFailures.code).toBe(1);
    expect(without.code).toBe(0);
  });

  it('takes pass@k at --success-km and labels it with the threshold', () => {
    const { report: r } = report([...BASE, ...GAMMA, ...FAILURES], ['--success-km', '60']);
    const gamma = r.arms.find((x) => x.arm === 'gamma@v1')!;
    const expected = expectedStats([...GAMMA, ...FAILURES], 60);
    expect([r.success_km, gamma.success_km]).toEqual([60, 60]);
    expect(gamma.pass_at_1).toBeCloseTo(expected.pass_at_1, 12);
    expect(gamma.pass_at_k).toBeCloseTo(expected.pass_at_k, 12);
    expect(gamma.pass_at_k).not.toBeCloseTo(expectedStats(GAMMA, 25).pass_at_k, 3);

    const dir = tempDir();
    writeRun(dir, [...BASE, ...GAMMA, ...FAILURES]);
    const text = geolab(['eval', 'report', dir, '--success-km', '60', '--baseline', 'base@v1']);
    expect(text.stdout).toMatch(/pass@1<=60km +pass@3<=60km/);
    expect(text.stdout).toMatch(new RegExp(`gamma@v1 +90 +7 +30 +3\\.00 +${expected.mean_of_k.toFixed(4)} +${expected.mean_of_k_se.toFixed(4)} +\\[${expected.mean_of_k_ci_low.toFixed(4)}, ${expected.mean_of_k_ci_high.toFixed(4)}\\]`));
    expect(text.stderr).toContain('gamma@v1 (failed_episodes)');
    const md = geolab(['eval', 'report', dir, '--markdown']);
    expect(md.stdout).toContain('| pass@1<=25km | pass@3<=25km |');
    expect(md.stdout).toMatch(/\| gamma@v1 \| 90 \| 7 \| 30 \|/);
    expect(geolab(['eval', 'report', dir, '--success-km', '-1']).code).toBe(2);
  });

  it('gives pass@1 one column when every arm has one attempt a task (pass@k would repeat it)', () => {
    const dir = tempDir();
    writeRun(dir, ALPHA_V1.filter((spec) => spec.sample === 0));
    const text = geolab(['eval', 'report', dir]);
    expect(text.stdout).toMatch(/best@k +pass@1<=25km +median km/);
    expect(geolab(['eval', 'report', dir, '--markdown']).stdout).toContain('| best@k | pass@1<=25km | median km |');
  });

  it('shows two identical arms as tied, not better on some tasks', () => {
    const dir = tempDir();
    // A nanometre farther: rewards that differ in the 13th digit, noise and nothing else.
    const twin = GAMMA.map((s) => ({ ...s, model: 'twin', km: (s.km as number) + 1e-9 }));
    writeRun(dir, [...GAMMA, ...twin]);
    const r = JSON.parse(geolab(['eval', 'report', dir, '--json', '--baseline', 'gamma@v1']).stdout) as { comparisons: ComparisonJson[] };
    expect(r.comparisons).toEqual([expect.objectContaining({ arm: 'twin@v1', n: 30, delta: 0, better: 0, worse: 0, ties: 30, significant: false })]);
  });
});

describe('the workspace report of a sweep run equals the report of its folder', () => {
  it('leaves out superseded records and the leftovers of a killed process, as the folder does', async () => {
    const home = tempDir();
    const out = join(tempDir(), 'sweep');
    const spec = (task: number, sample: number, km?: Spec['km']): Spec => ({ model: 'qwen', prompt: 'v1', task, sample, km, cost: 0.02 });
    const failedAs = (s: Spec, failure: string) => ({ ...record(s), failure }) as object;
    // What the recorder did: every record into the workspace, then (unless killed first) a line into the folder.
    const ws = await openWorkspace(home, { seedDemo: false });
    const file = (sample: number) => join(out, `pass-${sample}`, 'shard-0', 'episodes.jsonl');
    const written: { rec: object; inFolder: boolean }[] = [];
    const recorded = (rec: object, inFolder = true) => written.push({ rec, inFolder });
    try {
      // The first process: 0/0 done; 0/1 aborted by Ctrl-C; 1/0 finished but killed before its line;
      // 1/1 had its endpoint gone and its line torn; 2/0 failed as the harness fails (settled, not replayed).
      recorded(record(spec(0, 0, 30)));
      const aborted = failedAs(spec(0, 1, 'failed'), 'aborted');
      recorded(aborted);
      recorded(record(spec(1, 0, 10)), false);
      recorded(failedAs(spec(1, 1, 'failed'), 'unreachable'), false);
      recorded(record(spec(2, 0, 'failed')));
      // The re-run: 0/1 played again (the aborted record went to superseded.jsonl and left the run),
      // 1/0 and 1/1 played again, the rest played; 3/1 aborted by another Ctrl-C, not yet resumed.
      recorded(record(spec(0, 1, 900)));
      recorded(record(spec(1, 0, 2500)));
      recorded(record(spec(1, 1, 20)));
      recorded(record(spec(2, 1, 400)));
      recorded(record(spec(3, 0, 5)));
      recorded(failedAs(spec(3, 1, 'failed'), 'aborted'));

      ensureEvalRun(ws.db, { id: 'sw', root: out, config: { sweep: out, split: 'eval', passes: 2 } });
      for (const sample of [0, 1]) mkdirSync(join(out, `pass-${sample}`, 'shard-0'), { recursive: true });
      for (const { rec, inFolder } of written) {
        saveEpisode(ws.db, rec as EpisodeRecord, { runId: 'sw' });
        const r = rec as { task: { sample: number } };
        if (inFolder && rec !== aborted) appendFileSync(file(r.task.sample), JSON.stringify(rec) + '\n');
      }
      appendFileSync(join(out, 'pass-1', 'shard-0', 'superseded.jsonl'), JSON.stringify(aborted) + '\n');
      detachFromRun(ws.db, [(aborted as { episode_id: string }).episode_id]);
    } finally {
      ws.close();
    }

    const fromFolder = geolab(['eval', 'report', out, '--json']);
    const fromWorkspace = geolab(['eval', 'report', '--workspace', '--run', 'sw', '--json'], { home });
    expect(fromWorkspace.stderr).toBe('');
    expect([fromFolder.code, fromWorkspace.code]).toEqual([1, 1]);
    const [a, b] = [JSON.parse(fromFolder.stdout) as { arms: ArmJson[] }, JSON.parse(fromWorkspace.stdout) as { arms: ArmJson[] }];
    expect(b).toEqual(a);
    // And both are the folder's episodes: 6 scored, the harness failure and the last Ctrl-C's failed.
    const folder = [spec(0, 0, 30), spec(0, 1, 900), spec(1, 0, 2500), spec(1, 1, 20), spec(2, 0, 'failed'), spec(2, 1, 400), spec(3, 0, 5), spec(3, 1, 'failed')];
    const want = expectedArm(folder);
    const got = b.arms[0]!;
    for (const [key, value] of Object.entries(want)) expect([key, got[key as keyof ArmJson]]).toEqual([key, expect.closeTo(value, 9)]);
    expect(got.flags.sort()).toEqual(['failed_episodes', 'non_integral_k']);
  });
});
