/**
 * The split builder of docs/splits.md, pure: a pool in, eval and train tasks (renumbered), the counts of
 * what was dropped and why, and the self-check of the result out. Nothing here reads or writes files.
 */
import { hashString, seededRandom } from '../core/random.js';
import type { Task } from '../core/tasks.js';
import { checkSplits, latLon, type SplitCheck } from './check.js';
import { canonicalCountry } from './countries.js';
import { contributorIdentity } from './contributors.js';
import { nearestInsideBuffer, unitVectors } from './spatial.js';

export interface SplitOptions {
  evalSize: number;
  evalPerCountry: number;
  /** Eval caps of single countries (canonical names), in place of evalPerCountry for them. */
  evalCaps?: Readonly<Record<string, number>>;
  bufferKm: number;
  /** Only these countries (canonical ADMIN names); omitted: all. */
  countries?: readonly string[];
  excludeCountries?: readonly string[];
  /** At most this many train tasks per country; omitted: no cap. */
  trainPerCountry?: number;
  contributorExclusive: boolean;
  requireOfflineReady: boolean;
  seed: number;
}

export const DEFAULT_SPLIT_OPTIONS: SplitOptions = {
  evalSize: 200,
  evalPerCountry: 4,
  bufferKm: 1,
  contributorExclusive: false,
  requireOfflineReady: false,
  seed: 0,
};

export interface Dropped {
  shared_sequence: number;
  buffer: number;
  contributor: number;
  country_filter: number;
  cap: number;
}

export interface SplitResult {
  eval: Task[];
  train: Task[];
  dropped: Dropped;
  /** Per-country counts of the chosen splits, and of the pool after the country filter. */
  perCountry: Record<string, { pool: number; eval: number; train: number }>;
  closestCrossKm: number | null;
  check: SplitCheck;
  /** Why the result must not be written (empty: it may). */
  problems: string[];
  /** What the user should know before writing it: a small train split, a placeholder contributor id. */
  warnings: string[];
}

/** Train under this share of the pool (after the country filter), or under this many tasks, is worth a warning. */
export const SMALL_TRAIN_SHARE = 0.1;
export const SMALL_TRAIN_TASKS = 50;

export function isOfflineReady(task: Task): boolean {
  return task.meta?.offline_ready === true;
}

function qualityOf(task: Task): number {
  const q = task.meta?.quality_score;
  return typeof q === 'number' && Number.isFinite(q) ? q : -Infinity;
}

/**
 * Pool positions in selection order: offline-ready first, then quality, then a tiebreak drawn from
 * the seed and the task id (so it does not depend on where a task sits in the file), then position.
 */
export function selectionOrder(pool: readonly Task[], positions: readonly number[], seed: number): number[] {
  const keys = new Map<number, { ready: number; quality: number; tie: number }>();
  for (const p of positions) {
    const t = pool[p] as Task;
    keys.set(p, { ready: isOfflineReady(t) ? 1 : 0, quality: qualityOf(t), tie: seededRandom(hashString(`${seed}\u0000${t.task_id}`))() });
  }
  return [...positions].sort((a, b) => {
    const ka = keys.get(a)!;
    const kb = keys.get(b)!;
    return kb.ready - ka.ready || (kb.quality > ka.quality ? 1 : kb.quality < ka.quality ? -1 : 0) || ka.tie - kb.tie || a - b;
  });
}

export function buildSplits(pool: readonly Task[], options: SplitOptions): SplitResult {
  const dropped: Dropped = { shared_sequence: 0, buffer: 0, contributor: 0, country_filter: 0, cap: 0 };
  const include = options.countries ? new Set(options.countries) : null;
  const exclude = new Set(options.excludeCountries ?? []);
  const country = pool.map((t) => canonicalCountry(t.country));
  const kept: number[] = [];
  pool.forEach((_, p) => {
    const c = country[p] as string;
    if ((include && !include.has(c)) || exclude.has(c)) dropped.country_filter++;
    else kept.push(p);
  });

  const order = selectionOrder(pool, kept, options.seed);
  const evalCount = new Map<string, number>();
  const evalSet = new Set<number>();
  for (const p of order) {
    if (evalSet.size >= options.evalSize) break;
    const c = country[p] as string;
    const n = evalCount.get(c) ?? 0;
    if (n >= (options.evalCaps?.[c] ?? options.evalPerCountry)) continue;
    evalCount.set(c, n + 1);
    evalSet.add(p);
  }
  const evalPositions = kept.filter((p) => evalSet.has(p));

  const sequences = new Set(evalPositions.map((p) => pool[p]!.sequence_id).filter((s): s is string => Boolean(s)));
  // Contributors are told apart as over the whole pool, in the drop and in the self-check alike.
  const identity = contributorIdentity(pool);
  const evalContributors = new Set(evalPositions.map((p) => identity.keyOf(pool[p]!)).filter((k): k is string => k !== undefined));
  const others = kept.filter((p) => !evalSet.has(p));
  const inside = nearestInsideBuffer(
    unitVectors(...latLon(others.map((p) => pool[p]!))),
    unitVectors(...latLon(evalPositions.map((p) => pool[p]!))),
    options.bufferKm,
  );
  const survivors = new Set<number>();
  others.forEach((p, i) => {
    const t = pool[p]!;
    if (t.sequence_id && sequences.has(t.sequence_id)) dropped.shared_sequence++;
    else if (inside.index[i]! >= 0) dropped.buffer++;
    else if (options.contributorExclusive && evalContributors.has(identity.keyOf(t) ?? '')) dropped.contributor++;
    else survivors.add(p);
  });

  let trainPositions = others.filter((p) => survivors.has(p));
  if (options.trainPerCountry !== undefined) {
    const cap = options.trainPerCountry;
    const taken = new Map<string, number>();
    const allowed = new Set<number>();
    for (const p of selectionOrder(pool, trainPositions, options.seed)) {
      const c = country[p] as string;
      const n = taken.get(c) ?? 0;
      if (n >= cap) {
        dropped.cap++;
        continue;
      }
      taken.set(c, n + 1);
      allowed.add(p);
    }
    trainPositions = trainPositions.filter((p) => allowed.has(p));
  }

  const evalTasks = evalPositions.map((p, i) => renumber(pool[p]!, i, 'eval'));
  const train = trainPositions.map((p, i) => renumber(pool[p]!, i, 'train'));
  const check = checkSplits(train, evalTasks, { bufferKm: options.bufferKm, contributorExclusive: options.contributorExclusive, identity });
  const perCountry: SplitResult['perCountry'] = {};
  for (const p of kept) {
    const c = country[p] as string;
    perCountry[c] ??= { pool: 0, eval: 0, train: 0 };
    perCountry[c].pool++;
  }
  for (const [c, row] of Object.entries(check.per_country)) Object.assign(perCountry[c]!, row);
  return {
    eval: evalTasks,
    train,
    dropped,
    perCountry,
    closestCrossKm: check.closest_cross_km,
    check,
    problems: selfCheckProblems(check, evalTasks, options, dropped),
    warnings: [...identity.warnings, ...smallTrainWarnings(train.length, kept.length, evalTasks.length)],
  };
}

/** A train split much smaller than the pool is seldom meant (`--eval 200` on a 230-task pool). */
function smallTrainWarnings(train: number, pool: number, evalSize: number): string[] {
  if (train === 0) return []; // an empty train is a self-check problem, not a warning
  if (train >= SMALL_TRAIN_TASKS && train >= SMALL_TRAIN_SHARE * pool) return [];
  const pct = ((train / pool) * 100).toFixed(1);
  const under = [train < SMALL_TRAIN_SHARE * pool ? `under ${SMALL_TRAIN_SHARE * 100}% of the pool` : '', train < SMALL_TRAIN_TASKS ? `under ${SMALL_TRAIN_TASKS} tasks` : ''];
  return [
    `train gets only ${train} of the ${pool} pool tasks (${pct}%, ${under.filter(Boolean).join(' and ')}; eval takes ${evalSize}): lower --eval or --eval-per-country, or narrow --buffer-km, for a larger train split`,
  ];
}

/** The non-zero dropped counts in words ("170 shared contributor, 3 inside the buffer"), or "none". */
export function droppedReasons(d: Dropped): string {
  const parts: [number, string][] = [
    [d.shared_sequence, 'shared sequence'],
    [d.buffer, 'inside the buffer'],
    [d.contributor, 'shared contributor'],
    [d.country_filter, 'country filter'],
    [d.cap, 'over the train cap'],
  ];
  return parts.filter(([n]) => n > 0).map(([n, why]) => `${n} ${why}`).join(', ') || 'none';
}

/** A pool task under its split's id and index; where it came from stays in meta.pool_task_id. */
function renumber(task: Task, index: number, split: 'eval' | 'train'): Task {
  return {
    ...task,
    task_index: index,
    task_id: `${split}-${String(index).padStart(5, '0')}`,
    meta: { ...task.meta, pool_task_id: task.task_id },
  };
}

/** What the self-check refuses, in words a user can act on. */
export function selfCheckProblems(check: SplitCheck, evalTasks: readonly Task[], options: SplitOptions, dropped: Dropped): string[] {
  const problems: string[] = [];
  // An empty side is no split, and a task file needs at least one task.
  if (evalTasks.length === 0) problems.push('the eval split would be empty: no pool task is left after the country filter and caps');
  if (check.train_tasks === 0) {
    const afterEval = droppedReasons({ ...dropped, country_filter: 0 });
    problems.push(
      afterEval === 'none'
        ? `the train split would be empty: eval takes every pool task${dropped.country_filter ? ' the country filter leaves' : ''} (lower --eval or --eval-per-country)`
        : `the train split would be empty: every pool task eval did not take was dropped (${afterEval})`,
    );
  }
  if (check.shared_sequences.count > 0) problems.push(`${check.shared_sequences.count} sequence(s) in both splits (${check.shared_sequences.listed.slice(0, 3).join(', ')})`);
  if (check.buffer_pairs.count > 0) {
    const p = check.buffer_pairs.closest[0]!;
    problems.push(`${check.buffer_pairs.count} train task(s) within ${options.bufferKm} km of an eval task (closest ${p.train_id} / ${p.eval_id}, ${p.km} km)`);
  }
  if (options.contributorExclusive && check.shared_contributors.count > 0) problems.push(`${check.shared_contributors.count} contributor(s) in both splits`);
  if (check.rows_in_both.count > 0) problems.push(`${check.rows_in_both.count} task(s) in both splits`);
  if (options.requireOfflineReady) {
    const notReady = evalTasks.filter((t) => !isOfflineReady(t)).length;
    if (notReady > 0) problems.push(`${notReady} eval task(s) not offline-ready (meta.offline_ready) although --require-offline-ready was given: the pool has too few offline-ready tasks for --eval ${options.evalSize}`);
  }
  return problems;
}
