/** Counts over a task set: what `geolab tasks stats` prints. */
import type { Task } from '../core/tasks.js';
import { DEFAULT_SPLIT_OPTIONS } from './build.js';
import { LeakPotentialCollector, type LeakPotential } from './leak.js';

export interface TaskStats {
  tasks: number;
  frames: number;
  countries: Record<string, number>;
  /** Distinct contributors, told apart as `contributor_identity.by` says (docs/splits.md, "Contributors"). */
  contributors: number;
  contributor_identity: { by: 'id' | 'username'; warnings: string[] };
  months: Record<string, number>;
  leak_potential: LeakPotential;
}

/**
 * Folds tasks one at a time, so a pool of any size streams through it (leak potential keeps a few
 * numbers per task: its sibling check needs every start point).
 */
export class TaskStatsCollector {
  private tasks = 0;
  private frames = 0;
  private readonly countries = new Map<string, number>();
  private readonly months = new Map<string, number>();
  private readonly leak = new LeakPotentialCollector();

  add(task: Task): void {
    this.tasks++;
    this.frames += task.frames.length;
    bump(this.countries, task.country || '(unlabelled)');
    const month = task.frames[task.start_frame]?.captured_at || '(unknown)';
    bump(this.months, month);
    this.leak.add(task);
  }

  result(): TaskStats {
    const identity = this.leak.identity();
    return {
      tasks: this.tasks,
      frames: this.frames,
      countries: Object.fromEntries([...this.countries].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))),
      contributors: identity.contributors,
      contributor_identity: { by: identity.by, warnings: identity.warnings },
      months: Object.fromEntries([...this.months].sort((a, b) => a[0].localeCompare(b[0]))),
      leak_potential: this.leak.result(DEFAULT_SPLIT_OPTIONS.bufferKm, identity),
    };
  }
}

function bump(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}
