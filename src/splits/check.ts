/**
 * The contamination check of a train/eval split, for splits geolab made (the builder's self-check)
 * and splits it did not (the public train/eval files): anything by which an eval task could be
 * recognised from training.
 */
import { truthOf, type Task } from '../core/tasks.js';
import { canonicalCountry } from './countries.js';
import { contributorIdentity, type ContributorIdentity } from './contributors.js';
import { leakPotential, type LeakPotential } from './leak.js';
import { closestPair, nearestInsideBuffer, unitVectors } from './spatial.js';

/** Pairs listed by name; the count covers them all. */
const LISTED_PAIRS = 10;
/** Names listed per kind of finding; the count covers them all. */
const LISTED_NAMES = 20;

export interface CheckOptions {
  bufferKm: number;
  contributorExclusive: boolean;
  /** How contributors are told apart: the builder passes its pool's; omitted, decided over both splits. */
  identity?: ContributorIdentity;
}

/** A row of train found in eval: the same task_id, or the same start frame (its image_id) under another id. */
export interface RowInBoth {
  train_id: string;
  eval_id: string;
  by: 'task_id' | 'start_frame';
}

export interface CrossPair {
  train_id: string;
  eval_id: string;
  km: number;
}

export interface SplitCheck {
  clean: boolean;
  train_tasks: number;
  eval_tasks: number;
  buffer_km: number;
  shared_sequences: { count: number; listed: string[] };
  /** Train tasks closer than the buffer to an eval task, with the closest pairs listed. */
  buffer_pairs: { count: number; closest: CrossPair[] };
  /** Distinct contributors per side, and what told them apart (docs/splits.md, "Contributors"). */
  contributors: { by: 'id' | 'username'; train: number; eval: number; warnings: string[] };
  shared_contributors: { count: number; listed: string[]; checked: boolean };
  /** Train rows that are eval rows: contamination whatever their task_index. */
  rows_in_both: { count: number; listed: RowInBoth[] };
  /** Start points held by more than one task (within or across the splits). */
  repeated_start_points: { count: number; listed: string[] };
  closest_cross_km: number | null;
  per_country: Record<string, { eval: number; train: number }>;
  leak_potential: { train: LeakPotential; eval: LeakPotential };
}

export function checkSplits(train: readonly Task[], evalTasks: readonly Task[], options: CheckOptions): SplitCheck {
  const evalSequences = new Set(evalTasks.map((t) => t.sequence_id).filter((s): s is string => Boolean(s)));
  const sharedSequences = unique(train.map((t) => t.sequence_id).filter((s): s is string => s !== undefined && evalSequences.has(s)));

  const trainXyz = unitVectors(...latLon(train));
  const evalXyz = unitVectors(...latLon(evalTasks));
  const inside = nearestInsideBuffer(trainXyz, evalXyz, options.bufferKm);
  const pairs: CrossPair[] = [];
  for (let i = 0; i < train.length; i++) {
    const j = inside.index[i]!;
    if (j >= 0) pairs.push({ train_id: train[i]!.task_id, eval_id: evalTasks[j]!.task_id, km: roundKm(inside.km[i]!) });
  }
  pairs.sort((a, b) => a.km - b.km || a.train_id.localeCompare(b.train_id));
  const closest = closestPair(trainXyz, evalXyz, options.bufferKm);

  const identity = options.identity ?? contributorIdentity(train, evalTasks);
  const evalContributors = new Set(evalTasks.map((t) => identity.keyOf(t)).filter((k): k is string => k !== undefined));
  const trainContributors = new Set<string>();
  const sharedLabels = new Map<string, string>();
  for (const t of train) {
    const key = identity.keyOf(t);
    if (key === undefined) continue;
    trainContributors.add(key);
    if (evalContributors.has(key) && !sharedLabels.has(key)) sharedLabels.set(key, identity.labelOf(t) ?? key);
  }
  const shared = [...sharedLabels.values()];

  const evalById = new Map(evalTasks.map((t) => [t.task_id, t]));
  const evalByStart = new Map(evalTasks.map((t) => [startImage(t), t]));
  const inBoth: RowInBoth[] = [];
  for (const t of train) {
    const byId = evalById.get(t.task_id);
    const byStart = byId ? undefined : evalByStart.get(startImage(t));
    if (byId) inBoth.push({ train_id: t.task_id, eval_id: byId.task_id, by: 'task_id' });
    else if (byStart) inBoth.push({ train_id: t.task_id, eval_id: byStart.task_id, by: 'start_frame' });
  }

  const atPoint = new Map<string, number>();
  for (const t of [...evalTasks, ...train]) {
    const { lat, lon } = truthOf(t);
    const key = `${lat},${lon}`;
    atPoint.set(key, (atPoint.get(key) ?? 0) + 1);
  }
  const repeated = [...atPoint].filter(([, n]) => n > 1).map(([key]) => key);

  const perCountry = new Map<string, { eval: number; train: number }>();
  const bump = (t: Task, side: 'eval' | 'train') => {
    const c = canonicalCountry(t.country);
    const row = perCountry.get(c) ?? { eval: 0, train: 0 };
    row[side]++;
    perCountry.set(c, row);
  };
  evalTasks.forEach((t) => bump(t, 'eval'));
  train.forEach((t) => bump(t, 'train'));

  const contributorContamination = options.contributorExclusive && shared.length > 0;
  return {
    clean: sharedSequences.length === 0 && pairs.length === 0 && !contributorContamination && inBoth.length === 0,
    train_tasks: train.length,
    eval_tasks: evalTasks.length,
    buffer_km: options.bufferKm,
    shared_sequences: listed(sharedSequences),
    buffer_pairs: { count: pairs.length, closest: pairs.slice(0, LISTED_PAIRS) },
    contributors: { by: identity.by, train: trainContributors.size, eval: evalContributors.size, warnings: identity.warnings },
    shared_contributors: { ...listed(shared), checked: options.contributorExclusive },
    rows_in_both: { count: inBoth.length, listed: inBoth.slice(0, LISTED_PAIRS) },
    repeated_start_points: listed(repeated),
    closest_cross_km: closest ? roundKm(closest.km) : null,
    per_country: Object.fromEntries(
      [...perCountry].sort((a, b) => b[1].eval - a[1].eval || b[1].train - a[1].train || a[0].localeCompare(b[0])),
    ),
    leak_potential: { train: leakPotential(train, options.bufferKm, identity), eval: leakPotential(evalTasks, options.bufferKm, identity) },
  };
}

/** A task's start frame by its image: the same picture under two task ids is the same task. */
function startImage(task: Task): string {
  return task.frames[task.start_frame]!.image_id;
}

export function latLon(tasks: readonly Task[]): [Float64Array, Float64Array] {
  const lat = new Float64Array(tasks.length);
  const lon = new Float64Array(tasks.length);
  tasks.forEach((t, i) => {
    const p = truthOf(t);
    lat[i] = p.lat;
    lon[i] = p.lon;
  });
  return [lat, lon];
}

/** Kilometres to the metre, as reports print them. */
export function roundKm(km: number): number {
  return Math.round(km * 1000) / 1000;
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}

function listed(values: string[]): { count: number; listed: string[] } {
  return { count: values.length, listed: values.slice(0, LISTED_NAMES) };
}
