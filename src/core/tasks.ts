/**
 * The task schema of the public GeoGuesser project (docs/formats.md) and the validation rules that decide
 * whether a task file can be used. Pure: the file reader in src/tasks feeds lines in, so one set of
 * rules serves validation, import, the environment and splits.
 */
import { z } from '../vendor/zod.js';

/** Image ids name files in a panorama cache: anything path-like is refused. */
export const IMAGE_ID_PATTERN = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,127}$/;

const imageId = z
  .union([z.string(), z.number().int().nonnegative()])
  .transform((v) => String(v))
  .refine((v) => IMAGE_ID_PATTERN.test(v) && !v.includes('..'), {
    message: 'expected a file-safe id (letters, digits, "_", "-", ".")',
  });

const latitude = z.number().min(-90, 'expected a latitude in [-90, 90]').max(90, 'expected a latitude in [-90, 90]');
const longitude = z
  .number()
  .min(-180, 'expected a longitude in [-180, 180]')
  .max(180, 'expected a longitude in [-180, 180]');

export const FrameSchema = z.looseObject({
  image_id: imageId,
  lat: latitude,
  lon: longitude,
  compass_angle: z.number().default(0),
  captured_at: z
    .string()
    .regex(/^(\d{4}-(0[1-9]|1[0-2]))?$/, 'expected "YYYY-MM" or ""')
    .default(''),
  is_pano: z.boolean().default(true),
});

export const AttributionSchema = z.looseObject({
  creator_username: z.string().optional(),
  creator_id: z.union([z.string(), z.number()]).transform(String).optional(),
  licence: z.string().optional(),
  source: z.string().optional(),
});

export const TaskSchema = z.looseObject({
  task_index: z.number().int('expected an integer').nonnegative('expected an integer >= 0'),
  task_id: z.string().min(1, 'expected a non-empty string'),
  frames: z.array(FrameSchema).min(1, 'expected a non-empty list of frames'),
  start_frame: z.number().int('expected an integer').nonnegative('expected an integer >= 0').default(0),
  country: z.string().optional(),
  sequence_id: z.string().optional(),
  provider: z.string().optional(),
  attribution: AttributionSchema.optional(),
  meta: z.record(z.string(), z.unknown()).optional(),
});

export type Frame = z.output<typeof FrameSchema>;
export type Task = z.output<typeof TaskSchema>;

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

/** Parses one JSONL line into a task, reporting every schema problem with its field path. */
export function parseTaskLine(text: string, line: number): ParsedLine {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, errors: [{ line, field: '(line)', message: `unparseable JSON: ${(err as Error).message}` }] };
  }
  const parsed = TaskSchema.safeParse(value);
  if (!parsed.success) {
    return {
      ok: false,
      errors: parsed.error.issues.map((issue) => ({
        line,
        field: issue.path.length ? issue.path.join('.') : '(task)',
        message: issue.message,
      })),
    };
  }
  const task = parsed.data;
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
