/**
 * The eval report (docs/eval.md): plain episode facts in, one row per arm, paired comparisons and
 * integrity flags out. A failed episode (the harness could not finish it) is in no statistic: it is
 * counted per arm and flagged past a share, as the public harness keeps errored records apart. Every score is recomputed from distance and cost on the
 * reference curve; the stored reward is never read, since runs disagree on which curve they stored.
 */
import { gameScore, referenceReward, rewardAfterCost } from '../core/scoring.js';
import { countryByName } from '../geo/countries.js';
import { attemptsPerTask, bestOfK, groupByTask, mean, meanOfK, meanOfKWithSpread, meanPassAtK, median, pairedComparison, type TaskValue } from '../core/stats.js';

/** What the report needs of one episode; readers (files, workspace) build these at the edge. */
export interface EpisodeFacts {
  episodeId: string;
  model: string;
  promptVersion: string;
  /** `${split}/${index}`: the same task across arms. */
  taskKey: string;
  sample: number | null;
  country: string | null;
  /** The harness could not finish the episode: counted apart, in no statistic (not scored 0). */
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

/** Above this share of model turns without a finish_reason an arm's numbers are not trusted (docs/eval.md). */
export const MAX_NO_FINISH_SHARE = 0.02;

/** Above this share of failed episodes an arm's scored episodes may not stand for its tasks (docs/eval.md). */
export const MAX_FAILED_SHARE = 0.02;

/** pass@k counts an attempt a success within this distance unless `--success-km` says otherwise. */
export const DEFAULT_SUCCESS_KM = 25;

/** A report's number as `geolab eval report` and the Eval board print it ("-" when there is none). */
export function fixed(v: number, digits: number): string {
  return Number.isFinite(v) ? v.toFixed(digits) : '-';
}

/** A report's difference, with its sign ("+0.0123"). */
export function signed(v: number, digits: number): string {
  return Number.isFinite(v) ? `${v >= 0 ? '+' : ''}${v.toFixed(digits)}` : '-';
}

/** A distance as a threshold label: "25km", "2.5km". */
export function kmLabel(km: number): string {
  return `${Number.isInteger(km) ? km : Number(km.toPrecision(6))}km`;
}

/**
 * pass@k's column title and cells: "pass@2<=25km" when every arm has the same k, else
 * "pass@k<=25km" with each cell naming its k ("0.5000 (k=3)"); null when every arm's k is 1, where
 * the column would repeat pass@1's.
 */
export function passAtKColumn(arms: readonly ArmRow[], successKm: number): { title: string; cell: (a: ArmRow) => string } | null {
  const ks = new Set(arms.map((a) => a.pass_k).filter((k) => Number.isFinite(k)));
  const only = ks.size === 1 ? ([...ks][0] as number) : null;
  if (only === 1 && arms.every((a) => a.pass_k === 1)) return null;
  return {
    title: `pass@${only ?? 'k'}<=${kmLabel(successKm)}`,
    cell: (a) => (only !== null || !Number.isFinite(a.pass_k) ? fixed(a.pass_at_k, 4) : `${fixed(a.pass_at_k, 4)} (k=${a.pass_k})`),
  };
}

/** "[+0.3012, +0.4100]": a CI as the report prints it. */
export function interval(low: number, high: number): string {
  return `[${fixed(low, 4)}, ${fixed(high, 4)}]`;
}

export type ArmFlag = 'no_finish_reason' | 'duplicate_samples' | 'non_integral_k' | 'failed_episodes';

export interface ArmRow {
  arm: string;
  model: string;
  prompt_version: string;
  /** Scored episodes: those with an outcome. Every statistic below is over these alone. */
  episodes: number;
  /** Episodes the harness could not finish: counted here, in no statistic. */
  failed: number;
  /** Tasks with at least one scored episode. */
  tasks: number;
  /** Scored episodes per task. */
  k: number;
  mean_of_k: number;
  /** Standard error of mean_of_k over tasks (sd of the per-task means / sqrt(tasks)). Not a CI. */
  mean_of_k_se: number;
  /** 95% CI of mean_of_k = mean_of_k -/+ 1.96 SE. */
  mean_of_k_ci_low: number;
  mean_of_k_ci_high: number;
  best_of_k: number;
  /** The distance within which pass@k counts an attempt a success. */
  success_km: number;
  /** Unbiased pass@1 at success_km: mean over tasks of the share of attempts within it. */
  pass_at_1: number;
  /** The k of pass_at_k: the fewest scored attempts of any task (the sweep's k when it is whole). */
  pass_k: number;
  /** Unbiased pass@k at success_km, 1 - C(n-c, k)/C(n, k) per task, averaged over tasks. */
  pass_at_k: number;
  median_km: number;
  /** Percent of scored episodes (no guess is not within any distance). */
  within_25km: number;
  within_200km: number;
  within_750km: number;
  /** Percent among episodes with a country verdict. */
  country_pct: number;
  /** Means over scored episodes. */
  turns: number;
  looks: number;
  moves: number;
  pins: number;
  cost: number;
  /** Percent of scored episodes whose game-curve reward (subtract mode, the environment's default) is 0. */
  env_floor_pct: number;
  no_guess_pct: number;
  forced_pct: number;
  /** Mean output tokens per scored episode. */
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
  /** Shared tasks on which the arm's mean reward beats the baseline's by more than 1e-9 (TIE_EPSILON). */
  better: number;
  /** Shared tasks on which the baseline's mean beats the arm's by more than 1e-9. */
  worse: number;
  /** Shared tasks whose means are within 1e-9: neither better nor worse. */
  ties: number;
  /** The 95% CI excludes 0. */
  significant: boolean;
}

export interface GroupRow {
  arm: string;
  group: string;
  tasks: number;
  /** Scored episodes; the statistics are over these. */
  episodes: number;
  failed: number;
  mean_of_k: number;
  median_km: number;
}

export interface Report {
  /** The distance within which pass@k counts an attempt a success. */
  success_km: number;
  arms: ArmRow[];
  comparisons: Comparison[];
  by?: { key: Breakdown; rows: GroupRow[] };
}

export interface ReportOptions {
  /** An arm label (`model@prompt`), or a model name that names one arm. */
  baseline?: string;
  by?: Breakdown;
  /** pass@k's success threshold in km (DEFAULT_SUCCESS_KM). */
  successKm?: number;
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

/**
 * The reward boards compare: reference curve, no hierarchy credit, 0 for no guess. A failure has
 * none; 0 here only ranks it among the worst episodes, the report's statistics never see it.
 */
export function referenceOf(e: EpisodeFacts): number {
  return e.failed ? 0 : referenceReward(e.distanceKm, Math.max(0, e.cost));
}

function envFloored(e: EpisodeFacts): boolean {
  return e.distanceKm === null || rewardAfterCost(gameScore(e.distanceKm), Math.max(0, e.cost), 'subtract') === 0;
}

const pct = (part: number, whole: number) => (whole === 0 ? NaN : (100 * part) / whole);
const count = <T>(items: readonly T[], test: (item: T) => boolean) => items.reduce((n, item) => n + (test(item) ? 1 : 0), 0);
const meanOf = (items: readonly EpisodeFacts[], pick: (e: EpisodeFacts) => number | null) =>
  mean(items.map(pick).filter((v): v is number => v !== null));

/** The episodes the statistics are over: those with an outcome. */
export function scoredOf(episodes: readonly EpisodeFacts[]): EpisodeFacts[] {
  return episodes.filter((e) => !e.failed);
}

/** Reference rewards of the scored episodes: a failed episode is not a 0, it is not there. */
function rewards(episodes: readonly EpisodeFacts[]): TaskValue[] {
  return episodes.flatMap((e) => (e.failed ? [] : [{ taskKey: e.taskKey, value: referenceOf(e) }]));
}

function armRow(label: string, episodes: readonly EpisodeFacts[], successKm: number): ArmRow {
  const first = episodes[0] as EpisodeFacts;
  const scored = scoredOf(episodes);
  const failed = episodes.length - scored.length;
  const values = rewards(scored);
  const spread = meanOfKWithSpread(values);
  const distances = scored.flatMap((e) => (e.distanceKm === null ? [] : [e.distanceKm]));
  const within = (km: number) => pct(count(distances, (d) => d <= km), scored.length);
  const verdicts = scored.filter((e) => e.countryHit !== null);
  const k = attemptsPerTask(values);
  const successes = new Map<string, boolean[]>();
  for (const e of scored) {
    const hit = e.distanceKm !== null && e.distanceKm <= successKm;
    const list = successes.get(e.taskKey);
    if (list) list.push(hit);
    else successes.set(e.taskKey, [hit]);
  }
  let passK = NaN;
  for (const attempts of successes.values()) if (!(attempts.length >= passK)) passK = attempts.length;

  const flags: ArmFlag[] = [];
  const modelTurns = scored.reduce((n, e) => n + e.modelTurns, 0);
  const noFinish = scored.reduce((n, e) => n + e.modelTurnsNoFinish, 0);
  if (modelTurns > 0 && noFinish / modelTurns > MAX_NO_FINISH_SHARE) flags.push('no_finish_reason');
  // A failed record beside its re-played success is not a sample scored twice.
  const samples = new Set<string>();
  let duplicated = false;
  for (const e of scored) {
    if (e.sample === null) continue;
    const key = `${e.taskKey}#${e.sample}`;
    if (samples.has(key)) duplicated = true;
    samples.add(key);
  }
  if (duplicated) flags.push('duplicate_samples');
  if (!Number.isInteger(k)) flags.push('non_integral_k');
  if (failed / episodes.length > MAX_FAILED_SHARE) flags.push('failed_episodes');

  return {
    arm: label,
    model: first.model,
    prompt_version: first.promptVersion,
    episodes: scored.length,
    failed,
    tasks: groupByTask(values).size,
    k,
    mean_of_k: spread.mean,
    mean_of_k_se: spread.se,
    mean_of_k_ci_low: spread.ci95[0],
    mean_of_k_ci_high: spread.ci95[1],
    best_of_k: bestOfK(values),
    success_km: successKm,
    pass_at_1: meanPassAtK(successes, 1),
    pass_k: passK,
    pass_at_k: Number.isFinite(passK) ? meanPassAtK(successes, passK) : NaN,
    median_km: median(distances),
    within_25km: within(25),
    within_200km: within(200),
    within_750km: within(750),
    country_pct: pct(count(verdicts, (e) => e.countryHit === true), verdicts.length),
    turns: meanOf(scored, (e) => e.turns),
    looks: meanOf(scored, (e) => e.looks),
    moves: meanOf(scored, (e) => e.moves),
    pins: meanOf(scored, (e) => e.pins),
    cost: meanOf(scored, (e) => e.cost),
    env_floor_pct: pct(count(scored, envFloored), scored.length),
    no_guess_pct: pct(count(scored, (e) => e.distanceKm === null), scored.length),
    forced_pct: pct(count(scored, (e) => e.forced), scored.length),
    tokens_out: meanOf(scored, (e) => e.tokensOut),
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
  const successKm = options.successKm ?? DEFAULT_SUCCESS_KM;
  const report: Report = { success_km: successKm, arms: [...arms].map(([label, episodes]) => armRow(label, episodes, successKm)), comparisons: [] };
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
        worse: c.worse,
        ties: c.ties,
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
      tasks: groupByTask(rewards(list)).size,
      episodes: count(list, (e) => !e.failed),
      failed: count(list, (e) => e.failed),
      mean_of_k: meanOfK(rewards(list)),
      median_km: median(list.flatMap((e) => (e.failed || e.distanceKm === null ? [] : [e.distanceKm]))),
    }));
}
