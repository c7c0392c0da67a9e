/**
 * The task schema (docs/formats.md, "Task index") written as zod schemas: the reference that
 * src/core/tasks.ts's hand-written check is compared with (test/core/task-check.test.ts, on random
 * values), and where the Task and Frame types come from. Reading a task file does not load it: zod
 * takes some 45 ms to load, a twentieth of `geolab audit` on 882 prompts.
 */
import { z } from '../vendor/zod.js';
import { IMAGE_ID_PATTERN } from './tasks.js';

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
