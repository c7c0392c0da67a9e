/**
 * The contamination check of a train/eval split, for splits geolab made (the builder's self-check)
 * and splits it did not (the public train/eval files): anything by which an eval task could be
 * recognised from training.
 */
import { truthOf, type Task } from '../core/tasks.js';
import { canonicalCountry } from './countries.js';
import { contributorOf, leakPotential, type LeakPotential } from './leak.js';
import { closestPair, nearestInsideBuffer, unitVectors } from './spatial.js';

/** Pairs listed by name; the count covers them all. */
const LISTED_PAIRS = 10;
/** Names listed per kind of finding; the count covers them all. */
const LISTED_NAMES = 20;

export interface CheckOptions {
  bufferKm: number;
  contributorExclusive: boolean;
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
  shared_contributors: { count: number; listed: string[]; checked: boolean };
  duplicated_ids: { count: number; listed: string[] };
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

  const evalNames = new Set<string>();
  const evalIds = new Set<string>();
  for (const t of evalTasks) {
    const who = contributorOf(t);
    if (who.username !== undefined) evalNames.add(who.username);
    if (who.id !== undefined) evalIds.add(who.id);
  }
  const shared = unique(
    train.flatMap((t) => {
      const who = contributorOf(t);
      if (who.username !== undefined && evalNames.has(who.username)) return [who.username];
      if (who.id !== undefined && evalIds.has(who.id)) return [`id ${who.id}`];
      return [];
    }),
  );

  const seenIds = new Set<string>();
  const duplicated: string[] = [];
  const atPoint = new Map<string, number>();
  for (const t of [...evalTasks, ...train]) {
    if (seenIds.has(t.task_id)) duplicated.push(t.task_id);
    seenIds.add(t.task_id);
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
    clean: sharedSequences.length === 0 && pairs.length === 0 && !contributorContamination && duplicated.length === 0,
    train_tasks: train.length,
    eval_tasks: evalTasks.length,
    buffer_km: options.bufferKm,
    shared_sequences: listed(sharedSequences),
    buffer_pairs: { count: pairs.length, closest: pairs.slice(0, LISTED_PAIRS) },
    shared_contributors: { ...listed(shared), checked: options.contributorExclusive },
    duplicated_ids: listed(unique(duplicated)),
    repeated_start_points: listed(repeated),
    closest_cross_km: closest ? roundKm(closest.km) : null,
    per_country: Object.fromEntries(
      [...perCountry].sort((a, b) => b[1].eval - a[1].eval || b[1].train - a[1].train || a[0].localeCompare(b[0])),
    ),
    leak_potential: { train: leakPotential(train, options.bufferKm), eval: leakPotential(evalTasks, options.bufferKm) },
  };
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
