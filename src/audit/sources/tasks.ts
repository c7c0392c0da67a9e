/**
 * Where the audit finds each prompt's task: task files (`--tasks [SPLIT=]FILE`, a bare file's split
 * being its name without `.jsonl`) or the workspace's splits (the demo's and every task set), by
 * task_id or by split and index. One AuditTask object per task, so the core compiles each once.
 */
import { basename } from 'node:path';
import { UsageError } from '../../core/errors.js';
import type { Task } from '../../core/tasks.js';
import type { Workspace } from '../../store/index.js';
import { loadTasksStrict } from '../../tasks/load.js';
import { auditTaskFromTask } from '../task.js';
import type { AuditTask, TaskRef } from '../types.js';

export class TaskLookup {
  private readonly byId = new Map<string, AuditTask>();
  private readonly bySplit = new Map<string, AuditTask>();
  private readonly splits = new Set<string>();

  add(split: string, task: Task): void {
    const audit = auditTaskFromTask(task);
    this.splits.add(split);
    // The first file that names an id keeps it: ids are unique within a file, and a set imported twice is the same task.
    if (!this.byId.has(task.task_id)) this.byId.set(task.task_id, audit);
    this.bySplit.set(`${split}\0${task.task_index}`, audit);
  }

  find(ref: TaskRef): AuditTask | null {
    return ('taskId' in ref ? this.byId.get(ref.taskId) : this.bySplit.get(`${ref.split}\0${ref.index}`)) ?? null;
  }

  get size(): number {
    return this.byId.size;
  }

  get splitNames(): string[] {
    return [...this.splits];
  }
}

/** `SPLIT=FILE`, or FILE named by its stem: `eval.jsonl` is split `eval`. */
export async function tasksFromFiles(specs: readonly string[]): Promise<TaskLookup> {
  const lookup = new TaskLookup();
  const named = new Set<string>();
  for (const spec of specs) {
    const at = spec.indexOf('=');
    // A path may hold "=" itself: only a short word before it names a split.
    const explicit = at > 0 && /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(spec.slice(0, at));
    const file = explicit ? spec.slice(at + 1) : spec;
    const split = explicit ? spec.slice(0, at) : basename(file).replace(/\.jsonl$/i, '');
    if (named.has(split)) throw new UsageError(`--tasks: two files are split "${split}"; name them with SPLIT=FILE`);
    named.add(split);
    await loadTasksStrict(file, { onTask: (task) => lookup.add(split, task) });
  }
  return lookup;
}

export async function tasksFromWorkspace(ws: Workspace): Promise<TaskLookup> {
  const { workspaceSplits } = await import('../../env/task-splits.js');
  const splits = await workspaceSplits(ws);
  const lookup = new TaskLookup();
  for (const [split, tasks] of splits.load(splits.sizes.keys()).splits) for (const task of tasks) lookup.add(split, task);
  return lookup;
}
