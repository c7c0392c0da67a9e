/**
 * Leak potential of a task set: how much a task's bookkeeping could tell about where it is. A
 * contributor's username alone gives the country for most public tasks, and a sequence with
 * siblings a few hundred metres away lets a split put the same street on both sides.
 */
import { truthOf, type Task } from '../core/tasks.js';
import { ContributorTally, type Attributed, type ContributorIdentity } from './contributors.js';
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

/** Folds tasks one at a time; keeps only what the figures need per task. */
export class LeakPotentialCollector {
  private readonly lat: number[] = [];
  private readonly lon: number[] = [];
  private readonly sequences: (string | undefined)[] = [];
  private readonly attributed: Attributed[] = [];
  private readonly countries: string[] = [];
  private readonly tally = new ContributorTally();

  add(task: Task): void {
    const { lat, lon } = truthOf(task);
    this.lat.push(lat);
    this.lon.push(lon);
    this.sequences.push(task.sequence_id || undefined);
    this.attributed.push({ attribution: task.attribution });
    this.countries.push(canonicalCountry(task.country));
    this.tally.add(task);
  }

  /** The contributor identity of the tasks folded so far (docs/splits.md, "Contributors"). */
  identity(): ContributorIdentity {
    return this.tally.identity();
  }

  /** `identity`: the one of a larger set these tasks belong to (a split's pool); omitted, their own. */
  result(bufferKm: number, identity: ContributorIdentity = this.identity()): LeakPotential {
    const n = this.lat.length;
    const contributors = this.attributed.map((t) => identity.keyOf(t));
    const countriesOf = new Map<string, Set<string>>();
    contributors.forEach((who, i) => {
      const country = this.countries[i]!;
      if (who === undefined || country === UNLABELLED) return;
      let set = countriesOf.get(who);
      if (!set) countriesOf.set(who, (set = new Set()));
      set.add(country);
    });
    let single = 0;
    const perCountry = new Map<string, number>();
    for (const countries of countriesOf.values()) for (const c of countries) perCountry.set(c, (perCountry.get(c) ?? 0) + 1);
    for (const who of contributors) if (who !== undefined && countriesOf.get(who)?.size === 1) single++;
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

export function leakPotential(tasks: Iterable<Task>, bufferKm: number, identity?: ContributorIdentity): LeakPotential {
  const collector = new LeakPotentialCollector();
  for (const task of tasks) collector.add(task);
  return collector.result(bufferKm, identity);
}

function share(k: number, n: number): number {
  return n === 0 ? 0 : Math.round((k / n) * 10000) / 10000;
}
