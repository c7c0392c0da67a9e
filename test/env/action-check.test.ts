/**
 * src/env/actions.ts's parseAction and parseResetRequest, written by hand so that taking actions
 * loads no zod, against the zod schemas they replace (src/env/action-schemas.ts), on random values:
 * the same action with its members in the same order, or the same EnvError with the same code and
 * message. The values are mostly actions of every op with some fields changed (valid, missing,
 * null, of the wrong type, out of range, at a bound or just past it, a string of the longest length
 * or one more, fields of other ops, unknown fields, metadata), some reset data the same way, and
 * some any value at all.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ACTION_SCHEMAS, parseActionReference, parseResetRequestReference } from '../../src/env/action-schemas.js';
import { COUNTRY_MAX_CHARS, LABEL_MAX_CHARS, opFields, OPS, parseAction, parseResetRequest, RESPONSE_MAX_CHARS } from '../../src/env/actions.js';
import type { Op } from '../../src/env/types.js';

const RUNS = Number(process.env.GEOLAB_ACTION_CHECK_RUNS ?? 3000);

// Values that fit few fields or none, the numbers zod treats apart among them.
const oddNumber = fc.constantFrom(-0, 0, -1, 1, 0.5, -1.5, 1e-9, 5e-324, 2 ** 53, -(2 ** 53), 2 ** 60, -(2 ** 60), 1e21, -1e308, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, Number.MAX_VALUE, NaN, Infinity, -Infinity);
const junk = fc.oneof(
  fc.constantFrom(null, undefined, true, false, '', '0', '90', ' -12.5 ', 'forward', 'NaN', [], {}, [1], [1, 2], { lat: 1 }, { op: 'look' }),
  oddNumber,
  fc.string({ maxLength: 4 }),
  fc.jsonValue({ maxDepth: 1 }),
  // What zod's length checks measure on values that are not strings.
  fc.record({ length: fc.oneof(fc.jsonValue({ maxDepth: 1 }), oddNumber) }),
);

/** Just below and just above a number, as doubles go. */
function neighbours(x: number): number[] {
  const step = (value: number, up: boolean) => {
    if (value === 0) return up ? 5e-324 : -5e-324;
    const bits = new Float64Array([value]);
    const word = new BigInt64Array(bits.buffer);
    word[0] = word[0]! + ((value > 0) === up ? 1n : -1n);
    return bits[0]!;
  };
  return [step(x, false), x, step(x, true)];
}

const numberIn = (min: number, max: number) =>
  fc.oneof(
    { weight: 8, arbitrary: fc.double({ min, max, noNaN: true }) },
    { weight: 2, arbitrary: fc.integer({ min: Math.ceil(min), max: Math.floor(max) }) },
    { weight: 3, arbitrary: fc.constantFrom(...neighbours(min), ...neighbours(max), min - 1, max + 1, -min, min / 2) },
    { weight: 2, arbitrary: fc.double() },
    { weight: 2, arbitrary: junk },
  );

const textOf = (maxChars: number) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.string({ maxLength: 8 }) },
    { weight: 2, arbitrary: fc.tuple(fc.integer({ min: maxChars - 2, max: maxChars + 2 }), fc.constantFrom('x', 'é', '😀')).map(([n, c]) => c.repeat(c.length === 2 ? Math.ceil(n / 2) : n)) },
    { weight: 1, arbitrary: fc.constant('') },
    { weight: 1, arbitrary: fc.integer({ min: maxChars - 1, max: maxChars + 1 }).map((n) => Array.from({ length: n }, () => 0)) },
    { weight: 2, arbitrary: junk },
  );

const direction = fc.oneof({ weight: 4, arbitrary: fc.constantFrom('forward', 'backward') }, { weight: 2, arbitrary: fc.constantFrom('Forward', 'left', 'back', '', ' forward') }, { weight: 2, arbitrary: junk });

const latitude = numberIn(-90, 90);
const longitude = numberIn(-180, 180);

/** Values for each op's fields, each one near what the field accepts. */
const FIELD_VALUES: Record<Op, Record<string, fc.Arbitrary<unknown>>> = {
  look: { heading_deg: numberIn(-3600, 3600), pitch_deg: numberIn(-90, 90), fov_deg: numberIn(10, 120) },
  pan: { delta_deg: numberIn(-3600, 3600) },
  zoom: { fov_deg: numberIn(10, 120) },
  move: { direction, meters: numberIn(0, 500) },
  pin: { lat: latitude, lon: longitude, label: textOf(LABEL_MAX_CHARS), span_deg: numberIn(0.02, 180) },
  view_map: { lat: latitude, lon: longitude, span_deg: numberIn(0.05, 180) },
  measure: { lat_a: latitude, lon_a: longitude, lat_b: latitude, lon_b: longitude },
  list_pins: {},
  clear_pins: {},
  reverse_geocode: { lat: latitude, lon: longitude },
  guess: {
    lat: latitude,
    lon: longitude,
    response: textOf(RESPONSE_MAX_CHARS),
    country: textOf(COUNTRY_MAX_CHARS),
    confidence: numberIn(0, 100),
    reasoning: textOf(RESPONSE_MAX_CHARS),
  },
};

// Keys beside an op's own: other ops' fields (ignored), metadata (ignored), and keys no op knows,
// some of them the object prototype's.
const OTHER_KEYS = [...new Set(OPS.flatMap((op) => Object.keys(FIELD_VALUES[op])))];
const extraKey = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom(...OTHER_KEYS, 'metadata') },
  { weight: 1, arbitrary: fc.constantFrom('heading', 'Lat', 'zz', '1', 'task_index', 'toString', 'constructor', '__proto__', 'hasOwnProperty') },
);
const extras = fc.array(fc.tuple(extraKey, fc.oneof(junk, fc.constant({ trace: 'abc' }))), { maxLength: 2 });
const opValue = fc.oneof({ weight: 20, arbitrary: fc.constantFrom(...OPS) }, { weight: 1, arbitrary: fc.constantFrom('fly', 'LOOK', 'place_pin', 'submit_guess', '', 7, null, undefined, ['look'], { op: 'look' }) });

/** An object with these members in this order, `__proto__` an own member as JSON.parse makes it. */
function objectOf(entries: [string, unknown][]): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (const [key, value] of entries) Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  return object;
}

const nearAction = fc
  .constantFrom(...OPS)
  .chain((op) => fc.tuple(fc.constant(op), fc.record(FIELD_VALUES[op], { requiredKeys: [] }), extras, opValue, fc.nat({ max: 8 }), fc.boolean()))
  .map(([op, fields, extra, opAs, at, viaJson]) => {
    // The op's own op mostly, somewhere among the members (first as clients write it, or further in).
    const entries: [string, unknown][] = Object.entries(fields);
    const all = [...entries, ...extra];
    all.splice(at % (all.length + 1), 0, ['op', at === 8 ? opAs : op]);
    const action = objectOf(all);
    // Sometimes through JSON, as the wire brings it: no undefined, NaN and the infinities as null.
    return viaJson ? (JSON.parse(JSON.stringify(action)) as unknown) : action;
  });

const nearReset = fc
  .tuple(
    fc.record(
      {
        split: fc.oneof(fc.constantFrom('eval', 'train', ''), junk),
        index: fc.oneof({ weight: 4, arbitrary: fc.nat({ max: 100 }) }, { weight: 3, arbitrary: oddNumber }, { weight: 1, arbitrary: fc.double() }, { weight: 2, arbitrary: junk }),
        seed: fc.oneof({ weight: 4, arbitrary: fc.integer() }, { weight: 3, arbitrary: oddNumber }, { weight: 1, arbitrary: fc.double() }, { weight: 2, arbitrary: junk }),
        episode_id: textOf(200),
      },
      { requiredKeys: [] },
    ),
    fc.array(fc.tuple(fc.constantFrom('task_index', 'zz', 'op', 'metadata', '__proto__', 'toString'), junk), { maxLength: 2 }),
    fc.nat({ max: 5 }),
  )
  .map(([fields, extra, keepExtra]) => objectOf([...Object.entries(fields), ...(keepExtra < 4 ? [] : extra)]));

type Outcome = { ok: true; value: unknown } | { ok: false; error: string; code: unknown; message: string };

function outcome(run: () => unknown): Outcome {
  try {
    return { ok: true, value: run() };
  } catch (err) {
    const e = err as { code?: unknown; message: string };
    return { ok: false, error: (err as object).constructor.name, code: e.code, message: e.message };
  }
}

/** JSON.stringify's replacer for values JSON has no words for (members holding undefined, -0, NaN). */
const shown = (_key: string, value: unknown) => (value === undefined || (typeof value === 'number' && (!Number.isFinite(value) || Object.is(value, -0))) ? `${Object.is(value, -0) ? '-0' : String(value)}` : value);

function expectSame(ours: Outcome, zod: Outcome): void {
  expect(ours).toEqual(zod);
  expect(JSON.stringify(ours, shown)).toBe(JSON.stringify(zod, shown));
}

const anyValue = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.anything({ maxDepth: 2 }));

describe('parseAction and parseResetRequest against the zod schemas', () => {
  it('list the same ops, each with the same fields in the same order', () => {
    expect(OPS).toEqual(Object.keys(ACTION_SCHEMAS));
    for (const op of OPS) expect(opFields(op)).toEqual(Object.keys(ACTION_SCHEMAS[op].shape).filter((key) => key !== 'op'));
  });

  it(`give the same action or the same error on ${RUNS} random values`, () => {
    fc.assert(
      fc.property(fc.oneof({ weight: 12, arbitrary: nearAction }, { weight: 1, arbitrary: anyValue }), (value) => {
        expectSame(outcome(() => parseAction(value)), outcome(() => parseActionReference(value)));
      }),
      { numRuns: RUNS, seed: 13 },
    );
  });

  it(`give the same reset request or the same error on ${RUNS} random values`, () => {
    fc.assert(
      fc.property(fc.oneof({ weight: 8, arbitrary: nearReset }, { weight: 1, arbitrary: anyValue }, { weight: 1, arbitrary: fc.constantFrom(null, undefined) }), (value) => {
        expectSame(outcome(() => parseResetRequest(value)), outcome(() => parseResetRequestReference(value)));
      }),
      { numRuns: RUNS, seed: 17 },
    );
  });

  it('check the lat-with-lon rule of a guess after a value out of range, not after one of the wrong type', () => {
    const message = (raw: unknown) => outcome(() => parseAction(raw));
    expect(message({ op: 'guess', lat: 95 })).toMatchObject({ message: 'guess.lat: expected a number from -90 to 90, got 95; guess.lon: expected lat and lon together, got nothing' });
    expect(message({ op: 'guess', lat: '95' })).toMatchObject({ message: 'guess.lat: expected a number from -90 to 90, got "95"' });
    expect(message({ op: 'guess', confidence: 101 })).toMatchObject({ message: 'guess.confidence: expected a number from 0 to 100, got 101; guess.lat: expected lat and lon, or a response holding them, got nothing' });
  });
});
