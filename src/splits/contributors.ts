/**
 * Who captured a task, decided once per set of tasks (docs/splits.md, "Contributors"): by
 * `creator_id` when the ids vary, else by `creator_username`. A set whose rows all carry one id (a
 * placeholder some exporters write) would otherwise count as a single contributor, and
 * `--contributor-exclusive` would drop every train task. `tasks stats`, `splits check`, the split
 * builder and leak potential all count contributors through this module.
 */
import type { Task } from '../core/tasks.js';

/** All this module reads of a task (collectors keep only this per task). */
export type Attributed = Pick<Task, 'attribution'>;

/** What a task says about its contributor: username and id, either may be missing. */
export function contributorOf(task: Attributed): { username?: string; id?: string } {
  return { username: task.attribution?.creator_username || undefined, id: task.attribution?.creator_id || undefined };
}

export interface ContributorIdentity {
  /** What tells contributors apart in this set. */
  by: 'id' | 'username';
  /** Distinct contributors in the set that decided it. */
  contributors: number;
  /** Said when one id is on more than half of the tasks. */
  warnings: string[];
  /** The task's contributor (a task without the deciding field falls back to the other), or undefined. */
  keyOf(task: Attributed): string | undefined;
  /** How to name a contributor to a user: the username when the task has one, else the id. */
  labelOf(task: Attributed): string | undefined;
}

/** Folds tasks one at a time (a pool of any size streams through it) and decides at the end. */
export class ContributorTally {
  private tasks = 0;
  private readonly ids = new Map<string, number>();
  private readonly usernames = new Set<string>();
  /** Usernames of tasks without an id, and ids of tasks without a username: the fallbacks' keys. */
  private readonly usernamesWithoutId = new Set<string>();
  private readonly idsWithoutUsername = new Set<string>();

  add(task: Attributed): void {
    this.tasks++;
    const { username, id } = contributorOf(task);
    if (id !== undefined) this.ids.set(id, (this.ids.get(id) ?? 0) + 1);
    if (username !== undefined) this.usernames.add(username);
    if (id === undefined && username !== undefined) this.usernamesWithoutId.add(username);
    if (username === undefined && id !== undefined) this.idsWithoutUsername.add(id);
  }

  identity(): ContributorIdentity {
    const by = this.ids.size > 1 ? 'id' : 'username';
    const contributors = by === 'id' ? this.ids.size + this.usernamesWithoutId.size : this.usernames.size + this.idsWithoutUsername.size;
    const warnings: string[] = [];
    const [topId, topCount] = [...this.ids].reduce<[string, number]>((best, entry) => (entry[1] > best[1] ? entry : best), ['', 0]);
    if (this.tasks > 1 && topCount * 2 > this.tasks) {
      const counted = by === 'id' ? 'contributors are still told apart by creator_id, as the ids vary' : 'contributors are told apart by creator_username instead';
      warnings.push(`creator_id "${topId}" is on ${topCount} of ${this.tasks} tasks (more than half; a placeholder id?): ${counted}`);
    }
    return {
      by,
      contributors,
      warnings,
      keyOf: (task) => keyBy(by, task),
      labelOf: (task) => {
        const { username, id } = contributorOf(task);
        return username ?? (id === undefined ? undefined : `id ${id}`);
      },
    };
  }
}

function keyBy(by: 'id' | 'username', task: Attributed): string | undefined {
  const { username, id } = contributorOf(task);
  // Prefixed, so a username that reads like an id is never taken for one.
  if (by === 'id') return id !== undefined ? `i:${id}` : username !== undefined ? `u:${username}` : undefined;
  return username !== undefined ? `u:${username}` : id !== undefined ? `i:${id}` : undefined;
}

/** The identity of a set of tasks given whole (several arrays count as one set). */
export function contributorIdentity(...sets: Iterable<Attributed>[]): ContributorIdentity {
  const tally = new ContributorTally();
  for (const tasks of sets) for (const task of tasks) tally.add(task);
  return tally.identity();
}
