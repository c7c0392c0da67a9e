/**
 * The episode runner: resets the environment at one task, lets a policy choose each turn's action,
 * executes it, and records everything in the public harness's schema v2 (docs/formats.md). Events stream
 * out as they happen (the TUI's Live screen and the headless printer in headless.ts listen); the
 * finished record and every image it refers to go to the sink.
 *
 * Turn rules (docs/protocol.md): at most `maxTurns` turns; a decision without a usable action costs its
 * turn and touches nothing; at the limit the policy is asked once more with only `guess` allowed, and
 * if that yields no usable coordinates the harness submits an empty guess (a parse failure scoring
 * 0, `forced_guess`). An environment error, a leak-guard refusal, a model endpoint that is gone
 * (EndpointGoneError) or an abort fails the episode: a failed record, never a score, whose `failure`
 * says why.
 */
import { randomUUID } from 'node:crypto';
import { EPISODE_SCHEMA_VERSION, tokenCounts, withoutEmptyKeys, type Camera, type CompletedEpisode, type EpisodeRecord, type FailedEpisode, type Outcome, type Turn } from '../core/episode.js';
import { ServiceError } from '../core/errors.js';
import { redactDeep } from '../core/secrets.js';
import { referenceReward } from '../core/scoring.js';
import type { EnvClient } from '../env/client/types.js';
import { EnvError, type Action, type Observation, type StepResult } from '../env/types.js';
import { ABORTED_ERROR, type EpisodeFailure } from '../store/episode-state.js';
import { sniffImageMime, sha256Hex } from '../store/images.js';
import { LeakGuardError } from './leak-guard.js';
import { isUsableGuess, toHarnessAction } from './protocols/common.js';
import type { HarnessAction, PolicyDecision, RunnerEvent, RunOptions } from './types.js';

export const DEFAULT_MAX_TURNS = 12;

/** What the harness submits when the forced turn yields no coordinates: scored as a parse failure. */
const EMPTY_GUESS: Action = { op: 'guess', response: '' };

type Images = Map<string, { bytes: Buffer; mime: string }>;

/** What a run has gathered so far: kept when it fails, for the failed record. */
interface Played {
  readonly episodeId: string;
  readonly startedMs: number;
  readonly turns: Turn[];
  readonly images: Images;
}

export async function runEpisode(options: RunOptions): Promise<EpisodeRecord> {
  const maxTurns = options.maxTurns ?? DEFAULT_MAX_TURNS;
  if (!Number.isInteger(maxTurns) || maxTurns < 1) throw new RangeError(`maxTurns must be an integer >= 1, got ${maxTurns}`);
  const played: Played = { episodeId: randomUUID(), startedMs: performance.now(), turns: [], images: new Map() };
  const signal = options.signal ?? new AbortController().signal;
  let record: EpisodeRecord;
  try {
    record = await play(options, maxTurns, signal, played);
  } catch (err) {
    record = failedRecord(options, maxTurns, played, signal.aborted ? null : err);
  }
  // Whatever reached the record (a reply, an error body, a stack), no piece of a key goes further.
  record = redactDeep(record);
  await options.sink?.write(record, played.images);
  options.onEvent?.({ type: 'finished', record });
  return record;
}

async function play(options: RunOptions, maxTurns: number, signal: AbortSignal, played: Played): Promise<CompletedEpisode> {
  const { client, policy } = options;
  const emit = (event: RunnerEvent) => options.onEvent?.(event);
  const first = await untilAborted(client.reset({ split: options.split, index: options.index, episode_id: played.episodeId }), signal);
  let camera = cameraOf(first.observation, await untilAborted(frameIndexOf(client), signal));
  emit({ type: 'started', episodeId: played.episodeId, split: options.split, index: options.index, observation: first.observation });
  await policy.begin?.(first);
  const image = keepImage(first.observation, played.images);
  // No prompt and no model on turn 0: the environment's opening prompt is never forwarded (it names
  // its own tools and budget); each protocol writes its own, recorded on turn 1.
  played.turns.push(
    turnRecord({
      ...observed(first, image),
      turn: 0,
      status: 'ok',
      camera_before: camera,
      camera_after: camera,
      action: { action: 'reset' },
      messages: [],
    }),
  );

  let current = first;
  let forcedGuess = false;
  for (let turn = 1; !current.done; turn++) {
    if (turn > maxTurns + 1) throw new Error('the environment did not end the episode after the forced guess');
    const forced = turn > maxTurns;
    emit({ type: 'thinking', turn });
    const decision = await untilAborted(
      policy.decide({
        turn,
        maxTurns,
        turnsLeft: forced ? 0 : maxTurns - turn + 1,
        observation: current.observation,
        history: [...played.turns],
        forced,
        signal,
      }),
      signal,
    );
    for (const [sha256, sent] of decision.images ?? []) played.images.set(sha256, sent);

    let action = decision.action;
    // turn.action is what the model sent (docs/formats.md); the wire action executed goes beside it.
    let harnessAction: HarnessAction | undefined = decision.harnessAction ?? (action ? toHarnessAction(action) : undefined);
    if (forced && !isUsableGuess(action)) {
      action = EMPTY_GUESS;
      harnessAction = { action: 'forced_guess' };
      forcedGuess = true;
    }
    const common = {
      turn,
      camera_before: camera,
      action: harnessAction,
      // Spread: the record's schema wants a plain object where the policy's type is an interface.
      model: decision.model ? { ...decision.model } : undefined,
      prompt: decision.prompt,
      request_sha256: decision.requestSha256,
      messages: decision.messages ?? [],
    };

    if (!action) {
      const record = turnRecord({ ...unchanged(current, camera, decision.note ?? noActionNote(decision)), ...common, status: decision.status });
      played.turns.push(record);
      emit({ type: 'turn', turn: record, image: null, observation: current.observation });
      continue;
    }

    const stepped = await execute(client, action, signal);
    if (!stepped.ok) {
      // The environment refused the action as invalid: nothing changed, the turn is spent, and the
      // policy hears why (a tool call must be answered) through an unchanged observation.
      const record = turnRecord({ ...unchanged(current, camera, stepped.feedback), ...common, status: 'unparseable', wire_action: action });
      played.turns.push(record);
      emit({ type: 'turn', turn: record, image: null, observation: current.observation });
      policy.observe?.(refusal(current, stepped.feedback), decision);
      continue;
    }
    const result = stepped.result;
    camera = cameraOf(result.observation, await untilAborted(frameIndexOf(client), signal));
    const shown = keepImage(result.observation, played.images);
    const record = turnRecord({ ...observed(result, shown), ...common, status: decision.status, camera_after: camera, wire_action: action });
    played.turns.push(record);
    emit({ type: 'turn', turn: record, image: shown?.bytes ?? null, observation: result.observation });
    policy.observe?.(result, decision);
    current = result;
  }

  return withoutEmptyKeys({
    schema_version: EPISODE_SCHEMA_VERSION,
    episode_id: played.episodeId,
    recorded_at: new Date().toISOString(),
    model_name: policy.name,
    model: policy.identity,
    task: taskOf(options, current.metadata, first.observation),
    config: configOf(options, maxTurns),
    turns: played.turns,
    outcome: outcomeOf(current, played, forcedGuess),
  });
}

/** A turn as recorded: keys without a value left out (docs/formats.md). */
function turnRecord(turn: Turn & { messages: unknown[] }): Turn {
  return withoutEmptyKeys(turn);
}

type Stepped = { ok: true; result: StepResult } | { ok: false; feedback: string };

async function execute(client: EnvClient, action: Action, signal: AbortSignal): Promise<Stepped> {
  try {
    return { ok: true, result: await untilAborted(client.step(action), signal) };
  } catch (err) {
    if (err instanceof EnvError && err.code === 'VALIDATION_ERROR') return { ok: false, feedback: `Invalid action: ${err.message}` };
    throw err;
  }
}

/** The frame the camera stands at: only the state says (bookkeeping, so a server that cannot is no failure). */
async function frameIndexOf(client: EnvClient): Promise<number | null> {
  try {
    const state = (await client.state()) as { frame_index?: unknown } | null;
    return typeof state?.frame_index === 'number' ? state.frame_index : null;
  } catch {
    return null;
  }
}

function cameraOf(observation: Observation, frameIndex: number | null): Camera {
  return { heading_deg: observation.heading_deg, pitch_deg: observation.pitch_deg, fov_deg: observation.fov_deg, frame_index: frameIndex };
}

/** The turn fields a result fills in. */
function observed(result: StepResult, image: { sha256: string } | null) {
  const o = result.observation;
  return {
    pins: o.pins.map((pin): [number, number] => [pin.lat, pin.lon]),
    image_kind: image ? o.image_kind : ('none' as const),
    image_sha256: image?.sha256 ?? null,
    feedback: o.feedback,
    action_cost: o.action_cost,
    steps_remaining: o.steps_remaining,
    moved_meters: o.moved_meters,
    total_moved_meters: o.total_moved_meters,
    available_tools: o.available_tools,
    reward: result.reward,
    done: result.done,
  };
}

/** A turn that changed nothing: the state as it was, with why. */
function unchanged(current: StepResult, camera: Camera, feedback: string) {
  return {
    ...observed({ ...current, reward: null, done: false }, null),
    camera_after: camera,
    feedback,
    moved_meters: 0,
  };
}

function refusal(current: StepResult, feedback: string): StepResult {
  return {
    observation: { ...current.observation, prompt: null, image_base64: null, image_kind: 'none', feedback, moved_meters: 0 },
    reward: null,
    done: false,
    metadata: {},
  };
}

function noActionNote(decision: PolicyDecision): string {
  return decision.status === 'provider_error' ? 'The model request failed.' : 'The reply held no usable action.';
}

/** Stores the observation's image by hash; null when it has none. */
function keepImage(observation: Observation, images: Images): { sha256: string; bytes: Buffer } | null {
  if (!observation.image_base64) return null;
  const bytes = Buffer.from(observation.image_base64, 'base64');
  const sha256 = sha256Hex(bytes);
  images.set(sha256, { bytes, mime: sniffImageMime(bytes) ?? (observation.image_kind === 'map' ? 'image/png' : 'image/jpeg') });
  return { sha256, bytes };
}

function taskOf(options: RunOptions, metadata: Record<string, unknown>, first: Observation) {
  return {
    task_id: str(metadata.task_id),
    country: str(metadata.country),
    sequence_id: str(metadata.sequence_id),
    captured_at: first.captured_at || null,
    ...options.task,
    split: options.split,
    index: options.index,
    sample: options.sample ?? 0,
  };
}

/**
 * The harness's config: `base_url` is where the ENVIRONMENT is (the model endpoint is the model
 * block's base_url): a remote server's URL, or `embedded` for the in-process environment, which has
 * no URL.
 */
function configOf(options: RunOptions, maxTurns: number) {
  return { ...options.config, mode: 'agentic', base_url: options.client.location, max_turns: maxTurns };
}

function outcomeOf(final: StepResult, played: Played, forcedGuess: boolean): Outcome {
  const o = final.observation;
  const m = final.metadata;
  const distanceKm = o.distance_km ?? num(m.distance_km);
  const turns = played.turns.filter((t) => t.turn > 0);
  const models = turns.map((t) => t.model).filter((model) => model !== null && model !== undefined);
  const tokens = (key: 'input' | 'output') => models.reduce((total, model) => total + (tokenCounts(model.tokens)[key] ?? 0), 0);
  return {
    reward: final.reward ?? num(m.reward) ?? 0,
    train_reward: referenceReward(distanceKm, o.action_cost),
    distance_km: distanceKm,
    parsed_ok: o.parsed_ok ?? bool(m.parsed_ok),
    guess: latLon(m.guess),
    guess_country: str(m.guess_country),
    verdict: str(m.verdict),
    country_hit: bool(m.country_hit),
    region_hit: bool(m.region_hit),
    score_before_cost: num(m.score_before_cost) ?? o.score,
    n_looks: num(m.n_looks),
    n_maps: num(m.n_maps),
    n_pins: num(m.n_pins),
    n_moves: num(m.n_moves),
    truth: latLon(m.truth) ?? (o.true_lat !== null && o.true_lon !== null ? [o.true_lat, o.true_lon] : null),
    action_cost: o.action_cost,
    total_moved_meters: o.total_moved_meters,
    forced_guess: forcedGuess,
    turns_used: turns.length,
    turns_ok: turns.filter((t) => t.status === 'ok').length,
    turns_unparseable: turns.filter((t) => t.status === 'unparseable').length,
    turns_provider_error: turns.filter((t) => t.status === 'provider_error').length,
    wall_clock_s: (performance.now() - played.startedMs) / 1000,
    model_latency_s: models.reduce((total, model) => total + (model.latency_s ?? 0), 0),
    tokens_in: tokens('input'),
    tokens_out: tokens('output'),
  };
}

/**
 * The failed shape (docs/formats.md), with the turns played so far, what kind of failure it was and, for
 * a leak, what was found. `err` is null for the user's abort.
 */
function failedRecord(options: RunOptions, maxTurns: number, played: Played, err: unknown): FailedEpisode {
  const error =
    err === null
      ? ABORTED_ERROR
      : err instanceof EnvError
        ? `environment ${err.code}: ${err.message}`
        : err instanceof Error
          ? err.message
          : String(err);
  return {
    schema_version: EPISODE_SCHEMA_VERSION,
    episode_id: played.episodeId,
    recorded_at: new Date().toISOString(),
    model_name: options.policy.name,
    model: options.policy.identity,
    task: { ...options.task, split: options.split, index: options.index, sample: options.sample ?? 0 },
    config: configOf(options, maxTurns),
    error,
    failure: failureOf(err),
    traceback: err instanceof Error ? (err.stack ?? null) : null,
    turns: played.turns,
    ...(err instanceof LeakGuardError ? { leak_findings: err.findings } : {}),
  };
}

function failureOf(err: unknown): EpisodeFailure {
  if (err === null) return 'aborted';
  // A model endpoint that is gone, or a remote environment whose connection was lost.
  if (err instanceof ServiceError) return 'unreachable';
  if (err instanceof EnvError) return 'environment';
  if (err instanceof LeakGuardError) return 'leak';
  return 'error';
}

/** Rejects as soon as the signal aborts, whatever the promise is doing. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new Error('aborted'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}

// ---------------------------------------------------------------------------------------------
// Reading metadata, whose shape a remote server decides

function str(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function num(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function bool(value: unknown): boolean | null {
  return typeof value === 'boolean' ? value : null;
}

function latLon(value: unknown): [number, number] | null {
  return Array.isArray(value) && value.length === 2 && typeof value[0] === 'number' && typeof value[1] === 'number' ? [value[0], value[1]] : null;
}
