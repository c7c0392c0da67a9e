/** Counts over a task set: what `geolab tasks stats` prints. */
import type { Task } from '../core/tasks.js';

export interface TaskStats {
  tasks: number;
  frames: number;
  countries: Record<string, number>;
  contributors: number;
  months: Record<string, number>;
}

/** Folds tasks one at a time, so a pool of any size streams through it. */
export class TaskStatsCollector {
  private tasks = 0;
  private frames = 0;
  private readonly countries = new Map<string, number>();
  private readonly contributors = new Set<string>();
  private readonly months = new Map<string, number>();

  add(task: Task): void {
    this.tasks++;
    this.frames += task.frames.length;
    bump(this.countries, task.country || '(unlabelled)');
    const who = task.attribution?.creator_username ?? task.attribution?.creator_id;
    if (who) this.contributors.add(who);
    const month = task.frames[task.start_frame]?.captured_at || '(unknown)';
    bump(this.months, month);
  }

  result(): TaskStats {
    return {
      tasks: this.tasks,
      frames: this.frames,
      countries: Object.fromEntries([...this.countries].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))),
      contributors: this.contributors.size,
      months: Object.fromEntries([...this.months].sort((a, b) => a[0].localeCompare(b[0]))),
    };
  }
}

function bump(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}
