/**
 * The episode record (docs/formats.md, schema_version 2), shared with the public eval harness: geolab
 * writes it and imports the harness's runs. Real harness output varies by version and provider, so
 * almost every field is optional and nullable, and every object keeps keys it does not know (the
 * full message list, image files, ...). What a record cannot do without: schema_version 2, an
 * episode_id, and the task's split and index, which key it to its task.
 */
import type { CompletedEpisode, FailedEpisode } from './episode-schema.js';
import { EPISODE_SCHEMA_VERSION } from './episode-fields.js';
import { expectedType, isRecord } from './values.js';

// The helpers that need no validation live apart, so readers that only read records (the eval report) load just those.
export { EPISODE_SCHEMA_VERSION, isCompleted, isFailed, tokenCounts } from './episode-fields.js';
// The types come from the zod schemas (src/core/episode-schema.ts), which nothing here loads at run time.
export type { Camera, CompletedEpisode, EpisodeConfig, EpisodeRecord, EpisodeTask, FailedEpisode, Outcome, Turn } from './episode-schema.js';

export interface EpisodeIssue {
  /** Dotted field path with array indices, e.g. `turns[2].pins[0]`; empty for the record itself. */
  path: string;
  message: string;
}

export type ParsedEpisode =
  | { ok: true; kind: 'completed'; record: CompletedEpisode }
  | { ok: true; kind: 'failed'; record: FailedEpisode }
  | { ok: false; error: string; issues: EpisodeIssue[] };

/**
 * Validates one parsed JSON line. A record without an outcome but with an error is a failed
 * episode; anything else must be a completed one, so a broken record is reported against the
 * completed shape (naming the missing outcome) rather than against a union of both.
 *
 * Written out by hand: it gives what the zod schemas in episode-schema.ts give (the same record,
 * members in the same order, the same issues in the same order, worded the same), which
 * test/core/episode-check.test.ts checks on random values, without loading zod.
 */
export function parseEpisodeRecord(value: unknown): ParsedEpisode {
  const issues: Issue[] = [];
  if (isRecord(value) && !('outcome' in value) && 'error' in value) {
    const record = failedEpisode(value, [], issues) as FailedEpisode;
    return issues.length ? invalidRecord(issues) : { ok: true, kind: 'failed', record };
  }
  const record = completedEpisode(value, [], issues) as CompletedEpisode;
  return issues.length ? invalidRecord(issues) : { ok: true, kind: 'completed', record };
}

/**
 * The record as written: every object key whose value is null or undefined is left out, at any
 * depth (docs/formats.md; the harness reads `t.get("model", {})`, which a null would break). Array
 * elements are kept as they are.
 */
export function withoutEmptyKeys<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item: unknown) => withoutEmptyKeys(item)) as T;
  if (!isRecord(value)) return value;
  const kept: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (item !== null && item !== undefined) kept[key] = withoutEmptyKeys(item);
  }
  return kept as T;
}

/** What parseEpisodeRecord says of a record with these issues (the zod reference says it the same way). */
export function invalidRecord(found: readonly { path: readonly PropertyKey[]; message: string }[]): ParsedEpisode {
  const issues = found.map((issue) => ({ path: formatPath(issue.path), message: issue.message }));
  return { ok: false, error: issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; '), issues };
}

function formatPath(path: readonly PropertyKey[]): string {
  return path.map((key, i) => (typeof key === 'number' ? `[${key}]` : i === 0 ? String(key) : `.${String(key)}`)).join('');
}

type Path = (string | number)[];

/**
 * One thing wrong with a record, worded as zod words it. `bound`: a range check's (a negative or
 * unsafe count, a latitude past 90), after which zod goes on checking; only a union cares (tokens).
 */
interface Issue {
  path: Path;
  message: string;
  bound: boolean;
}

type Issues = Issue[];

/**
 * Checks a value found at `path` (a list the caller grows and shrinks as it walks), adding what is
 * wrong with it to `issues`, and returns it as the record keeps it: objects and arrays rebuilt,
 * anything else as it is. Once an issue is added the returned value means nothing.
 */
type Check = (value: unknown, path: Path, issues: Issues) => unknown;

function fail(issues: Issues, path: Path, message: string, bound = false): void {
  issues.push({ path: [...path], message, bound });
}


const string: Check = (value, path, issues) => {
  if (typeof value !== 'string') fail(issues, path, expectedType('string', value));
  return value;
};

const boolean: Check = (value, path, issues) => {
  if (typeof value !== 'boolean') fail(issues, path, expectedType('boolean', value));
  return value;
};

const unknown: Check = (value) => value;

/** A number: finite, NaN and the infinities refused. */
function isNumberAt(value: unknown, path: Path, issues: Issues): value is number {
  if (typeof value === 'number' && Number.isFinite(value)) return true;
  fail(issues, path, expectedType('number', value));
  return false;
}

const number: Check = (value, path, issues) => {
  isNumberAt(value, path, issues);
  return value;
};

/** A number from min to max, both included. */
function between(min: number, max: number): Check {
  return (value, path, issues) => {
    if (!isNumberAt(value, path, issues)) return value;
    if (value < min) fail(issues, path, `Too small: expected number to be >=${min}`, true);
    if (value > max) fail(issues, path, `Too big: expected number to be <=${max}`, true);
    return value;
  };
}

const nonnegative = between(0, Infinity);
const latitude = between(-90, 90);
const longitude = between(-180, 180);

/** A whole number >= 0 within the safe integers (zod's int().nonnegative()). */
const count: Check = (value, path, issues) => {
  if (!isNumberAt(value, path, issues)) return value;
  if (!Number.isInteger(value)) {
    fail(issues, path, expectedType('int', value));
    return value;
  }
  if (value > Number.MAX_SAFE_INTEGER) fail(issues, path, `Too big: expected int to be <=${Number.MAX_SAFE_INTEGER}`, true);
  if (value < Number.MIN_SAFE_INTEGER) fail(issues, path, `Too small: expected int to be >=${Number.MIN_SAFE_INTEGER}`, true);
  if (value < 0) fail(issues, path, 'Too small: expected number to be >=0', true);
  return value;
};

/** [lat, lon]: exactly two items, each in range; too many items are reported before the items. */
const latLon: Check = (value, path, issues) => {
  if (!Array.isArray(value)) {
    fail(issues, path, expectedType('tuple', value));
    return value;
  }
  if (value.length < 2) {
    fail(issues, path, 'Too small: expected array to have >=2 items');
    return value;
  }
  if (value.length > 2) fail(issues, path, 'Too big: expected array to have <=2 items');
  return [at(latitude, value[0], path, 0, issues), at(longitude, value[1], path, 1, issues)];
};

const schemaVersion: Check = (value, path, issues) => {
  if (value !== EPISODE_SCHEMA_VERSION) {
    fail(issues, path, `expected ${EPISODE_SCHEMA_VERSION}, got ${JSON.stringify(value)} (this reader understands schema_version 2 only)`);
  }
  return value;
};

const IMAGE_KINDS: readonly unknown[] = ['view', 'map', 'none'];

const imageKind: Check = (value, path, issues) => {
  if (!IMAGE_KINDS.includes(value)) fail(issues, path, `Invalid option: expected one of ${IMAGE_KINDS.map((kind) => `"${String(kind)}"`).join('|')}`);
  return value;
};

/** Runs a check on the member at `key` of what is at `path`. */
function at(check: Check, value: unknown, path: Path, key: string | number, issues: Issues): unknown {
  path.push(key);
  const checked = check(value, path, issues);
  path.pop();
  return checked;
}

/** Nullable and optional: null and undefined pass as they are. */
function maybe(check: Check): Check {
  return (value, path, issues) => (value === null || value === undefined ? value : check(value, path, issues));
}

function arrayOf(check: Check): Check {
  return (value, path, issues) => {
    if (!Array.isArray(value)) {
      fail(issues, path, expectedType('array', value));
      return value;
    }
    return Array.from(value, (item: unknown, i) => at(check, item, path, i, issues));
  };
}

/**
 * An object that keeps the members it does not know (zod's looseObject): a new object with the
 * shape's members the value has, checked, in the shape's order, then the others as they are, in
 * their order. A required member the value lacks is reported by its own check, none of which
 * passes undefined.
 */
function looseObject(shape: Record<string, Check>): Check {
  const members = Object.entries(shape);
  return (value, path, issues) => {
    if (!isRecord(value)) {
      fail(issues, path, expectedType('object', value));
      return value;
    }
    const out: Record<string, unknown> = {};
    for (const [key, check] of members) {
      const checked = at(check, value[key], path, key, issues);
      if (key in value) out[key] = checked;
    }
    // An own "__proto__" (JSON.parse makes one) would replace the new object's prototype: zod drops it.
    for (const key in value) if (!Object.hasOwn(shape, key) && key !== '__proto__') out[key] = value[key];
    return out;
  };
}

// The record's objects, member for member those of episode-schema.ts, where the members are described.

const episodeTask = looseObject({
  split: string,
  index: count,
  sample: maybe(count),
  task_id: maybe(string),
  country: maybe(string),
  sequence_id: maybe(string),
  captured_at: maybe(string),
  attribution: maybe(looseObject({})),
});

const episodeConfig = looseObject({
  mode: maybe(string),
  prompt_version: maybe(string),
  max_turns: maybe(count),
  retries: maybe(count),
  base_url: maybe(string),
  view_size: maybe(count),
  map_size: maybe(count),
});

const modelIdentity = looseObject({
  provider: maybe(string),
  model: maybe(string),
  base_url: maybe(string),
  temperature: maybe(number),
  max_tokens: maybe(count),
});

const camera = looseObject({
  heading_deg: maybe(number),
  pitch_deg: maybe(number),
  fov_deg: maybe(number),
  frame_index: maybe(count),
});

const turnTokens = looseObject({
  input: maybe(count),
  output: maybe(count),
  total: maybe(count),
  reasoning: maybe(count),
});

/**
 * A count or a token object (a union in the schema). When neither fits, zod reports the one option
 * that failed on range checks only, if exactly one did (a negative count; a token object whose only
 * faults are such counts), else "Invalid input": and only a whole number can be the first, only an
 * object the second.
 */
const tokens: Check = (value, path, issues) => {
  if (typeof value === 'number' && Number.isInteger(value)) return count(value, path, issues);
  if (isRecord(value)) {
    const own: Issues = [];
    const checked = turnTokens(value, path, own);
    if (own.every((issue) => issue.bound)) {
      issues.push(...own);
      return checked;
    }
  }
  fail(issues, path, 'Invalid input');
  return value;
};

const turnModel = looseObject({
  reply: maybe(string),
  tool_calls: maybe(arrayOf(unknown)),
  reasoning: maybe(string),
  finish_reason: maybe(string),
  tokens: maybe(tokens),
  latency_s: maybe(nonnegative),
  attempts: maybe(count),
  errors: maybe(arrayOf(unknown)),
});

const turn = looseObject({
  turn: count,
  status: maybe(string),
  camera_before: maybe(camera),
  camera_after: maybe(camera),
  action: maybe(looseObject({ action: string })),
  wire_action: maybe(looseObject({ op: string })),
  pins: maybe(arrayOf(latLon)),
  image_kind: maybe(imageKind),
  image_sha256: maybe(string),
  feedback: maybe(string),
  action_cost: maybe(number),
  steps_remaining: maybe(count),
  moved_meters: maybe(nonnegative),
  total_moved_meters: maybe(nonnegative),
  available_tools: maybe(arrayOf(string)),
  reward: maybe(number),
  done: maybe(boolean),
  model: maybe(turnModel),
  prompt: maybe(string),
  image_path: maybe(string),
  request_sha256: maybe(string),
});

const outcome = looseObject({
  reward: maybe(number),
  train_reward: maybe(number),
  distance_km: maybe(nonnegative),
  parsed_ok: maybe(boolean),
  guess: maybe(latLon),
  guess_country: maybe(string),
  verdict: maybe(string),
  country_hit: maybe(boolean),
  region_hit: maybe(boolean),
  score_before_cost: maybe(number),
  n_looks: maybe(count),
  n_maps: maybe(count),
  n_pins: maybe(count),
  n_moves: maybe(count),
  truth: maybe(latLon),
  action_cost: maybe(number),
  total_moved_meters: maybe(nonnegative),
  forced_guess: maybe(boolean),
  turns_used: maybe(count),
  turns_ok: maybe(count),
  turns_unparseable: maybe(count),
  turns_provider_error: maybe(count),
  wall_clock_s: maybe(nonnegative),
  model_latency_s: maybe(nonnegative),
  tokens_in: maybe(count),
  tokens_out: maybe(count),
});

const forkedFrom = looseObject({ episode_id: string, turn: count });

const completedEpisode = looseObject({
  schema_version: schemaVersion,
  episode_id: string,
  recorded_at: maybe(string),
  model_name: maybe(string),
  model: maybe(modelIdentity),
  task: episodeTask,
  config: maybe(episodeConfig),
  turns: arrayOf(turn),
  outcome,
  forked_from: maybe(forkedFrom),
});

const failedEpisode = looseObject({
  schema_version: schemaVersion,
  episode_id: string,
  model_name: maybe(string),
  task: episodeTask,
  config: maybe(episodeConfig),
  error: string,
  traceback: maybe(string),
  forked_from: maybe(forkedFrom),
});
