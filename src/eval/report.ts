/**
 * The eval report (issue 12 §3, DESIGN §4): plain episode facts in, one row per arm, paired
 * comparisons and integrity flags out. Every score is recomputed from distance and cost on the
 * reference curve; the stored reward is never read, since runs disagree on which curve they stored.
 */
import { gameScore, referenceReward, rewardAfterCost } from '../core/scoring.js';
import { countryByName } from '../geo/countries.js';
import { attemptsPerTask, bestOfK, mean, meanOfK, median, pairedComparison, type TaskValue } from '../core/stats.js';

/** What the report needs of one episode; readers (files, workspace) build these at the edge. */
export interface EpisodeFacts {
  episodeId: string;
  model: string;
  promptVersion: string;
  /** `${split}/${index}`: the same task across arms. */
  taskKey: string;
  sample: number | null;
  country: string | null;
  /** The harness could not finish the episode: a failure scored 0, never left out. */
  failed: boolean;
  /** null: no usable guess. */
  distanceKm: number | null;
  cost: number;
  countryHit: boolean | null;
  forced: boolean;
  turns: number | null;
  looks: number | null;
  moves: number | null;
  pins: number | null;
  tokensOut: number | null;
  /** Turns the model answered, and those among them with no finish_reason (a truncated or broken reply). */
  modelTurns: number;
  modelTurnsNoFinish: number;
}

/** Above this share of model turns without a finish_reason an arm's numbers are not trusted (DESIGN §4). */
export const MAX_NO_FINISH_SHARE = 0.02;

/** A report's number as `geolab eval report` and the Eval board print it ("-" when there is none). */
export function fixed(v: number, digits: number): string {
  return Number.isFinite(v) ? v.toFixed(digits) : '-';
}

/** A report's difference, with its sign ("+0.0123"). */
export function signed(v: number, digits: number): string {
  return Number.isFinite(v) ? `${v >= 0 ? '+' : ''}${v.toFixed(digits)}` : '-';
}

export type ArmFlag = 'no_finish_reason' | 'duplicate_samples' | 'non_integral_k';

export interface ArmRow {
  arm: string;
  model: string;
  prompt_version: string;
  episodes: number;
  tasks: number;
  k: number;
  mean_of_k: number;
  best_of_k: number;
  median_km: number;
  /** Percent of all the arm's episodes (a failure or no guess is not within any distance). */
  within_25km: number;
  within_200km: number;
  within_750km: number;
  /** Percent among episodes with a country verdict. */
  country_pct: number;
  /** Means over completed episodes. */
  turns: number;
  looks: number;
  moves: number;
  pins: number;
  cost: number;
  /** Percent of episodes whose game-curve reward (subtract mode, the environment's default) is 0. */
  env_floor_pct: number;
  no_guess_pct: number;
  forced_pct: number;
  /** Mean output tokens per completed episode. */
  tokens_out: number;
  flags: ArmFlag[];
}

export interface Comparison {
  arm: string;
  baseline: string;
  n: number;
  delta: number;
  /** Standard error of delta; not a confidence interval. */
  se: number;
  /** 95% CI = delta -/+ 1.96 SE. */
  ci_low: number;
  ci_high: number;
  /** Shared tasks on which the arm's mean reward beats the baseline's. */
  better: number;
  /** The 95% CI excludes 0. */
  significant: boolean;
}

export interface GroupRow {
  arm: string;
  group: string;
  tasks: number;
  episodes: number;
  mean_of_k: number;
  median_km: number;
}

export interface Report {
  arms: ArmRow[];
  comparisons: Comparison[];
  by?: { key: Breakdown; rows: GroupRow[] };
}

export interface ReportOptions {
  /** An arm label (`model@prompt`), or a model name that names one arm. */
  baseline?: string;
  by?: Breakdown;
}

export type Breakdown = 'country' | 'continent';

/** An episode's group: its task's country label, or that country's Natural Earth continent. */
export function groupOf(country: string | null, by: Breakdown): string {
  if (country === null) return '(unknown)';
  return by === 'country' ? country : (countryByName(country)?.continent ?? '(unknown)');
}

export function armLabel(model: string, promptVersion: string): string {
  return `${model}@${promptVersion}`;
}

/** The reward boards compare: reference curve, no hierarchy credit, 0 for a failure or no guess. */
export function referenceOf(e: EpisodeFacts): number {
  return e.failed ? 0 : referenceReward(e.distanceKm, Math.max(0, e.cost));
}

function envFloored(e: EpisodeFacts): boolean {
  return e.failed || e.distanceKm === null || rewardAfterCost(gameScore(e.distanceKm), Math.max(0, e.cost), 'subtract') === 0;
}

const pct = (part: number, whole: number) => (whole === 0 ? NaN : (100 * part) / whole);
const count = <T>(items: readonly T[], test: (item: T) => boolean) => items.reduce((n, item) => n + (test(item) ? 1 : 0), 0);
const meanOf = (items: readonly EpisodeFacts[], pick: (e: EpisodeFacts) => number | null) =>
  mean(items.map(pick).filter((v): v is number => v !== null));

function rewards(episodes: readonly EpisodeFacts[]): TaskValue[] {
  return episodes.map((e) => ({ taskKey: e.taskKey, value: referenceOf(e) }));
}

function armRow(label: string, episodes: readonly EpisodeFacts[]): ArmRow {
  const first = episodes[0] as EpisodeFacts;
  const values = rewards(episodes);
  const completed = episodes.filter((e) => !e.failed);
  const distances = episodes.flatMap((e) => (e.failed || e.distanceKm === null ? [] : [e.distanceKm]));
  const within = (km: number) => pct(count(distances, (d) => d <= km), episodes.length);
  const verdicts = completed.filter((e) => e.countryHit !== null);
  const k = attemptsPerTask(values);

  const flags: ArmFlag[] = [];
  const modelTurns = episodes.reduce((n, e) => n + e.modelTurns, 0);
  const noFinish = episodes.reduce((n, e) => n + e.modelTurnsNoFinish, 0);
  if (modelTurns > 0 && noFinish / modelTurns > MAX_NO_FINISH_SHARE) flags.push('no_finish_reason');
  const samples = new Set<string>();
  let duplicated = false;
  for (const e of episodes) {
    if (e.sample === null) continue;
    const key = `${e.taskKey}#${e.sample}`;
    if (samples.has(key)) duplicated = true;
    samples.add(key);
  }
  if (duplicated) flags.push('duplicate_samples');
  if (!Number.isInteger(k)) flags.push('non_integral_k');

  return {
    arm: label,
    model: first.model,
    prompt_version: first.promptVersion,
    episodes: episodes.length,
    tasks: new Set(episodes.map((e) => e.taskKey)).size,
    k,
    mean_of_k: meanOfK(values),
    best_of_k: bestOfK(values),
    median_km: median(distances),
    within_25km: within(25),
    within_200km: within(200),
    within_750km: within(750),
    country_pct: pct(count(verdicts, (e) => e.countryHit === true), verdicts.length),
    turns: meanOf(completed, (e) => e.turns),
    looks: meanOf(completed, (e) => e.looks),
    moves: meanOf(completed, (e) => e.moves),
    pins: meanOf(completed, (e) => e.pins),
    cost: meanOf(completed, (e) => e.cost),
    env_floor_pct: pct(count(episodes, envFloored), episodes.length),
    no_guess_pct: pct(count(episodes, (e) => e.failed || e.distanceKm === null), episodes.length),
    forced_pct: pct(count(episodes, (e) => e.forced), episodes.length),
    tokens_out: meanOf(completed, (e) => e.tokensOut),
    flags,
  };
}

/** The arms in label order, episodes by task and sample; an episode id met twice (the same file read twice) counts once. */
export function groupArms(episodes: Iterable<EpisodeFacts>): Map<string, EpisodeFacts[]> {
  const seen = new Set<string>();
  const arms = new Map<string, EpisodeFacts[]>();
  for (const e of episodes) {
    if (seen.has(e.episodeId)) continue;
    seen.add(e.episodeId);
    const label = armLabel(e.model, e.promptVersion);
    const list = arms.get(label);
    if (list) list.push(e);
    else arms.set(label, [e]);
  }
  // Sums in one order whatever the reading order (files or workspace), so the same episodes give the same digits.
  for (const list of arms.values()) list.sort(byTaskThenSample);
  return new Map([...arms].sort(([a], [b]) => compare(a, b)));
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function byTaskThenSample(a: EpisodeFacts, b: EpisodeFacts): number {
  return compare(a.taskKey, b.taskKey) || (a.sample ?? -1) - (b.sample ?? -1) || compare(a.episodeId, b.episodeId);
}

/** Which arm `--baseline` names: a full label, or a model name with exactly one arm. */
export function resolveBaseline(labels: readonly string[], wanted: string): string | { error: string } {
  if (labels.includes(wanted)) return wanted;
  const byModel = labels.filter((label) => label.slice(0, label.lastIndexOf('@')) === wanted);
  if (byModel.length === 1) return byModel[0] as string;
  if (byModel.length > 1) return { error: `baseline "${wanted}" names ${byModel.length} arms (${byModel.join(', ')}): give one as model@prompt_version` };
  return { error: `baseline "${wanted}" is not an arm of this report; arms: ${labels.join(', ') || '(none)'}` };
}

export function buildReport(arms: ReadonlyMap<string, readonly EpisodeFacts[]>, baseline: string | undefined, options: ReportOptions = {}): Report {
  const report: Report = { arms: [...arms].map(([label, episodes]) => armRow(label, episodes)), comparisons: [] };
  if (baseline !== undefined) {
    const base = rewards(arms.get(baseline) ?? []);
    for (const [label, episodes] of arms) {
      if (label === baseline) continue;
      const c = pairedComparison(rewards(episodes), base);
      report.comparisons.push({
        arm: label,
        baseline,
        n: c.n,
        delta: c.delta,
        se: c.se,
        ci_low: c.ci95[0],
        ci_high: c.ci95[1],
        better: c.better,
        significant: c.ci95[0] > 0 || c.ci95[1] < 0,
      });
    }
  }
  if (options.by) {
    const by = options.by;
    report.by = { key: by, rows: [...arms].flatMap(([label, episodes]) => groupRows(label, episodes, (e) => groupOf(e.country, by))) };
  }
  return report;
}

/** One arm's episodes in groups (a country, a verdict...), in group order. */
export function groupRows(label: string, episodes: readonly EpisodeFacts[], groupOfEpisode: (e: EpisodeFacts) => string): GroupRow[] {
  const groups = new Map<string, EpisodeFacts[]>();
  for (const e of episodes) {
    const group = groupOfEpisode(e);
    const list = groups.get(group);
    if (list) list.push(e);
    else groups.set(group, [e]);
  }
  return [...groups]
    .sort(([a], [b]) => compare(a, b))
    .map(([group, list]) => ({
      arm: label,
      group,
      tasks: new Set(list.map((e) => e.taskKey)).size,
      episodes: list.length,
      mean_of_k: meanOfK(rewards(list)),
      median_km: median(list.flatMap((e) => (e.failed || e.distanceKm === null ? [] : [e.distanceKm]))),
    }));
}
