/**
 * OpenEnv's Task API (`POST /{env_name}/num_tasks|task|tasks|task_range`): its response bodies, and
 * Python slice semantics for ranges. Answers as a status and a body, so it knows nothing of HTTP.
 */
import type { Task } from '../../core/tasks.js';
import { defaultSplit, type Splits } from '../task-splits.js';
import type { EnvErrorCode } from '../types.js';
import { isRecord } from '../../core/values.js';

/** The name OpenEnv's Task API routes are namespaced by (`/{env_name}/...`). */
export const ENV_NAME = 'geoguesser_env';

/** The Task API's routes, as request paths. */
export const TASK_API_PATHS: readonly string[] = ['num_tasks', 'task', 'tasks', 'task_range'].map((r) => `/${ENV_NAME}/${r}`);

export interface TaskApiReply {
  status: number;
  body: unknown;
}

/** Truth-free task spec: bookkeeping for harnesses, never for prompts. */
export function taskSpec(task: Task, split: string) {
  return {
    task_index: task.task_index,
    task_id: task.task_id,
    split,
    n_frames: task.frames.length,
    provider: task.provider ?? null,
    sequence_id: task.sequence_id ?? null,
    offline_ready: task.meta?.offline_ready === true,
  };
}

/** Answers one of TASK_API_PATHS with the request body `body`. */
export function taskApi(splits: Splits, path: string, body: unknown): TaskApiReply {
  const fields = isRecord(body) ? body : {};
  const split = fields.split ?? defaultSplit(splits);
  if (typeof split !== 'string' || !splits.has(split)) {
    return failure(`unknown split ${JSON.stringify(split)}: served are ${[...splits.keys()].join(', ')}`);
  }
  const tasks = splits.get(split) as readonly Task[];
  switch (path.slice(ENV_NAME.length + 2)) {
    case 'num_tasks':
      return { status: 200, body: { num_tasks: tasks.length } };
    case 'task': {
      const index = fields.index;
      if (!Number.isInteger(index) || (index as number) < 0 || (index as number) >= tasks.length) {
        return failure(`index ${JSON.stringify(index)} is out of range for split ${split} (0..${tasks.length - 1})`);
      }
      return { status: 200, body: { task: taskSpec(tasks[index as number] as Task, split) } };
    }
    case 'tasks':
      return { status: 200, body: { tasks: tasks.map((t) => taskSpec(t, split)), env_name: ENV_NAME } };
    case 'task_range': {
      const range = sliceRange(tasks.length, fields.start, fields.stop);
      if (typeof range === 'string') return failure(range);
      return { status: 200, body: { tasks: tasks.slice(range[0], range[1]).map((t) => taskSpec(t, split)) } };
    }
  }
  return { status: 404, body: { code: 'UNKNOWN_TYPE' satisfies EnvErrorCode, message: `no route POST ${path}` } };
}

function failure(message: string): TaskApiReply {
  return { status: 400, body: { code: 'VALIDATION_ERROR' satisfies EnvErrorCode, message } };
}

/**
 * `[start, stop)` as Python's `slice(start, stop).indices(length)` gives it: absent bounds are the
 * ends, negative ones count from the end, all are clamped, and start past stop is empty. A string
 * says why the bounds are unusable.
 */
export function sliceRange(length: number, start: unknown, stop: unknown): [number, number] | string {
  const bound = (value: unknown, absent: number): number | undefined => {
    if (value === undefined || value === null) return absent;
    if (!Number.isSafeInteger(value)) return undefined;
    const n = value as number;
    return Math.min(length, Math.max(0, n < 0 ? n + length : n));
  };
  const from = bound(start, 0);
  const to = bound(stop, length);
  if (from === undefined || to === undefined) {
    return `start and stop must be integers or null (Python slice bounds), got ${JSON.stringify(start ?? null)} and ${JSON.stringify(stop ?? null)}`;
  }
  return [from, Math.max(from, to)];
}
