/**
 * Evaluation statistics (DESIGN §4). Every function returns NaN where a statistic is undefined
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
  /** Shared tasks on which the arm's mean beats the baseline's (ties do not count). */
  better: number;
}

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

/** Mean over tasks of each task's best (largest) value: pass@k for rewards, higher is better. */
export function bestOfK(rows: readonly TaskValue[]): number {
  return mean([...groupByTask(rows).values()].map((values) => values.reduce((a, b) => Math.max(a, b))));
}

/**
 * Paired comparison over the tasks both arms ran: per-task mean differences, their mean, its
 * standard error and the 95% CI (DESIGN §4). Tasks only one arm ran are left out.
 */
export function pairedComparison(arm: readonly TaskValue[], baseline: readonly TaskValue[]): PairedComparison {
  const armByTask = groupByTask(arm);
  const baseByTask = groupByTask(baseline);
  const diffs: number[] = [];
  for (const [taskKey, armValues] of armByTask) {
    const baseValues = baseByTask.get(taskKey);
    if (baseValues) diffs.push(mean(armValues) - mean(baseValues));
  }
  const delta = mean(diffs);
  const se = sampleStdev(diffs) / Math.sqrt(diffs.length);
  return {
    n: diffs.length,
    delta,
    se,
    ci95: [delta - Z_95 * se, delta + Z_95 * se],
    better: diffs.filter((d) => d > 0).length,
  };
}
