/**
 * The splits a workspace holds. `geolab splits build` and the TUI's Splits screen import a split as
 * the two task sets `NAME-eval` and `NAME-train` (docs/splits.md, step 5), so a split is a name
 * with both sets; it is read from the task sets themselves, which is what playing and evaluating use.
 */
import type { Db } from './db.js';
import { listTaskSets } from './task-sets.js';

export interface SavedSplit {
  name: string;
  /** Tasks in `NAME-eval` and in `NAME-train`. */
  eval: number;
  train: number;
}

/** Every name with both an `-eval` and a `-train` task set, in name order. */
export function savedSplits(db: Db): SavedSplit[] {
  const tasks = new Map(listTaskSets(db).map((set) => [set.name, set.n_tasks]));
  const splits: SavedSplit[] = [];
  for (const [set, evalTasks] of tasks) {
    const name = set.endsWith('-eval') ? set.slice(0, -'-eval'.length) : null;
    const trainTasks = name ? tasks.get(`${name}-train`) : undefined;
    if (name && trainTasks !== undefined) splits.push({ name, eval: evalTasks, train: trainTasks });
  }
  return splits.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
