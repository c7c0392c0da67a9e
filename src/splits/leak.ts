/**
 * Leak potential of a task set: how much a task's bookkeeping could tell about where it is. A
 * contributor's username alone gives the country for most public tasks, and a sequence with
 * siblings a few hundred metres away lets a split put the same street on both sides.
 */
import { truthOf, type Task } from '../core/tasks.js';
import { canonicalCountry, UNLABELLED } from './countries.js';
import { chordOfKm, UnitGrid, unitVectors } from './spatial.js';

export interface LeakPotential {
  tasks: number;
  buffer_km: number;
  /** Share of all tasks whose contributor has tasks in exactly one country. */
  single_country_contributor_share: number;
  /** Share of all tasks with another task of the same sequence closer than buffer_km. */
  sequence_siblings_share: number;
  /** Distinct contributors per country, most first. */
  contributors_per_country: Record<string, number>;
}

/** Who captured a task: username and id, either may be missing. */
export function contributorOf(task: Task): { username?: string; id?: string } {
  return { username: task.attribution?.creator_username || undefined, id: task.attribution?.creator_id || undefined };
}

/** One key per contributor: the username when there is one, else the id. */
export function contributorKey(task: Task): string | undefined {
  const { username, id } = contributorOf(task);
  return username !== undefined ? `u:${username}` : id !== undefined ? `i:${id}` : undefined;
}

/** Folds tasks one at a time; keeps only what the figures need per task. */
export class LeakPotentialCollector {
  private readonly lat: number[] = [];
  private readonly lon: number[] = [];
  private readonly sequences: (string | undefined)[] = [];
  private readonly contributors: (string | undefined)[] = [];
  private readonly countriesOf = new Map<string, Set<string>>();

  add(task: Task): void {
    const { lat, lon } = truthOf(task);
    this.lat.push(lat);
    this.lon.push(lon);
    this.sequences.push(task.sequence_id || undefined);
    const who = contributorKey(task);
    this.contributors.push(who);
    const country = canonicalCountry(task.country);
    if (who !== undefined && country !== UNLABELLED) {
      let set = this.countriesOf.get(who);
      if (!set) this.countriesOf.set(who, (set = new Set()));
      set.add(country);
    }
  }

  result(bufferKm: number): LeakPotential {
    const n = this.lat.length;
    let single = 0;
    const perCountry = new Map<string, number>();
    for (const countries of this.countriesOf.values()) for (const c of countries) perCountry.set(c, (perCountry.get(c) ?? 0) + 1);
    for (const who of this.contributors) if (who !== undefined && this.countriesOf.get(who)?.size === 1) single++;
    return {
      tasks: n,
      buffer_km: bufferKm,
      single_country_contributor_share: share(single, n),
      sequence_siblings_share: share(this.tasksWithNearSiblings(bufferKm), n),
      contributors_per_country: Object.fromEntries([...perCountry].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))),
    };
  }

  private tasksWithNearSiblings(bufferKm: number): number {
    if (bufferKm <= 0) return 0;
    const xyz = unitVectors(this.lat, this.lon);
    const grid = new UnitGrid(xyz, bufferKm);
    const chord = chordOfKm(bufferKm);
    let count = 0;
    for (let i = 0; i < this.sequences.length; i++) {
      const seq = this.sequences[i];
      if (seq === undefined) continue;
      let found = false;
      grid.forEachWithin(xyz[i * 3]!, xyz[i * 3 + 1]!, xyz[i * 3 + 2]!, chord, (j) => {
        if (j !== i && this.sequences[j] === seq) found = true;
      });
      if (found) count++;
    }
    return count;
  }
}

export function leakPotential(tasks: Iterable<Task>, bufferKm: number): LeakPotential {
  const collector = new LeakPotentialCollector();
  for (const task of tasks) collector.add(task);
  return collector.result(bufferKm);
}

function share(k: number, n: number): number {
  return n === 0 ? 0 : Math.round((k / n) * 10000) / 10000;
}
