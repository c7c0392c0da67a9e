/**
 * The action contract (docs/protocol.md): one flat object with an `op` field, its ranges and defaults,
 * what each op costs, and the MCP tool names that map onto the ops.
 *
 * The wire form is a flat model (as upstream's single pydantic action): a field that belongs to
 * another op is ignored, a field no op knows is refused (so a typo such as `heading` is not silently
 * read as the default), and a null field counts as absent (Python clients dump unset fields as null).
 *
 * Written out by hand: the checks give what the zod schemas in action-schemas.ts give (the same
 * action, members in the same order, the same messages in the same order), which
 * test/env/action-check.test.ts checks on random values, without loading zod (docs/budgets.md,
 * "Memory touched"). The JSON Schemas come generated from those schemas (action-json-schemas.ts).
 */
import type { ParsedAction } from './action-schemas.js';
import { OP_JSON_SCHEMAS } from './action-json-schemas.js';
import { EnvError, type Op, type ResetRequest } from './types.js';
import { isRecord } from '../core/values.js';

// The types come from the zod schemas (src/env/action-schemas.ts), which nothing here loads at run time.
export type { ActionOf, ParsedAction } from './action-schemas.js';

/** Agent-written strings are capped: they are echoed back and stored with every turn. */
export const LABEL_MAX_CHARS = 80;
export const COUNTRY_MAX_CHARS = 100;
/** A whole model reply with its reasoning fits; the guess parser is linear, this only bounds memory. */
export const RESPONSE_MAX_CHARS = 20_000;

/**
 * One thing wrong with a field. `aborts`: a value of the wrong type, after which the guess's own
 * rule (lat with lon) is not checked; a value out of range or too long does not stop it.
 */
interface Issue {
  field: string;
  message: string;
  aborts: boolean;
}

/** Checks a field's value (undefined only when a required field is missing), adding what is wrong with it to `issues`. */
type Check = (value: unknown, field: string, issues: Issue[]) => void;

/** A field: its check, and what its absence means (an issue, nothing, or a value filled in). */
interface Field {
  check: Check;
  absent: 'required' | 'optional' | { fill: unknown };
}

/** "a number from -90 to 90" / "a number above 0 and at most 500", said the same way everywhere. */
function numberIn(min: number, max: number, { exclusiveMin = false } = {}): Check {
  const message = `expected a number ${exclusiveMin ? `above ${min} and at most ${max}` : `from ${min} to ${max}`}`;
  return (value, field, issues) => {
    if (typeof value !== 'number' || !Number.isFinite(value)) issues.push({ field, message, aborts: true });
    else if (value < min || (exclusiveMin && value === min) || value > max) issues.push({ field, message, aborts: false });
  };
}

/**
 * A string of at most `maxChars` characters, counted in code points as zod counts them; with
 * `emptyMessage`, not empty either.
 */
function text(maxChars: number, emptyMessage?: string): Check {
  const message = `expected a string of at most ${maxChars} characters`;
  return (value, field, issues) => {
    if (typeof value !== 'string') issues.push({ field, message, aborts: true });
    if (tooLong(value, maxChars)) issues.push({ field, message, aborts: false });
    if (emptyMessage !== undefined && tooShort(value)) issues.push({ field, message: emptyMessage, aborts: false });
  };
}

/*
 * zod's length checks run on any value that has a length, a string or not (an array of 81 labels
 * is refused twice: not a string, too long), and compare that length as it is, whatever it is
 * ({"length": "x"} is too long and too short). Hence the negated comparisons below.
 */

function lengthOf(value: unknown): unknown {
  return value === null || value === undefined ? undefined : (value as { length?: unknown }).length;
}

function tooLong(value: unknown, maxChars: number): boolean {
  const length = lengthOf(value);
  if (length === undefined) return false;
  const counted = typeof value === 'string' && value.length > maxChars ? [...value].length : length;
  return !((counted as number) <= maxChars);
}

function tooShort(value: unknown): boolean {
  const length = lengthOf(value);
  return length !== undefined && !((length as number) >= 1);
}

const required = (check: Check): Field => ({ check, absent: 'required' });
const optional = (check: Check): Field => ({ check, absent: 'optional' });
const defaulted = (check: Check, fill: unknown): Field => ({ check, absent: { fill } });

const latitude = required(numberIn(-90, 90));
const longitude = required(numberIn(-180, 180));

const direction: Check = (value, field, issues) => {
  if (value !== 'forward' && value !== 'backward') issues.push({ field, message: 'expected "forward" or "backward"', aborts: true });
};

/** Each op's fields besides `op`, in the order they are checked and the action holds them; one op a line, in the order tools are listed. */
const ACTION_FIELDS: Readonly<Record<Op, Readonly<Record<string, Field>>>> = {
  look: { heading_deg: defaulted(numberIn(-3600, 3600), 0), pitch_deg: defaulted(numberIn(-90, 90), 0), fov_deg: defaulted(numberIn(10, 120), 90) },
  pan: { delta_deg: required(numberIn(-3600, 3600)) },
  zoom: { fov_deg: required(numberIn(10, 120)) },
  move: { direction: defaulted(direction, 'forward'), meters: defaulted(numberIn(0, 500, { exclusiveMin: true }), 10) },
  pin: { lat: latitude, lon: longitude, label: optional(text(LABEL_MAX_CHARS)), span_deg: defaulted(numberIn(0.02, 180, { exclusiveMin: true }), 7) },
  view_map: { lat: latitude, lon: longitude, span_deg: defaulted(numberIn(0.05, 180, { exclusiveMin: true }), 7) },
  measure: { lat_a: latitude, lon_a: longitude, lat_b: latitude, lon_b: longitude },
  list_pins: {},
  clear_pins: {},
  reverse_geocode: { lat: latitude, lon: longitude },
  guess: {
    lat: optional(numberIn(-90, 90)),
    lon: optional(numberIn(-180, 180)),
    response: optional(text(RESPONSE_MAX_CHARS)),
    country: optional(text(COUNTRY_MAX_CHARS)),
    confidence: optional(numberIn(0, 100)),
    reasoning: optional(text(RESPONSE_MAX_CHARS)),
  },
};

export const OPS = Object.keys(ACTION_FIELDS) as Op[];

/** An op's fields besides `op`, in order. */
export function opFields(op: Op): string[] {
  return Object.keys(ACTION_FIELDS[op]);
}

/**
 * An op's arguments as a tool takes them (the model's tools, MCP's): its JSON Schema's properties
 * and required fields without `op`, which the tool's name says.
 */
export function toolArguments(op: Op): { properties: Record<string, unknown>; required: string[] } {
  const { properties = {}, required = [] } = OP_JSON_SCHEMAS[op] as { properties?: Record<string, unknown>; required?: string[] };
  const { op: _op, ...fields } = properties;
  return { properties: fields, required: required.filter((key) => key !== 'op') };
}

/** OpenEnv's base Action carries a free-form `metadata` dict; it is accepted and ignored. */
const FLAT_FIELDS = new Set(['metadata', 'op', ...OPS.flatMap(opFields)]);

/**
 * The JSON Schema of the action (served at /schema). Input form, so fields with a default are not
 * listed as required. One branch per op, each op's schema without its dialect line, as zod writes a
 * union of them (test/env/action-json-schemas.test.ts compares it with zod's).
 */
export function actionJsonSchema(): Record<string, unknown> {
  wholeSchema ??= {
    $schema: OP_JSON_SCHEMAS.look.$schema,
    oneOf: OPS.map((op) => {
      const { $schema: _dialect, ...branch } = OP_JSON_SCHEMAS[op];
      return branch;
    }),
  };
  return wholeSchema;
}
let wholeSchema: Record<string, unknown> | undefined;

/** Validates a wire action; throws EnvError('VALIDATION_ERROR') naming the field and what it accepts. */
export function parseAction(raw: unknown): ParsedAction {
  const { op, fields } = actionFields(raw);
  const issues: Issue[] = [];
  const action = checkFields({ op }, ACTION_FIELDS[op], fields, issues);
  if (op === 'guess' && !issues.some((issue) => issue.aborts)) checkGuess(action, issues);
  if (issues.length > 0) throw invalidFields(op, issues, fields);
  return action as ParsedAction;
}

/**
 * The action's own fields, nulls left out, once it is an object with a known op and no field that no
 * op knows; else the EnvError saying which of these it is not. Shared with the zod reference.
 */
export function actionFields(raw: unknown): { op: Op; fields: Record<string, unknown> } {
  if (!isRecord(raw)) throw invalid(`an action must be a JSON object with an "op" field, got ${kindOf(raw)}`);
  const fields = withoutNulls(raw);
  const op = fields.op;
  if (op === undefined) throw invalid(`missing "op": expected one of ${OPS.join(', ')}`);
  if (typeof op !== 'string' || !(OPS as string[]).includes(op)) {
    throw invalid(`unknown op ${JSON.stringify(op)}: expected one of ${OPS.join(', ')}`);
  }
  const unknown = Object.keys(fields).filter((key) => !FLAT_FIELDS.has(key));
  if (unknown.length > 0) {
    const own = opFields(op as Op);
    throw invalid(
      `${op}: unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `"${k}"`).join(', ')}` +
        ` (${op} takes ${own.length ? own.join(', ') : 'no fields'})`,
    );
  }
  return { op: op as Op, fields };
}

/**
 * Checks `fields` against `spec` in the spec's order and adds them to `into`: a value present as it
 * is (even when wrong, even undefined), a missing one filled in or left out. Other keys are dropped.
 */
function checkFields(into: Record<string, unknown>, spec: Readonly<Record<string, Field>>, fields: Record<string, unknown>, issues: Issue[]): Record<string, unknown> {
  for (const [field, { check, absent }] of Object.entries(spec)) {
    const value = fields[field];
    if (value === undefined && typeof absent === 'object') into[field] = absent.fill;
    else {
      if (value !== undefined || absent === 'required') check(value, field, issues);
      if (field in fields) into[field] = value;
    }
  }
  return into;
}

/** A guess needs lat and lon together, or a response holding them (checked when its fields have the right types). */
function checkGuess(guess: Record<string, unknown>, issues: Issue[]): void {
  if ((guess.lat === undefined) !== (guess.lon === undefined)) {
    issues.push({ field: guess.lat === undefined ? 'lat' : 'lon', message: 'expected lat and lon together', aborts: false });
  } else if (guess.lat === undefined && guess.response === undefined) {
    issues.push({ field: 'lat', message: 'expected lat and lon, or a response holding them', aborts: false });
  }
}

/** An integer within the safe integers, at least `min` when given; every issue worded `message`. */
function integer(message: string, { min = -Infinity } = {}): Check {
  return (value, field, issues) => {
    if (typeof value !== 'number' || !Number.isInteger(value)) {
      issues.push({ field, message, aborts: true });
      return;
    }
    // zod's z.int() checks the safe range first, then .min() on its own: -2^60 for the index is two issues.
    if (value > Number.MAX_SAFE_INTEGER || value < Number.MIN_SAFE_INTEGER) issues.push({ field, message, aborts: false });
    if (value < min) issues.push({ field, message, aborts: false });
  };
}

const splitName: Check = (value, field, issues) => {
  const message = 'expected a split name';
  if (typeof value !== 'string') issues.push({ field, message, aborts: true });
  if (tooShort(value)) issues.push({ field, message, aborts: false });
};

const RESET_FIELDS: Readonly<Record<keyof ResetRequest, Field>> = {
  split: optional(splitName),
  index: optional(integer('expected an integer >= 0', { min: 0 })),
  seed: optional(integer('expected an integer')),
  episode_id: optional(text(200, 'expected a non-empty string')),
};

const RESET_KEYS = Object.keys(RESET_FIELDS);

/**
 * Validates reset data. An unknown key is an error, not ignored: a misspelt selector (upstream's
 * old `task_index` for `index`) would otherwise play a random task and look like a result.
 * Null values count as absent (OpenEnv clients send unset keyword arguments as null).
 */
export function parseResetRequest(raw: unknown): ResetRequest {
  const fields = resetFields(raw);
  const issues: Issue[] = [];
  const request = checkFields({}, RESET_FIELDS, fields, issues);
  if (issues.length > 0) throw invalidFields('reset', issues, fields);
  return request as ResetRequest;
}

/** Reset data as an object without its nulls (none at all is `{}`), once no key is unknown. Shared with the zod reference. */
export function resetFields(raw: unknown): Record<string, unknown> {
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
  return fields;
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

/** The error for fields that failed their checks: each `<prefix>.<field>: <message>, got <value>`, joined by "; ". */
export function invalidFields(prefix: string, issues: readonly { field: string; message: string }[], fields: Record<string, unknown>): EnvError {
  return invalid(issues.map(({ field, message }) => `${prefix}.${field}: ${message}, got ${describeValue(fields[field])}`).join('; '));
}

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
