/**
 * The task schema of the public GeoGuesser project (docs/formats.md) and the validation rules that decide
 * whether a task file can be used. Pure: the file reader in src/tasks feeds lines in, so one set of
 * rules serves validation, import, the environment and splits.
 */
import type { Frame, Task } from './task-schema.js';
import { expectedType, isRecord } from './values.js';

export type { Frame, Task } from './task-schema.js';

/** Image ids name files in a panorama cache: anything path-like is refused. */
export const IMAGE_ID_PATTERN = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,127}$/;

export interface TaskError {
  line: number;
  field: string;
  message: string;
}

export type TaskWarningKind = 'missing_country' | 'repeated_sequence' | 'country_mismatch' | 'missing_attribution' | 'task_index';

export interface TaskWarning {
  line: number;
  task_id: string;
  kind: TaskWarningKind;
  message: string;
}

/** A parsed line: the task, or the errors that keep it from being one. */
export type ParsedLine = { ok: true; task: Task } | { ok: false; errors: TaskError[] };

/** One thing wrong with a task value: where (keys and indices from the top) and what. */
export interface TaskIssue {
  path: (string | number)[];
  message: string;
}

export type CheckedTask = { ok: true; task: Task } | { ok: false; issues: TaskIssue[] };

/**
 * Checks a parsed JSON value against the task schema and fills in its defaults (compass_angle 0,
 * captured_at "", is_pano true, start_frame 0). Written out by hand: it gives what the zod schema in
 * task-schema.ts gives (the same task, the same issues in the same order, worded the same), which
 * test/core/task-check.test.ts checks on random values, without loading zod. Unknown members are
 * kept, after the schema's own, in the order they came.
 */
export function checkTask(value: unknown): CheckedTask {
  const issues: TaskIssue[] = [];
  const task = taskOf(value, issues);
  return task && issues.length === 0 ? { ok: true, task } : { ok: false, issues };
}

/** checkTask for a value that must be a task (read back from the workspace): its issues are an error. */
export function parseTask(value: unknown): Task {
  const checked = checkTask(value);
  if (checked.ok) return checked.task;
  throw new Error(`not a task: ${checked.issues.map((i) => `${i.path.join('.') || '(task)'}: ${i.message}`).join('; ')}`);
}

type Issues = TaskIssue[];
type Path = (string | number)[];
type Json = Record<string, unknown>;

const TASK_KEYS = new Set(['task_index', 'task_id', 'frames', 'start_frame', 'country', 'sequence_id', 'provider', 'attribution', 'meta']);
const FRAME_KEYS = new Set(['image_id', 'lat', 'lon', 'compass_angle', 'captured_at', 'is_pano']);
const ATTRIBUTION_MEMBERS = ['creator_username', 'creator_id', 'licence', 'source'] as const;
const ATTRIBUTION_KEYS = new Set<string>(ATTRIBUTION_MEMBERS);
const NO_KEYS = new Set<string>();
const CAPTURED_AT = /^(\d{4}-(0[1-9]|1[0-2]))?$/;
const NOT_INTEGER = 'expected an integer';
const NEGATIVE = 'expected an integer >= 0';
const BAD_IMAGE_ID = 'expected a file-safe id (letters, digits, "_", "-", ".")';


/**
 * Whether a value is shorter than 1, by its `length`: checked of anything that has a length, even a
 * value of the wrong type (an array for task_id, {"length": 0} for frames), as zod checks it.
 */
function tooShort(value: unknown): boolean {
  if (value === null || value === undefined) return false;
  const { length } = value as { length?: unknown };
  return length !== undefined && !((length as number) >= 1);
}

/** The members of `from` that are not the schema's, after the ones `to` has, in their order. */
function withUnknown<T extends Json>(to: T, from: Json, known: ReadonlySet<string>): T {
  const out = to as Json;
  for (const key in from) if (Object.hasOwn(from, key) && !known.has(key)) out[key] = from[key];
  return to;
}

interface Primitives {
  string: string;
  number: number;
  boolean: boolean;
}

/** The value when it is of this JSON type; else an issue saying what it is instead. */
function typed<K extends keyof Primitives>(type: K, value: unknown, path: Path, issues: Issues): Primitives[K] | undefined {
  if (typeof value === type) return value as Primitives[K];
  issues.push({ path, message: expectedType(type, value) });
  return undefined;
}

/** A whole number >= 0 within the safe integers (task_index, start_frame). */
function countAt(value: unknown, path: Path, issues: Issues): number | undefined {
  const n = typed('number', value, path, issues);
  if (n === undefined) return undefined;
  if (!Number.isInteger(n)) {
    issues.push({ path, message: NOT_INTEGER });
    return undefined;
  }
  const before = issues.length;
  if (Math.abs(n) > Number.MAX_SAFE_INTEGER) issues.push({ path, message: NOT_INTEGER });
  if (n < 0) issues.push({ path, message: NEGATIVE });
  return issues.length === before ? n : undefined;
}

function degreesAt(value: unknown, path: Path, issues: Issues, limit: number, message: string): number | undefined {
  const n = typed('number', value, path, issues);
  if (n === undefined) return undefined;
  if (n < -limit || n > limit) {
    issues.push({ path, message });
    return undefined;
  }
  return n;
}

/** An image id: a string, or a whole number >= 0 made one; file-safe either way. */
function imageIdAt(value: unknown, path: Path, issues: Issues): string | undefined {
  let id: string;
  if (typeof value === 'string') id = value;
  else if (typeof value === 'number' && Number.isInteger(value)) {
    const before = issues.length;
    if (value > Number.MAX_SAFE_INTEGER) issues.push({ path, message: `Too big: expected int to be <=${Number.MAX_SAFE_INTEGER}` });
    if (value < -Number.MAX_SAFE_INTEGER) issues.push({ path, message: `Too small: expected int to be >=${-Number.MAX_SAFE_INTEGER}` });
    if (value < 0) issues.push({ path, message: 'Too small: expected number to be >=0' });
    if (issues.length > before) return undefined;
    id = String(value);
  } else {
    issues.push({ path, message: 'Invalid input' });
    return undefined;
  }
  if (IMAGE_ID_PATTERN.test(id) && !id.includes('..')) return id;
  issues.push({ path, message: BAD_IMAGE_ID });
  return undefined;
}

function frameOf(value: unknown, path: Path, issues: Issues): Frame | undefined {
  if (!isRecord(value)) {
    issues.push({ path, message: expectedType('object', value) });
    return undefined;
  }
  const before = issues.length;
  const image_id = imageIdAt(value.image_id, [...path, 'image_id'], issues);
  const lat = degreesAt(value.lat, [...path, 'lat'], issues, 90, 'expected a latitude in [-90, 90]');
  const lon = degreesAt(value.lon, [...path, 'lon'], issues, 180, 'expected a longitude in [-180, 180]');
  const compass_angle = value.compass_angle === undefined ? 0 : typed('number', value.compass_angle, [...path, 'compass_angle'], issues);
  let captured_at = value.captured_at === undefined ? '' : typed('string', value.captured_at, [...path, 'captured_at'], issues);
  if (captured_at !== undefined && !CAPTURED_AT.test(captured_at)) {
    issues.push({ path: [...path, 'captured_at'], message: 'expected "YYYY-MM" or ""' });
    captured_at = undefined;
  }
  const is_pano = value.is_pano === undefined ? true : typed('boolean', value.is_pano, [...path, 'is_pano'], issues);
  if (issues.length > before) return undefined;
  return withUnknown({ image_id, lat, lon, compass_angle, captured_at, is_pano } as Frame, value, FRAME_KEYS);
}

function attributionOf(value: unknown, path: Path, issues: Issues): Task['attribution'] {
  if (!isRecord(value)) {
    issues.push({ path, message: expectedType('object', value) });
    return undefined;
  }
  const out: Json = {};
  for (const key of ATTRIBUTION_MEMBERS) {
    const member = value[key];
    if (member === undefined) continue;
    if (key === 'creator_id' && (typeof member === 'string' || typeof member === 'number')) out[key] = String(member);
    else if (key === 'creator_id') issues.push({ path: [...path, key], message: 'Invalid input' });
    else {
      const text = typed('string', member, [...path, key], issues);
      if (text !== undefined) out[key] = text;
    }
  }
  return withUnknown(out, value, ATTRIBUTION_KEYS);
}

function taskOf(value: unknown, issues: Issues): Task | undefined {
  if (!isRecord(value)) {
    issues.push({ path: [], message: expectedType('object', value) });
    return undefined;
  }
  const task_index = countAt(value.task_index, ['task_index'], issues);
  const task_id = typed('string', value.task_id, ['task_id'], issues);
  if (tooShort(value.task_id)) issues.push({ path: ['task_id'], message: 'expected a non-empty string' });
  let frames: Frame[] | undefined;
  if (!Array.isArray(value.frames)) issues.push({ path: ['frames'], message: expectedType('array', value.frames) });
  else frames = (value.frames as unknown[]).map((frame, i) => frameOf(frame, ['frames', i], issues) as Frame);
  if (tooShort(value.frames)) issues.push({ path: ['frames'], message: 'expected a non-empty list of frames' });
  const start_frame = value.start_frame === undefined ? 0 : countAt(value.start_frame, ['start_frame'], issues);
  const out: Json = { task_index, task_id, frames, start_frame };
  for (const key of ['country', 'sequence_id', 'provider'] as const) {
    if (value[key] !== undefined) out[key] = typed('string', value[key], [key], issues);
  }
  if (value.attribution !== undefined) out.attribution = attributionOf(value.attribution, ['attribution'], issues);
  if (value.meta !== undefined) {
    if (isRecord(value.meta)) out.meta = withUnknown({}, value.meta, NO_KEYS);
    else issues.push({ path: ['meta'], message: expectedType('record', value.meta) });
  }
  return withUnknown(out, value, TASK_KEYS) as Task;
}

/** Parses one JSONL line into a task, reporting every schema problem with its field path. */
export function parseTaskLine(text: string, line: number): ParsedLine {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, errors: [{ line, field: '(line)', message: `unparseable JSON: ${(err as Error).message}` }] };
  }
  const parsed = checkTask(value);
  if (!parsed.ok) {
    return {
      ok: false,
      errors: parsed.issues.map((issue) => ({
        line,
        field: issue.path.length ? issue.path.join('.') : '(task)',
        message: issue.message,
      })),
    };
  }
  const { task } = parsed;
  if (task.start_frame >= task.frames.length) {
    return {
      ok: false,
      errors: [
        {
          line,
          field: 'start_frame',
          message: `start_frame ${task.start_frame} is out of range for ${task.frames.length} frame(s)`,
        },
      ],
    };
  }
  return { ok: true, task };
}

/** The ground truth of a task: its start frame's position. */
export function truthOf(task: Task): { lat: number; lon: number } {
  const frame = task.frames[task.start_frame] as Frame;
  return { lat: frame.lat, lon: frame.lon };
}

/**
 * Says why a task's country label disagrees with its start point, or null when it agrees or cannot be
 * judged. Injected so this module stays free of geography data.
 */
export type LabelCheck = (task: Task) => string | null;

/**
 * Accumulates the file-level rules over a stream of tasks: duplicated ids, repeated sequences and a
 * contiguous task_index (checked after sorting, at the end).
 */
export class TaskSetValidator {
  readonly errors: TaskError[] = [];
  readonly warnings: TaskWarning[] = [];
  private readonly lineOfId = new Map<string, number>();
  private readonly lineOfSequence = new Map<string, number>();
  private readonly lineOfIndex = new Map<number, number>();
  private readonly idAtLine = new Map<number, string>();

  /**
   * `taskIndex: 'warning'`: a repeated or non-contiguous task_index is a warning, not an error. For
   * reading files only to inspect them (`splits check`: an eval row appended to train as it is keeps
   * its index, and is contamination to report, not a file to refuse).
   */
  constructor(
    private readonly labelCheck?: LabelCheck,
    private readonly options: { taskIndex?: 'error' | 'warning' } = {},
  ) {}

  addErrors(errors: TaskError[]): void {
    this.errors.push(...errors);
  }

  /** Checks one parsed task against the ones before it; returns false when it is unusable. */
  add(task: Task, line: number): boolean {
    let ok = true;
    if (this.options.taskIndex === 'warning') this.idAtLine.set(line, task.task_id);
    const firstId = this.lineOfId.get(task.task_id);
    if (firstId !== undefined) {
      this.errors.push({ line, field: 'task_id', message: `duplicated task_id "${task.task_id}" (first on line ${firstId})` });
      ok = false;
    } else {
      this.lineOfId.set(task.task_id, line);
    }
    const firstIndex = this.lineOfIndex.get(task.task_index);
    if (firstIndex !== undefined) {
      const message = `duplicated task_index ${task.task_index} (first on line ${firstIndex})`;
      if (this.options.taskIndex === 'warning') {
        this.warnings.push({ line, task_id: task.task_id, kind: 'task_index', message });
      } else {
        this.errors.push({ line, field: 'task_index', message });
        ok = false;
      }
    } else {
      this.lineOfIndex.set(task.task_index, line);
    }
    const warn = (kind: TaskWarningKind, message: string) => this.warnings.push({ line, task_id: task.task_id, kind, message });
    if (task.country === undefined || task.country === '') warn('missing_country', 'no country label');
    if (task.attribution === undefined) warn('missing_attribution', 'no attribution');
    if (task.sequence_id !== undefined) {
      const firstSeq = this.lineOfSequence.get(task.sequence_id);
      if (firstSeq !== undefined) {
        warn('repeated_sequence', `sequence_id "${task.sequence_id}" also on line ${firstSeq} (fine in a pool, wrong in a frozen split)`);
      } else {
        this.lineOfSequence.set(task.sequence_id, line);
      }
    }
    const mismatch = this.labelCheck?.(task);
    if (mismatch) warn('country_mismatch', mismatch);
    return ok;
  }

  /** Ends the stream: reports gaps in task_index (contiguous from 0 after sorting). */
  finish(): { errors: TaskError[]; warnings: TaskWarning[] } {
    const indices = [...this.lineOfIndex.keys()].sort((a, b) => a - b);
    let expected = 0;
    for (const index of indices) {
      if (index !== expected) {
        const line = this.lineOfIndex.get(index) as number;
        const message = `task_index is not contiguous: expected ${expected}, found ${index}`;
        if (this.options.taskIndex === 'warning') this.warnings.push({ line, task_id: this.idAtLine.get(line) ?? '', kind: 'task_index', message });
        else this.errors.push({ line, field: 'task_index', message });
        break;
      }
      expected++;
    }
    this.errors.sort((a, b) => a.line - b.line);
    this.warnings.sort((a, b) => a.line - b.line);
    return { errors: this.errors, warnings: this.warnings };
  }
}
