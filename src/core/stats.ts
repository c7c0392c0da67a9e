/**
 * Evaluation statistics (docs/eval.md). Every function returns NaN where a statistic is undefined
 * (the mean of nothing, the spread of one value) instead of null, so results stay plain numbers;
 * NaN becomes null in JSON and a dash on screen.
 */

/** One episode's value of some metric (reward, km, ...) on one task. */
export interface TaskValue {
  /** Identifies the task across arms, e.g. `${split}/${index}`. */
  taskKey: string;
  value: number;
}

/** A paired comparison of an arm against a baseline over the tasks both ran. */
export interface PairedComparison {
  /** Shared tasks. */
  n: number;
  /** Mean over shared tasks of (arm's mean on the task - baseline's mean on the task). */
  delta: number;
  /** Standard error of `delta`: sample stdev of the per-task differences / sqrt(n). Not a CI. */
  se: number;
  /** 95% confidence interval, delta -/+ 1.96 SE. */
  ci95: [number, number];
  /** Shared tasks on which the arm's mean beats the baseline's by more than TIE_EPSILON. */
  better: number;
  /** Shared tasks on which the baseline's mean beats the arm's by more than TIE_EPSILON. */
  worse: number;
  /** Shared tasks whose means differ by at most TIE_EPSILON: neither better nor worse. */
  ties: number;
}

/**
 * Per-task mean differences this small are ties, counted 0: means summed in another order (or a
 * reward recomputed on another machine) differ in the last bits, and that noise must not read as
 * "better on 7 of 15 tasks" between two identical arms, nor make a zero delta significant.
 */
export const TIE_EPSILON = 1e-9;

/** Two-sided 95% normal quantile, rounded as evaluation reports conventionally print it. */
export const Z_95 = 1.96;

export function mean(values: readonly number[]): number {
  let sum = 0;
  for (const v of values) sum += v;
  return values.length === 0 ? NaN : sum / values.length;
}

/** The middle value, or the mean of the two middle values for an even count. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  // A typed array sorts numerically and fast, and leaves the caller's array alone.
  const sorted = Float64Array.from(values).sort();
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Sample standard deviation (n - 1 denominator); NaN for fewer than two values. */
export function sampleStdev(values: readonly number[]): number {
  if (values.length < 2) return NaN;
  // Two passes (mean first) rather than sum of squares: no cancellation for values far from 0.
  const m = mean(values);
  let squares = 0;
  for (const v of values) squares += (v - m) ** 2;
  return Math.sqrt(squares / (values.length - 1));
}

/** Values grouped by task, in first-seen order. Throws RangeError on a non-finite value. */
export function groupByTask(rows: readonly TaskValue[]): Map<string, number[]> {
  const byTask = new Map<string, number[]>();
  for (const { taskKey, value } of rows) {
    // Missing metrics (no distance without a guess) must be filtered by the caller, not averaged.
    if (!Number.isFinite(value)) throw new RangeError(`task ${taskKey}: value ${value} is not a finite number`);
    const values = byTask.get(taskKey);
    if (values) values.push(value);
    else byTask.set(taskKey, [value]);
  }
  return byTask;
}

/** k: mean attempts per task. A non-integer k means duplicated or missing (task, sample) pairs. */
export function attemptsPerTask(rows: readonly TaskValue[]): number {
  const tasks = groupByTask(rows).size;
  return tasks === 0 ? NaN : rows.length / tasks;
}

/** Mean over tasks of each task's mean, so every task weighs the same whatever its attempts. */
export function meanOfK(rows: readonly TaskValue[]): number {
  return mean([...groupByTask(rows).values()].map(mean));
}

/** Mean-of-k with its spread over tasks: each task's mean over its attempts is one observation. */
export interface MeanOverTasks {
  /** Tasks (observations). */
  n: number;
  mean: number;
  /** Sample stdev of the per-task means / sqrt(n). Not a CI. */
  se: number;
  /** 95% confidence interval, mean -/+ 1.96 SE (normal approximation). */
  ci95: [number, number];
}

/** meanOfK with its standard error and 95% CI over tasks (docs/eval.md). NaN spread below two tasks. */
export function meanOfKWithSpread(rows: readonly TaskValue[]): MeanOverTasks {
  const perTask = [...groupByTask(rows).values()].map(mean);
  const m = mean(perTask);
  const se = sampleStdev(perTask) / Math.sqrt(perTask.length);
  return { n: perTask.length, mean: m, se, ci95: [m - Z_95 * se, m + Z_95 * se] };
}

/**
 * The unbiased pass@k estimator for one task: the chance that k of its n attempts drawn without
 * replacement include at least one of its c successes, 1 - C(n-c, k) / C(n, k). The ratio is taken
 * as the product of (1 - k/i) for i = n-c+1..n, never through factorials, which overflow past n = 170
 * and lose every digit well before. NaN when k is not within 1..n or c not within 0..n.
 */
export function passAtK(n: number, c: number, k: number): number {
  if (!Number.isInteger(n) || !Number.isInteger(c) || !Number.isInteger(k) || k < 1 || k > n || c < 0 || c > n) return NaN;
  if (n - c < k) return 1;
  let allFail = 1;
  for (let i = n - c + 1; i <= n; i++) allFail *= 1 - k / i;
  return 1 - allFail;
}

/** Mean over tasks of passAtK; `successes` holds one boolean per attempt. NaN when a task has fewer than k attempts. */
export function meanPassAtK(successes: ReadonlyMap<string, readonly boolean[]>, k: number): number {
  return mean([...successes.values()].map((attempts) => passAtK(attempts.length, attempts.filter(Boolean).length, k)));
}

/** Mean over tasks of each task's best (largest) value: pass@k for rewards, higher is better. */
export function bestOfK(rows: readonly TaskValue[]): number {
  return mean([...groupByTask(rows).values()].map((values) => values.reduce((a, b) => Math.max(a, b))));
}

/**
 * Paired comparison over the tasks both arms ran: per-task mean differences, their mean, its
 * standard error and the 95% CI (docs/eval.md). Tasks only one arm ran are left out; a difference
 * within TIE_EPSILON is a tie and counts as exactly 0.
 */
export function pairedComparison(arm: readonly TaskValue[], baseline: readonly TaskValue[]): PairedComparison {
  const armByTask = groupByTask(arm);
  const baseByTask = groupByTask(baseline);
  const diffs: number[] = [];
  for (const [taskKey, armValues] of armByTask) {
    const baseValues = baseByTask.get(taskKey);
    if (!baseValues) continue;
    const diff = mean(armValues) - mean(baseValues);
    diffs.push(Math.abs(diff) <= TIE_EPSILON ? 0 : diff);
  }
  const delta = mean(diffs);
  const se = sampleStdev(diffs) / Math.sqrt(diffs.length);
  return {
    n: diffs.length,
    delta,
    se,
    ci95: [delta - Z_95 * se, delta + Z_95 * se],
    better: diffs.filter((d) => d > 0).length,
    worse: diffs.filter((d) => d < 0).length,
    ties: diffs.filter((d) => d === 0).length,
  };
}
