/**
 * The one task loader: streams a JSONL task file line by line (constant memory in the file's size
 * when `onTask` is given) through the pure rules of src/core/tasks.
 */
import { InputError } from '../core/errors.js';
import { assertReadableFile, textLines } from '../files.js';
import { parseTaskLine, TaskSetValidator, type LabelCheck, type Task, type TaskError, type TaskWarning } from '../core/tasks.js';

export interface LoadOptions {
  /** Checks country labels against the start point (see src/geo); omitted, no such warnings. */
  labelCheck?: LabelCheck;
  /** A repeated or non-contiguous task_index as a warning instead of an error (see TaskSetValidator). */
  taskIndex?: 'error' | 'warning';
  /** Called with each usable task in file order; when given, tasks are not kept in the result. */
  onTask?: (task: Task, line: number) => void;
}

export interface LoadResult {
  file: string;
  /** Usable tasks sorted by task_index (empty when `onTask` was given). */
  tasks: Task[];
  /** Count of usable tasks. */
  count: number;
  lines: number;
  errors: TaskError[];
  warnings: TaskWarning[];
}

/** Reads a task file. Unreadable files throw InputError; problems inside the file are returned. */
export async function loadTaskFile(file: string, options: LoadOptions = {}): Promise<LoadResult> {
  await assertReadableFile(file, 'task file');
  const validator = new TaskSetValidator(options.labelCheck, { taskIndex: options.taskIndex });
  const tasks: Task[] = [];
  let count = 0;
  let lineNo = 0;
  for await (const { line, text } of textLines(file)) {
    lineNo = line;
    if (text.trim() === '') continue;
    const parsed = parseTaskLine(text, lineNo);
    if (!parsed.ok) {
      validator.addErrors(parsed.errors);
      continue;
    }
    if (!validator.add(parsed.task, lineNo)) continue;
    count++;
    if (options.onTask) options.onTask(parsed.task, lineNo);
    else tasks.push(parsed.task);
  }
  const { errors, warnings } = validator.finish();
  if (count === 0 && errors.length === 0) {
    errors.push({ line: 0, field: '(file)', message: `no tasks in file${lineNo === 0 ? ' (it is empty)' : ''}: expected one JSON task per line` });
  }
  tasks.sort((a, b) => a.task_index - b.task_index);
  return { file, tasks, count, lines: lineNo, errors, warnings };
}

/** Loads a file that must be clean: the first error becomes an InputError naming file:line and field. */
export async function loadTasksStrict(file: string, options: LoadOptions = {}): Promise<LoadResult> {
  const result = await loadTaskFile(file, options);
  const first = result.errors[0];
  if (first) {
    const more = result.errors.length > 1 ? ` (and ${result.errors.length - 1} more; run \`geolab tasks validate\`)` : '';
    throw new InputError(first.message + more, { file, line: first.line || undefined, field: first.field });
  }
  return result;
}
