/**
 * The episode record (docs/formats.md, schema_version 2) written as zod schemas: the reference that
 * src/core/episode.ts's hand-written check is compared with (test/core/episode-check.test.ts, on
 * random values), and where the record's types come from. Reading episodes does not load it: zod
 * takes some 25-45 ms to load, and its check was a sixth of `geolab episodes import`'s time.
 */
import { z } from '../vendor/zod.js';
import { EPISODE_SCHEMA_VERSION } from './episode-fields.js';
import { invalidRecord, type ParsedEpisode } from './episode.js';
import { isRecord } from './values.js';

const maybe = <T extends z.ZodType>(schema: T) => schema.nullable().optional();
const count = z.int().nonnegative();
const latLon = z.tuple([z.number().min(-90).max(90), z.number().min(-180).max(180)]);

const schemaVersion = z.literal(EPISODE_SCHEMA_VERSION, {
  error: (issue) => `expected ${EPISODE_SCHEMA_VERSION}, got ${JSON.stringify(issue.input)} (this reader understands schema_version 2 only)`,
});

export const episodeTaskSchema = z.looseObject({
  split: z.string(),
  index: count,
  /** Which of the k attempts (pass@k) on this task. */
  sample: maybe(count),
  task_id: maybe(z.string()),
  country: maybe(z.string()),
  sequence_id: maybe(z.string()),
  captured_at: maybe(z.string()),
  attribution: maybe(z.looseObject({})),
});

export const episodeConfigSchema = z.looseObject({
  mode: maybe(z.string()),
  prompt_version: maybe(z.string()),
  max_turns: maybe(count),
  retries: maybe(count),
  base_url: maybe(z.string()),
  /** The side of the views the environment drew (geolab's embedded environment; replay's default). */
  view_size: maybe(count),
  /** The longer side of the maps, when the environment drew them as the model gets them (a sweep's; replay draws them so again). */
  map_size: maybe(count),
});

/** The model adapter's identity. */
export const modelIdentitySchema = z.looseObject({
  provider: maybe(z.string()),
  model: maybe(z.string()),
  base_url: maybe(z.string()),
  temperature: maybe(z.number()),
  max_tokens: maybe(count),
});

export const cameraSchema = z.looseObject({
  heading_deg: maybe(z.number()),
  pitch_deg: maybe(z.number()),
  fov_deg: maybe(z.number()),
  frame_index: maybe(count),
});

/**
 * A turn's token usage in the harness's names. Providers add keys of their own (Anthropic's
 * cache_read, ...), and geolab's records before the harness dialect wrote `{in, out}`: both are read.
 */
export const turnTokensSchema = z.looseObject({
  input: maybe(count),
  output: maybe(count),
  total: maybe(count),
  reasoning: maybe(count),
});

/** What the model did on one turn, as recorded by the harness. */
export const turnModelSchema = z.looseObject({
  /** The reply's text; native tool calls are in `tool_calls`. */
  reply: maybe(z.string()),
  tool_calls: maybe(z.array(z.unknown())),
  reasoning: maybe(z.string()),
  finish_reason: maybe(z.string()),
  // Some older adapters recorded a bare count.
  tokens: maybe(z.union([count, turnTokensSchema])),
  latency_s: maybe(z.number().nonnegative()),
  attempts: maybe(count),
  errors: maybe(z.array(z.unknown())),
});

export const turnSchema = z.looseObject({
  turn: count,
  status: maybe(z.string()),
  camera_before: maybe(cameraSchema),
  camera_after: maybe(cameraSchema),
  /**
   * The action as the model sent it, harness form ({"action": "look", "heading_deg": 90}); "reset" on
   * turn 0, "forced_guess" when forced. Absent when the reply held no action object.
   */
  action: maybe(z.looseObject({ action: z.string() })),
  /** geolab's extra: the wire action executed (aliases resolved, numbers clamped to their ranges). */
  wire_action: maybe(z.looseObject({ op: z.string() })),
  pins: maybe(z.array(latLon)),
  image_kind: maybe(z.enum(['view', 'map', 'none'])),
  image_sha256: maybe(z.string()),
  feedback: maybe(z.string()),
  action_cost: maybe(z.number()),
  steps_remaining: maybe(count),
  moved_meters: maybe(z.number().nonnegative()),
  total_moved_meters: maybe(z.number().nonnegative()),
  available_tools: maybe(z.array(z.string())),
  reward: maybe(z.number()),
  done: maybe(z.boolean()),
  model: maybe(turnModelSchema),
  prompt: maybe(z.string()),
  image_path: maybe(z.string()),
  /** geolab's extra: sha256 of the request's canonical form, what `episodes retry` checks (docs/formats.md). */
  request_sha256: maybe(z.string()),
});

export const outcomeSchema = z.looseObject({
  /** The environment's game curve. */
  reward: maybe(z.number()),
  /** The reference curve (docs/scoring.md). */
  train_reward: maybe(z.number()),
  distance_km: maybe(z.number().nonnegative()),
  parsed_ok: maybe(z.boolean()),
  guess: maybe(latLon),
  guess_country: maybe(z.string()),
  // Free text rather than the Verdict union: older harness versions worded verdicts differently.
  verdict: maybe(z.string()),
  country_hit: maybe(z.boolean()),
  region_hit: maybe(z.boolean()),
  score_before_cost: maybe(z.number()),
  n_looks: maybe(count),
  n_maps: maybe(count),
  n_pins: maybe(count),
  n_moves: maybe(count),
  truth: maybe(latLon),
  action_cost: maybe(z.number()),
  total_moved_meters: maybe(z.number().nonnegative()),
  forced_guess: maybe(z.boolean()),
  turns_used: maybe(count),
  turns_ok: maybe(count),
  turns_unparseable: maybe(count),
  turns_provider_error: maybe(count),
  wall_clock_s: maybe(z.number().nonnegative()),
  model_latency_s: maybe(z.number().nonnegative()),
  tokens_in: maybe(count),
  tokens_out: maybe(count),
});

/** geolab's extra: the episode this one was forked from, and the first turn played live (docs/formats.md). */
export const forkedFromSchema = z.looseObject({
  episode_id: z.string(),
  turn: count,
});

export const completedEpisodeSchema = z.looseObject({
  schema_version: schemaVersion,
  episode_id: z.string(),
  recorded_at: maybe(z.string()),
  model_name: maybe(z.string()),
  model: maybe(modelIdentitySchema),
  task: episodeTaskSchema,
  config: maybe(episodeConfigSchema),
  // Required: the harness's own readers (replay) index row["turns"] on every record with no error.
  turns: z.array(turnSchema),
  outcome: outcomeSchema,
  forked_from: maybe(forkedFromSchema),
});

/** An episode the harness could not finish: the error is kept instead of turns and an outcome. */
export const failedEpisodeSchema = z.looseObject({
  schema_version: schemaVersion,
  episode_id: z.string(),
  model_name: maybe(z.string()),
  task: episodeTaskSchema,
  config: maybe(episodeConfigSchema),
  error: z.string(),
  traceback: maybe(z.string()),
  forked_from: maybe(forkedFromSchema),
});

export type EpisodeTask = z.infer<typeof episodeTaskSchema>;
export type EpisodeConfig = z.infer<typeof episodeConfigSchema>;
export type Camera = z.infer<typeof cameraSchema>;
export type Turn = z.infer<typeof turnSchema>;
export type Outcome = z.infer<typeof outcomeSchema>;
export type CompletedEpisode = z.infer<typeof completedEpisodeSchema>;
export type FailedEpisode = z.infer<typeof failedEpisodeSchema>;
/** Every record the harness writes: scored, or failed (aborted, unreachable, …) with an error kept instead. */
export type EpisodeRecord = CompletedEpisode | FailedEpisode;

/** parseEpisodeRecord as zod gives it: what the hand-written check must give, for the test. */
export function parseEpisodeRecordReference(value: unknown): ParsedEpisode {
  if (isRecord(value) && !('outcome' in value) && 'error' in value) {
    const failed = failedEpisodeSchema.safeParse(value);
    return failed.success ? { ok: true, kind: 'failed', record: failed.data } : invalidRecord(failed.error.issues);
  }
  const completed = completedEpisodeSchema.safeParse(value);
  return completed.success ? { ok: true, kind: 'completed', record: completed.data } : invalidRecord(completed.error.issues);
}
