/**
 * The task splits an environment serves: `SPLIT=FILE` pairs from the command line, or a workspace's:
 * the demo dataset as `train` and `eval` (the second task of each country that has two goes to
 * eval, so the splits share no sequence and every eval country is also seen in train) and every
 * task set under its own name (docs/protocol.md).
 */
import { UsageError } from '../core/errors.js';
import type { Task } from '../core/tasks.js';
import { DEMO_TASKS_FILE } from '../paths.js';
import type { Workspace } from '../store/index.js';
import { loadTasksStrict } from '../tasks/load.js';
import { startPanoramaProblem } from '../tasks/panoramas.js';

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

/** Splits with the panorama cache of each and which of them the demo generator may draw. */
export interface ServedSplits {
  splits: Map<string, readonly Task[]>;
  panoramas: Map<string, string>;
  demo: string[];
}

/** What a workspace's embedded environment serves: sizes at once, tasks only for the splits asked. */
export interface WorkspaceSplits {
  sizes: Map<string, number>;
  load(names: Iterable<string>): ServedSplits;
}

/**
 * The workspace's splits: the demo's `train` and `eval`, then every task set by name (a set named
 * `train` or `eval` takes the demo's place). A split's panoramas come from `panos` (a command's
 * flag), else its task set's own cache, else the workspace's `panos` setting, else the workspace's
 * panos/ (where the demo's are drawn, which also keeps the demo's out of a user's cache).
 */
export async function workspaceSplits(ws: Workspace, panos?: string): Promise<WorkspaceSplits> {
  const [demo, { listTaskSets, readTasks }, { panoramaCache }, { DEMO_SET }] = await Promise.all([
    demoSplits(),
    import('../store/task-sets.js'),
    import('../store/settings.js'),
    import('../store/index.js'),
  ]);
  const sets = new Map(listTaskSets(ws.db).map((set) => [set.name, set]));
  const sizes = new Map<string, number>();
  for (const [name, tasks] of demo) if (!sets.has(name)) sizes.set(name, tasks.length);
  for (const [name, set] of sets) sizes.set(name, set.n_tasks);
  const loaded = new Map<string, readonly Task[]>();
  return {
    sizes,
    load(names) {
      const served: ServedSplits = { splits: new Map(), panoramas: new Map(), demo: [] };
      for (const name of new Set(names)) {
        const set = sets.get(name);
        const fromDemo = set ? set.name === DEMO_SET && set.panos_dir === null : demo.has(name);
        const tasks = loaded.get(name) ?? (set ? readTasks(ws.db, name) : demo.get(name));
        if (!tasks) continue;
        loaded.set(name, tasks);
        served.splits.set(name, tasks);
        // The demo's are drawn into the workspace's own panos/, never into a user's cache.
        served.panoramas.set(name, fromDemo ? (panos ?? ws.paths.panoramas) : panoramaCache(ws.db, ws.paths.panoramas, panos, set?.panos_dir));
        if (fromDemo) served.demo.push(name);
      }
      return served;
    },
  };
}

/** The split a reset without one uses: `train` when served, else the first (none when empty). */
export function defaultSplit(splits: ReadonlyMap<string, unknown>): string | undefined {
  return splits.has('train') ? 'train' : splits.keys().next().value;
}

/** The served splits as the Task API lists them. */
export function splitInfos(splits: Splits): { name: string; type: string; num_tasks: number; default: boolean }[] {
  const fallback = defaultSplit(splits);
  return [...splits].map(([name, tasks]) => ({ name, type: 'tasks', num_tasks: tasks.length, default: name === fallback }));
}

/** Which setting a task choice got wrong, so a form can point at the field. */
export interface TaskProblem {
  setting: 'split' | 'task';
  message: string;
}

/** Null when `split` is served and `index` (null: random) is one of its tasks. */
export function taskProblem(sizes: ReadonlyMap<string, number>, where: string, split: string, index: number | null): TaskProblem | null {
  const size = sizes.get(split);
  if (size === undefined) return { setting: 'split', message: `split "${split}" is not served: ${where} serves ${[...sizes.keys()].join(', ') || 'none'}` };
  if (size === 0) return { setting: 'split', message: `split "${split}" has no tasks` };
  if (index !== null && !(Number.isInteger(index) && index >= 0 && index < size)) {
    return { setting: 'task', message: `task ${index} is out of range: split ${split} has tasks 0 to ${size - 1}` };
  }
  return null;
}

export const EMBEDDED = 'the embedded environment';

export interface EmbeddedChoice {
  /** Null: the default split. */
  split: string | null;
  /** Null: a random task of the split. */
  index: number | null;
  /** A command's --panos, over any task set's or the workspace's cache. */
  panos?: string;
  /** Fetch missing panoramas from Mapillary (needs a token). */
  fetch?: boolean;
}

/**
 * The embedded environment's split and task for a choice (a random task when none is asked for),
 * checked before anything is drawn: the split is served, the task in range, and the start frame's
 * panorama on disk, fetchable or drawn by the demo generator; else a one-line UsageError.
 * `geolab play` calls it before the TUI opens.
 */
export async function chooseEmbeddedTask(choice: EmbeddedChoice, workspace: Workspace) {
  const fetcher = choice.fetch ? (await import('../tasks/mapillary.js')).mapillaryFromEnv() : undefined;
  const served = await workspaceSplits(workspace, choice.panos);
  const split = choice.split ?? defaultSplit(served.sizes) ?? '';
  const problem = taskProblem(served.sizes, EMBEDDED, split, choice.index);
  if (problem) throw new UsageError(problem.message);
  const index = choice.index ?? Math.floor(Math.random() * served.sizes.get(split)!);
  const { splits, panoramas, demo } = served.load([split]);
  const missing = startPanoramaProblem(splits.get(split)![index]!, `split ${split}, task ${index}`, panoramas.get(split)!);
  if (missing && !fetcher && !demo.includes(split)) throw new UsageError(missing);
  return { ...served, split, index, fetcher };
}
