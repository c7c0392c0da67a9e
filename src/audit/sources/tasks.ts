/**
 * Where the audit finds each prompt's task: task files (`--tasks [SPLIT=]FILE`, a bare file's split
 * being its name without `.jsonl`) or the workspace's splits (the demo's and every task set), by
 * task_id or by split and index (by task_id only in a file whose task_index repeats). One AuditTask
 * object per task, so the core compiles each once.
 */
import { basename } from 'node:path';
import { InputError, UsageError } from '../../core/errors.js';
import { parseTaskLine, type Task } from '../../core/tasks.js';
import { textLines } from '../../files.js';
import type { Workspace } from '../../store/index.js';
import { loadTaskFile } from '../../tasks/load.js';
import { auditTaskFromTask } from '../task.js';
import type { AuditTask, TaskRef } from '../types.js';

export interface PlainTaskLookup {
  byId: [string, AuditTask][];
  bySplit: [string, AuditTask][];
  splits: string[];
}

export class TaskLookup {
  private readonly byId = new Map<string, AuditTask>();
  private readonly bySplit = new Map<string, AuditTask>();
  private readonly splits = new Set<string>();
  /** Tasks of a version of a set, by `split\0version`, read on first use. */
  private readonly byVersion = new Map<string, (AuditTask | undefined)[]>();

  /** `versions`: where a ref with a version reads that version's tasks (the workspace's task sets); null when the split has none. */
  constructor(private readonly versions?: (split: string, version: string | null) => Task[] | null) {}

  /** `byIndex` false: the file's task_index repeats (several splits in one file), so only its task_ids name its tasks. */
  add(split: string, task: Task, byIndex = true): void {
    const audit = auditTaskFromTask(task);
    this.splits.add(split);
    // The first file that names an id keeps it: ids are unique within a file, and a set imported twice is the same task.
    if (!this.byId.has(task.task_id)) this.byId.set(task.task_id, audit);
    if (byIndex) this.bySplit.set(`${split}\0${task.task_index}`, audit);
  }

  find(ref: TaskRef): AuditTask | null {
    if ('version' in ref && this.versions) return this.atVersion(ref.split, ref.version)[ref.index] ?? null;
    return ('taskId' in ref ? this.byId.get(ref.taskId) : this.bySplit.get(`${ref.split}\0${ref.index}`)) ?? null;
  }

  private atVersion(split: string, version: string | null): (AuditTask | undefined)[] {
    const key = `${split}\0${version ?? ''}`;
    let tasks = this.byVersion.get(key);
    if (!tasks) {
      tasks = [];
      // A stored set's task_index runs from 0 without gaps: task N is at N.
      for (const task of this.versions?.(split, version) ?? []) tasks[task.task_index] = auditTaskFromTask(task);
      this.byVersion.set(key, tasks);
    }
    return tasks;
  }

  get size(): number {
    return this.byId.size;
  }

  /**
   * The lookup as plain data for a worker thread (structured clone keeps a task shared by both
   * maps one object). The task sets' versions stay behind: the refs of prompt files name none.
   */
  toPlain(): PlainTaskLookup {
    return { byId: [...this.byId], bySplit: [...this.bySplit], splits: [...this.splits] };
  }

  static fromPlain(plain: PlainTaskLookup): TaskLookup {
    const lookup = new TaskLookup();
    for (const [key, task] of plain.byId) lookup.byId.set(key, task);
    for (const [key, task] of plain.bySplit) lookup.bySplit.set(key, task);
    for (const split of plain.splits) lookup.splits.add(split);
    return lookup;
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
    await readTaskFile(file, split, lookup);
  }
  return lookup;
}

/**
 * One task file into the lookup. A file whose task_index repeats (the splits of a pool written into
 * one file) is read by task_id: its tasks are found by id, never by split and index, which would be
 * ambiguous. Any other problem (bad JSON, a bad field, a repeated task_id) stops the audit, with the
 * file:line.
 */
async function readTaskFile(file: string, split: string, lookup: TaskLookup): Promise<void> {
  const tasks: Task[] = [];
  const result = await loadTaskFile(file, { onTask: (task) => tasks.push(task) });
  if (result.errors.length === 0) {
    for (const task of tasks) lookup.add(split, task);
    return;
  }
  const other = result.errors.find((e) => e.field !== 'task_index');
  if (other) throw new InputError(other.message, { file, line: other.line || undefined, field: other.field });
  // The validator dropped the tasks whose index came again: read every line, each id once.
  const lineOfId = new Map<string, number>();
  for await (const { line, text } of textLines(file)) {
    if (text.trim() === '') continue;
    const parsed = parseTaskLine(text, line);
    if (!parsed.ok) continue;
    const first = lineOfId.get(parsed.task.task_id);
    if (first !== undefined) throw new InputError(`duplicated task_id "${parsed.task.task_id}" (first on line ${first})`, { file, line, field: 'task_id' });
    lineOfId.set(parsed.task.task_id, line);
    lookup.add(split, parsed.task, false);
  }
}

export async function tasksFromWorkspace(ws: Workspace): Promise<TaskLookup> {
  const { workspaceSplits } = await import('../../env/task-splits.js');
  const [splits, { getTaskSet, readTasksAt }] = await Promise.all([workspaceSplits(ws), import('../../store/task-sets.js')]);
  const lookup = new TaskLookup((split, version) => (getTaskSet(ws.db, split) ? readTasksAt(ws.db, split, version) : null));
  for (const [split, tasks] of splits.load(splits.sizes.keys()).splits) for (const task of tasks) lookup.add(split, task);
  return lookup;
}
