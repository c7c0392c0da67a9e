/**
 * The action contract (docs/protocol.md) written as zod schemas: the reference that
 * src/env/actions.ts's hand-written checks are compared with (test/env/action-check.test.ts, on
 * random values), where the action types come from, and what the JSON Schemas in
 * src/env/action-json-schemas.ts are generated from (`npm run schemas:actions`). Nothing loads it at
 * run time: zod takes some 25-45 ms to load (docs/budgets.md, "Memory touched").
 */
import { z } from '../vendor/zod.js';
import {
  actionFields,
  COUNTRY_MAX_CHARS,
  invalidFields,
  LABEL_MAX_CHARS,
  OPS,
  resetFields,
  RESPONSE_MAX_CHARS,
} from './actions.js';
import type { Op, ResetRequest } from './types.js';

/** "a number from -90 to 90" / "a number above 0 and at most 500", said the same way everywhere. */
function numberIn(min: number, max: number, { exclusiveMin = false } = {}) {
  const error = `expected a number ${exclusiveMin ? `above ${min} and at most ${max}` : `from ${min} to ${max}`}`;
  const base = z.number({ error });
  return (exclusiveMin ? base.gt(min, { error }) : base.min(min, { error })).max(max, { error });
}

const latitude = () => numberIn(-90, 90).describe('Latitude in degrees, north positive.');
const longitude = () => numberIn(-180, 180).describe('Longitude in degrees, east positive.');
const text = (maxChars: number) =>
  z.string({ error: `expected a string of at most ${maxChars} characters` }).max(maxChars, {
    error: `expected a string of at most ${maxChars} characters`,
  });

export const LookSchema = z.object({
  op: z.literal('look'),
  heading_deg: numberIn(-3600, 3600)
    .default(0)
    .describe('Compass heading to face, degrees clockwise from true north (0 north, 90 east).'),
  pitch_deg: numberIn(-90, 90).default(0).describe('Tilt in degrees; positive looks up.'),
  fov_deg: numberIn(10, 120).default(90).describe('Horizontal field of view in degrees; smaller zooms in.'),
});

export const PanSchema = z.object({
  op: z.literal('pan'),
  delta_deg: numberIn(-3600, 3600).describe('Degrees to turn; positive turns right (clockwise).'),
});

export const ZoomSchema = z.object({
  op: z.literal('zoom'),
  fov_deg: numberIn(10, 120).describe('Horizontal field of view in degrees; smaller zooms in.'),
});

export const MoveSchema = z.object({
  op: z.literal('move'),
  direction: z
    .enum(['forward', 'backward'], { error: 'expected "forward" or "backward"' })
    .default('forward')
    .describe('Along the captured road: forward or backward.'),
  meters: numberIn(0, 500, { exclusiveMin: true }).default(10).describe('How far to walk, in metres.'),
});

export const PinSchema = z.object({
  op: z.literal('pin'),
  lat: latitude(),
  lon: longitude(),
  label: text(LABEL_MAX_CHARS).optional().describe('Your own note for the pin.'),
  span_deg: numberIn(0.02, 180, { exclusiveMin: true })
    .default(7)
    .describe('Half-width of the map in degrees; below about 4 the map shows roads and towns.'),
});

export const ViewMapSchema = z.object({
  op: z.literal('view_map'),
  lat: latitude(),
  lon: longitude(),
  span_deg: numberIn(0.05, 180, { exclusiveMin: true }).default(7).describe('Half-width of the map in degrees.'),
});

export const MeasureSchema = z.object({
  op: z.literal('measure'),
  lat_a: latitude(),
  lon_a: longitude(),
  lat_b: latitude(),
  lon_b: longitude(),
});

export const ListPinsSchema = z.object({ op: z.literal('list_pins') });
export const ClearPinsSchema = z.object({ op: z.literal('clear_pins') });

export const ReverseGeocodeSchema = z.object({
  op: z.literal('reverse_geocode'),
  lat: latitude(),
  lon: longitude(),
});

export const GuessSchema = z
  .object({
    op: z.literal('guess'),
    lat: latitude().optional(),
    lon: longitude().optional(),
    response: text(RESPONSE_MAX_CHARS)
      .optional()
      .describe('Free text holding the coordinates, used when lat/lon are not given.'),
    country: text(COUNTRY_MAX_CHARS).optional().describe('Your country guess (not scored).'),
    confidence: numberIn(0, 100).optional().describe('How sure you are, as a fraction or a percentage (not scored).'),
    reasoning: text(RESPONSE_MAX_CHARS).optional().describe('Why (not scored).'),
  })
  .superRefine((guess, ctx) => {
    if ((guess.lat === undefined) !== (guess.lon === undefined)) {
      const missing = guess.lat === undefined ? 'lat' : 'lon';
      ctx.addIssue({ code: 'custom', path: [missing], message: 'expected lat and lon together' });
    } else if (guess.lat === undefined && guess.response === undefined) {
      ctx.addIssue({ code: 'custom', path: ['lat'], message: 'expected lat and lon, or a response holding them' });
    }
  });

/** One schema per op, in the order tools are listed. */
export const ACTION_SCHEMAS = {
  look: LookSchema,
  pan: PanSchema,
  zoom: ZoomSchema,
  move: MoveSchema,
  pin: PinSchema,
  view_map: ViewMapSchema,
  measure: MeasureSchema,
  list_pins: ListPinsSchema,
  clear_pins: ClearPinsSchema,
  reverse_geocode: ReverseGeocodeSchema,
  guess: GuessSchema,
} as const satisfies Record<Op, z.ZodType>;

export const ActionSchema = z.discriminatedUnion('op', Object.values(ACTION_SCHEMAS) as [
  typeof LookSchema,
  typeof PanSchema,
  typeof ZoomSchema,
  typeof MoveSchema,
  typeof PinSchema,
  typeof ViewMapSchema,
  typeof MeasureSchema,
  typeof ListPinsSchema,
  typeof ClearPinsSchema,
  typeof ReverseGeocodeSchema,
  typeof GuessSchema,
]);

/** An action after validation (a wire Action with every default filled in). */
export type ParsedAction = z.output<typeof ActionSchema>;
export type ActionOf<O extends Op> = Extract<ParsedAction, { op: O }>;

export const ResetRequestSchema = z.object({
  split: z.string({ error: 'expected a split name' }).min(1, { error: 'expected a split name' }).optional(),
  index: z.int({ error: 'expected an integer >= 0' }).min(0, { error: 'expected an integer >= 0' }).optional(),
  seed: z.int({ error: 'expected an integer' }).optional(),
  episode_id: text(200).min(1, { error: 'expected a non-empty string' }).optional(),
});

/** parseAction as it was before it was written out by hand: the object, op and unknown fields checked first, then the op's schema. */
export function parseActionReference(raw: unknown): ParsedAction {
  const { op, fields } = actionFields(raw);
  const parsed = (ACTION_SCHEMAS[op] as z.ZodType<ParsedAction>).safeParse(fields);
  if (!parsed.success) throw invalidFields(op, zodIssues(parsed.error), fields);
  return parsed.data;
}

/** parseResetRequest as it was before it was written out by hand. */
export function parseResetRequestReference(raw: unknown): ResetRequest {
  const fields = resetFields(raw);
  const parsed = ResetRequestSchema.safeParse(fields);
  if (!parsed.success) throw invalidFields('reset', zodIssues(parsed.error), fields);
  return parsed.data;
}

function zodIssues(error: z.ZodError): { field: string; message: string }[] {
  return error.issues.map((issue) => ({ field: issue.path.join('.'), message: issue.message }));
}

/** The JSON Schemas src/env/action-json-schemas.ts holds: per op, and the whole action's (served at /schema). */
export function actionJsonSchemas(): { ops: Record<Op, Record<string, unknown>>; action: Record<string, unknown> } {
  const ops = {} as Record<Op, Record<string, unknown>>;
  for (const op of OPS) ops[op] = z.toJSONSchema(ACTION_SCHEMAS[op], { io: 'input' }) as Record<string, unknown>;
  return { ops, action: z.toJSONSchema(ActionSchema, { io: 'input' }) as Record<string, unknown> };
}

/** src/env/action-json-schemas.ts as `npm run schemas:actions` writes it. */
export function actionJsonSchemasModule(): string {
  const { ops } = actionJsonSchemas();
  return [
    '// Written by `npm run schemas:actions` (scripts/action-json-schemas.ts) from src/env/action-schemas.ts: do not edit.',
    '/**',
    " * The JSON Schemas of the actions, input form (fields with a default are not required), exactly as",
    " * zod's toJSONSchema gives them, so that serving them loads no zod (docs/budgets.md, \"Memory touched\").",
    ' */',
    "import type { Op } from './types.js';",
    '',
    '/** Per op, in the order tools are listed. */',
    `export const OP_JSON_SCHEMAS: Readonly<Record<Op, Record<string, unknown>>> = ${JSON.stringify(ops, null, 2)};`,
    '',
  ].join('\n');
}
