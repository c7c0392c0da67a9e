/**
 * The action contract (docs/protocol.md): one flat object with an `op` field, its ranges and defaults,
 * what each op costs, and the MCP tool names that map onto the ops.
 *
 * The wire form is a flat model (as upstream's single pydantic action): a field that belongs to
 * another op is ignored, a field no op knows is refused (so a typo such as `heading` is not silently
 * read as the default), and a null field counts as absent (Python clients dump unset fields as null).
 */
import { z } from '../vendor/zod.js';
import { EnvError, type Op, type ResetRequest } from './types.js';
import { isRecord } from '../core/values.js';

/** Agent-written strings are capped: they are echoed back and stored with every turn. */
export const LABEL_MAX_CHARS = 80;
export const COUNTRY_MAX_CHARS = 100;
/** A whole model reply with its reasoning fits; the guess parser is linear, this only bounds memory. */
export const RESPONSE_MAX_CHARS = 20_000;

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

export const OPS = Object.keys(ACTION_SCHEMAS) as Op[];

/**
 * The JSON Schema of the action (served at /schema). Input form, so fields with a default are not
 * listed as required.
 */
export function actionJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(ActionSchema, { io: 'input' }) as Record<string, unknown>;
}

/** OpenEnv's base Action carries a free-form `metadata` dict; it is accepted and ignored. */
const FLAT_FIELDS = new Set(['metadata', ...Object.values(ACTION_SCHEMAS).flatMap((s) => Object.keys(s.shape))]);

/** Validates a wire action; throws EnvError('VALIDATION_ERROR') naming the field and what it accepts. */
export function parseAction(raw: unknown): ParsedAction {
  if (!isRecord(raw)) throw invalid(`an action must be a JSON object with an "op" field, got ${kindOf(raw)}`);
  const fields = withoutNulls(raw);
  const op = fields.op;
  if (op === undefined) throw invalid(`missing "op": expected one of ${OPS.join(', ')}`);
  if (typeof op !== 'string' || !(OPS as string[]).includes(op)) {
    throw invalid(`unknown op ${JSON.stringify(op)}: expected one of ${OPS.join(', ')}`);
  }
  const schema = ACTION_SCHEMAS[op as Op];
  const unknown = Object.keys(fields).filter((key) => !FLAT_FIELDS.has(key));
  if (unknown.length > 0) {
    const own = Object.keys(schema.shape).filter((key) => key !== 'op');
    throw invalid(
      `${op}: unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `"${k}"`).join(', ')}` +
        ` (${op} takes ${own.length ? own.join(', ') : 'no fields'})`,
    );
  }
  const parsed = (schema as z.ZodType<ParsedAction>).safeParse(fields);
  if (!parsed.success) {
    throw invalid(
      parsed.error.issues
        .map((issue) => {
          const field = issue.path.join('.');
          return `${op}.${field}: ${issue.message}, got ${describeValue(fields[String(issue.path[0])])}`;
        })
        .join('; '),
    );
  }
  return parsed.data;
}

export const ResetRequestSchema = z.object({
  split: z.string({ error: 'expected a split name' }).min(1, { error: 'expected a split name' }).optional(),
  index: z.int({ error: 'expected an integer >= 0' }).min(0, { error: 'expected an integer >= 0' }).optional(),
  seed: z.int({ error: 'expected an integer' }).optional(),
  episode_id: text(200).min(1, { error: 'expected a non-empty string' }).optional(),
});

const RESET_KEYS = Object.keys(ResetRequestSchema.shape);

/**
 * Validates reset data. An unknown key is an error, not ignored: a misspelt selector (upstream's
 * old `task_index` for `index`) would otherwise play a random task and look like a result.
 * Null values count as absent (OpenEnv clients send unset keyword arguments as null).
 */
export function parseResetRequest(raw: unknown): ResetRequest {
  if (raw === undefined || raw === null) return {};
  if (!isRecord(raw)) throw invalid(`reset data must be a JSON object, got ${kindOf(raw)}`);
  const fields = withoutNulls(raw);
  const unknown = Object.keys(fields).filter((key) => !RESET_KEYS.includes(key));
  if (unknown.length > 0) {
    const hint = unknown.includes('task_index') ? ' ("task_index" is spelt "index" here)' : '';
    throw invalid(
      `reset data: unknown key${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => JSON.stringify(k)).join(', ')}${hint};` +
        ` accepted keys are ${RESET_KEYS.join(', ')}`,
    );
  }
  const parsed = ResetRequestSchema.safeParse(fields);
  if (!parsed.success) {
    throw invalid(
      parsed.error.issues
        .map((issue) => `reset.${issue.path.join('.')}: ${issue.message}, got ${describeValue(fields[String(issue.path[0])])}`)
        .join('; '),
    );
  }
  return parsed.data;
}

/** MCP tool name -> wire op (docs/protocol.md), in the order tools are listed. */
export const MCP_TOOL_OPS = {
  look: 'look',
  pan: 'pan',
  zoom: 'zoom',
  move: 'move',
  place_pin: 'pin',
  view_map: 'view_map',
  list_pins: 'list_pins',
  clear_pins: 'clear_pins',
  measure: 'measure',
  reverse_geocode: 'reverse_geocode',
  submit_guess: 'guess',
} as const satisfies Record<string, Op>;

export type McpToolName = keyof typeof MCP_TOOL_OPS;
export const MCP_TOOL_NAMES = Object.keys(MCP_TOOL_OPS) as McpToolName[];

function invalid(message: string): EnvError {
  return new EnvError('VALIDATION_ERROR', message);
}


function withoutNulls(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== null));
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/** The offending value, short enough for an error line. */
function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  const json = JSON.stringify(value) ?? String(value);
  return json.length > 40 ? `${json.slice(0, 37)}...` : json;
}
