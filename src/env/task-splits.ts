/**
 * The task splits an environment serves: `SPLIT=FILE` pairs from the command line, or the demo
 * dataset as `train` and `eval` (the second task of each country that has two goes to eval, so
 * the splits share no sequence and every eval country is also seen in train).
 */
import { UsageError } from '../core/errors.js';
import type { Task } from '../core/tasks.js';
import { DEMO_TASKS_FILE } from '../paths.js';
import { loadTasksStrict } from '../tasks/load.js';

export type Splits = ReadonlyMap<string, readonly Task[]>;

const SPLIT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** Parses `SPLIT=FILE` arguments and loads each file strictly (any error stops the server). */
export async function loadSplitFiles(specs: readonly string[]): Promise<Map<string, readonly Task[]>> {
  const splits = new Map<string, readonly Task[]>();
  for (const spec of specs) {
    const at = spec.indexOf('=');
    const name = spec.slice(0, at);
    const file = spec.slice(at + 1);
    if (at <= 0 || !file) throw new UsageError(`--tasks expects SPLIT=FILE, got "${spec}"`);
    if (!SPLIT_NAME.test(name)) throw new UsageError(`--tasks: split name "${name}" must be letters, digits, "_", "-", "."`);
    if (splits.has(name)) throw new UsageError(`--tasks: split "${name}" given twice`);
    splits.set(name, (await loadTasksStrict(file)).tasks);
  }
  return splits;
}

/** The demo dataset as splits `train` and `eval`, each renumbered from 0. */
export async function demoSplits(): Promise<Map<string, readonly Task[]>> {
  const { tasks } = await loadTasksStrict(DEMO_TASKS_FILE);
  const seen = new Set<string>();
  const train: Task[] = [];
  const evalTasks: Task[] = [];
  for (const task of tasks) {
    const country = task.country ?? '';
    (seen.has(country) ? evalTasks : train).push(task);
    seen.add(country);
  }
  return new Map([
    ['train', renumber(train)],
    ['eval', renumber(evalTasks)],
  ]);
}

function renumber(tasks: readonly Task[]): Task[] {
  return tasks.map((task, i) => ({ ...task, task_index: i }));
}

/** The split a reset without one uses: `train` when served, else the first (none when empty). */
export function defaultSplit(splits: Splits): string | undefined {
  return splits.has('train') ? 'train' : splits.keys().next().value;
}

/** The served splits as the Task API lists them. */
export function splitInfos(splits: Splits): { name: string; type: string; num_tasks: number; default: boolean }[] {
  const fallback = defaultSplit(splits);
  return [...splits].map(([name, tasks]) => ({ name, type: 'tasks', num_tasks: tasks.length, default: name === fallback }));
}
