/**
 * src/core/episode.ts's parseEpisodeRecord, written by hand so that reading episodes loads no zod,
 * against the zod schemas it replaces (src/core/episode-schema.ts), on random values: the same
 * verdict and kind, the same record with its members in the same order, the same issues in the same
 * order, worded the same, and so the same error. The values are mostly records with a few things
 * changed anywhere in them (a value of the wrong type, a member taken out or added, an object
 * made an array, a count made negative, fractional, huge or NaN, a pin of three numbers), and some
 * any JSON at all.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseEpisodeRecord } from '../../src/core/episode.js';
import { parseEpisodeRecordReference } from '../../src/core/episode-schema.js';

const RUNS = Number(process.env.GEOLAB_EPISODE_CHECK_RUNS ?? 3000);

// Values that fit few fields or none, the numbers zod treats apart among them.
const oddNumber = fc.constantFrom(-0, -1, 0.5, -1.5, 1, 3, 91, -91, 181, -181, 2 ** 53, 2 ** 60, -(2 ** 60), 1e21, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, NaN, Infinity, -Infinity);
const junk = fc.oneof(
  fc.constantFrom(null, undefined, true, false, '', '2', 'view', 'nonE', [], {}, [1], [1, 2, 3], { action: 1 }, { input: -1 }, { input: 'x' }),
  oddNumber,
  fc.string({ maxLength: 4 }),
  fc.jsonValue({ maxDepth: 1 }),
);

const text = fc.string({ maxLength: 6 });
const count = fc.oneof({ weight: 30, arbitrary: fc.nat({ max: 50 }) }, { weight: 1, arbitrary: oddNumber });
const number = fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer({ min: -5, max: 5 }));
const nonnegative = fc.oneof(fc.double({ min: 0, noNaN: true, noDefaultInfinity: true }), fc.nat({ max: 5 }));
const degrees = (limit: number) => fc.oneof({ weight: 10, arbitrary: fc.double({ min: -limit, max: limit, noNaN: true }) }, { weight: 1, arbitrary: fc.double({ min: -400, max: 400, noNaN: true }) });
const latLon = fc.tuple(degrees(90), degrees(180));
/** A nullable, optional member: the record leaves it out (fc.record's optional keys) or holds null. */
const maybe = <T>(arbitrary: fc.Arbitrary<T>) => fc.oneof({ weight: 5, arbitrary }, { weight: 1, arbitrary: fc.constant(null) });
const loose = <T extends Record<string, fc.Arbitrary<unknown>>>(shape: T, requiredKeys: (keyof T)[] = []) => fc.record(shape, { requiredKeys: requiredKeys as never[] });

const camera = loose({ heading_deg: maybe(number), pitch_deg: maybe(number), fov_deg: maybe(number), frame_index: maybe(count) });
const tokens = fc.oneof(count, loose({ input: maybe(count), output: maybe(count), total: maybe(count), reasoning: maybe(count), in: count }), fc.constantFrom('12', 1.5, [3]));
const turnModel = loose({
  reply: maybe(text),
  tool_calls: maybe(fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 2 })),
  reasoning: maybe(text),
  finish_reason: maybe(text),
  tokens: maybe(tokens),
  latency_s: maybe(nonnegative),
  attempts: maybe(count),
  errors: maybe(fc.array(text, { maxLength: 2 })),
});
const turn = loose(
  {
    turn: count,
    status: maybe(text),
    camera_before: maybe(camera),
    camera_after: maybe(camera),
    action: maybe(loose({ action: fc.constantFrom('look', 'pin', 'guess'), lat: number }, ['action'])),
    wire_action: maybe(loose({ op: text, heading_deg: number }, ['op'])),
    pins: maybe(fc.array(latLon, { maxLength: 3 })),
    image_kind: maybe(fc.constantFrom('view', 'map', 'none')),
    image_sha256: maybe(text),
    feedback: maybe(text),
    action_cost: maybe(number),
    steps_remaining: maybe(count),
    moved_meters: maybe(nonnegative),
    total_moved_meters: maybe(nonnegative),
    available_tools: maybe(fc.array(text, { maxLength: 3 })),
    reward: maybe(number),
    done: maybe(fc.boolean()),
    model: maybe(turnModel),
    prompt: maybe(text),
    image_path: maybe(text),
    request_sha256: maybe(text),
  },
  ['turn'],
);
const outcome = loose({
  reward: maybe(number),
  train_reward: maybe(number),
  distance_km: maybe(nonnegative),
  parsed_ok: maybe(fc.boolean()),
  guess: maybe(latLon),
  guess_country: maybe(text),
  verdict: maybe(text),
  country_hit: maybe(fc.boolean()),
  region_hit: maybe(fc.boolean()),
  score_before_cost: maybe(number),
  n_looks: maybe(count),
  n_maps: maybe(count),
  n_pins: maybe(count),
  n_moves: maybe(count),
  truth: maybe(latLon),
  action_cost: maybe(number),
  total_moved_meters: maybe(nonnegative),
  forced_guess: maybe(fc.boolean()),
  turns_used: maybe(count),
  turns_ok: maybe(count),
  turns_unparseable: maybe(count),
  turns_provider_error: maybe(count),
  wall_clock_s: maybe(nonnegative),
  model_latency_s: maybe(nonnegative),
  tokens_in: maybe(count),
  tokens_out: maybe(count),
});
const task = loose(
  {
    split: fc.constantFrom('eval', 'train'),
    index: count,
    sample: maybe(count),
    task_id: maybe(text),
    country: maybe(text),
    sequence_id: maybe(text),
    captured_at: maybe(text),
    attribution: maybe(fc.dictionary(text, text, { maxKeys: 2 })),
  },
  ['split', 'index'],
);
const config = loose({ mode: maybe(text), prompt_version: maybe(text), max_turns: maybe(count), retries: maybe(count), base_url: maybe(text), view_size: maybe(count), map_size: maybe(count) });
const forkedFrom = maybe(loose({ episode_id: text, turn: count }, ['episode_id', 'turn']));
const common = { schema_version: fc.constant(2), episode_id: text, model_name: maybe(text), task, config: maybe(config), forked_from: forkedFrom };
const completed = loose(
  { ...common, recorded_at: maybe(text), model: maybe(loose({ provider: maybe(text), model: maybe(text), base_url: maybe(text), temperature: maybe(number), max_tokens: maybe(count) })), turns: fc.array(turn, { maxLength: 3 }), outcome },
  ['schema_version', 'episode_id', 'task', 'turns', 'outcome'],
);
const failed = loose({ ...common, error: text, traceback: maybe(text) }, ['schema_version', 'episode_id', 'task', 'error']);

// Keys records do not know, some of them the schema's own elsewhere (an error on a completed record
// makes nothing failed; an outcome on a failed one makes it completed) or the object prototype's.
const extraKey = fc.constantFrom('zz', 'extra', '1', 'error', 'outcome', 'turns', 'action', 'input', 'toString', 'constructor', '__proto__');

interface Change {
  /** Which place in the value, counted over all of them (the value itself included). */
  at: number;
  kind: 'replace' | 'delete' | 'add' | 'reshape';
  value: unknown;
  key: string;
  first: boolean;
}
const change: fc.Arbitrary<Change> = fc.record({ at: fc.nat(), kind: fc.constantFrom('replace', 'delete', 'add', 'reshape'), value: junk, key: extraKey, first: fc.boolean() });

type Container = Record<string | number, unknown>;

function define(object: Container, key: string, value: unknown): void {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Every place in a value, as its container and key, the value itself first. */
function places(holder: Container): [Container, string | number][] {
  const found: [Container, string | number][] = [];
  const walk = (container: Container, key: string | number) => {
    found.push([container, key]);
    const value = container[key];
    if (typeof value !== 'object' || value === null) return;
    const keys = Array.isArray(value) ? value.map((_, i) => i) : Object.keys(value);
    for (const k of keys) walk(value as Container, k);
  };
  walk(holder, 'value');
  return found;
}

function applied(record: unknown, changes: Change[]): unknown {
  const holder: Container = { value: structuredClone(record) };
  for (const { at, kind, value, key: extra, first } of changes) {
    // A copy: fc.constantFrom gives the same [] and {} every time, which a later change may grow.
    const junkValue = structuredClone(value);
    const all = places(holder);
    const [container, key] = all[at % all.length]!;
    const target = container[key];
    if (kind === 'replace') container[key] = junkValue;
    else if (kind === 'delete') {
      // From an array, an item out (a pin of one number); from an object, a member.
      if (Array.isArray(container)) container.splice(key as number, 1);
      else delete container[key];
    } else if (kind === 'add') {
      if (Array.isArray(target)) target.push(junkValue);
      else if (typeof target === 'object' && target !== null) {
        const grown: Container = {};
        if (first) define(grown, extra, junkValue);
        for (const k of Object.keys(target)) define(grown, k, (target as Container)[k]);
        if (!first) define(grown, extra, junkValue);
        container[key] = grown;
      } else container[key] = junkValue;
    } else {
      // An array where an object belongs, and the other way round.
      container[key] = Array.isArray(target) ? { ...target } : typeof target === 'object' && target !== null ? [target] : [target, target];
    }
  }
  return holder.value;
}

const nearRecord = fc
  .tuple(fc.oneof({ weight: 4, arbitrary: completed }, { weight: 1, arbitrary: failed }), fc.array(change, { maxLength: 3 }), fc.boolean())
  // Sometimes through JSON, as files come: no undefined, NaN as null.
  .map(([record, changes, viaJson]) => {
    const value = applied(record, changes);
    return viaJson && value !== undefined ? JSON.parse(JSON.stringify(value)) as unknown : value;
  });
const anyJson = fc.jsonValue({ maxDepth: 3 });

/** JSON.stringify's replacer for values JSON has no words for. */
const shown = (_key: string, value: unknown) => (value === undefined || (typeof value === 'number' && !Number.isFinite(value)) ? String(value) : value);

describe('parseEpisodeRecord against the zod schemas', () => {
  it(`gives the same record or the same issues, in the same order, on ${RUNS} random values`, () => {
    fc.assert(
      fc.property(fc.oneof({ weight: 9, arbitrary: nearRecord }, { weight: 1, arbitrary: anyJson }), (value) => {
        const ours = parseEpisodeRecord(value);
        const zod = parseEpisodeRecordReference(value);
        expect(ours).toEqual(zod);
        // Member order too (the records imported are written out again as they were read), and
        // members holding undefined, which toEqual passes over.
        expect(JSON.stringify(ours, shown)).toBe(JSON.stringify(zod, shown));
      }),
      { numRuns: RUNS, seed: 11 },
    );
  });

  it('leaves out a member named __proto__, which would replace the prototype of the object made', () => {
    const value: unknown = JSON.parse('{"schema_version":2,"episode_id":"e","task":{"split":"eval","index":0,"__proto__":{"x":1}},"turns":[],"outcome":{}}');
    for (const parsed of [parseEpisodeRecord(value), parseEpisodeRecordReference(value)]) {
      if (!parsed.ok) throw new Error(parsed.error);
      expect(Object.getPrototypeOf(parsed.record.task)).toBe(Object.prototype);
      expect(Object.keys(parsed.record.task)).toEqual(['split', 'index']);
    }
  });

  it('reports a union of a count and a token object as zod does', () => {
    const record = (tokens: unknown) => ({ schema_version: 2, episode_id: 'e', task: { split: 'eval', index: 0 }, turns: [{ turn: 0, model: { tokens } }], outcome: {} });
    const path = 'turns[0].model.tokens';
    expect(parseEpisodeRecord(record(-1))).toMatchObject({ ok: false, issues: [{ path, message: 'Too small: expected number to be >=0' }] });
    expect(parseEpisodeRecord(record({ input: -1 }))).toMatchObject({ ok: false, issues: [{ path: `${path}.input`, message: 'Too small: expected number to be >=0' }] });
    expect(parseEpisodeRecord(record({ input: -1, output: 'x' }))).toMatchObject({ ok: false, issues: [{ path, message: 'Invalid input' }] });
    expect(parseEpisodeRecord(record(1.5))).toMatchObject({ ok: false, issues: [{ path, message: 'Invalid input' }] });
  });
});
