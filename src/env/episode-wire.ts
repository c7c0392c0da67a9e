/**
 * The wire forms of an episode (docs/protocol.md): its observation, per-turn and terminal metadata, and
 * the truth-free state. Pure projections of the rules' EpisodeData.
 *
 * Leak rules kept here: truth fields stay null until the outcome exists; per-turn metadata has no
 * key that names or hints at the country and carries identity only when asked to.
 */
import { truthOf } from '../core/tasks.js';
import { OPS } from './actions.js';
import { stepsRemaining, type EpisodeData, type RulesConfig } from './episode-rules.js';
import type { ImageKind, Observation, PinView, StepResult } from './types.js';

/** A drawn image: a JPEG view or a PNG map. */
export interface Image {
  readonly kind: Exclude<ImageKind, 'none'>;
  readonly bytes: Buffer;
}

/** The truth-free state of an episode (`{"type":"state"}`, `GET /sessions/{id}/state`). */
export interface EpisodeState {
  episode_id: string;
  split: string;
  index: number;
  /** Accepted actions, free ones included. */
  step_count: number;
  /** Budget spent: costed actions only. */
  steps_used: number;
  steps_remaining: number;
  done: boolean;
  camera: { heading_deg: number; pitch_deg: number; fov_deg: number };
  frame_index: number;
  pins: PinView[];
  /** Total cost so far. */
  action_cost: number;
  /** Identity: only when the engine shows it. */
  task_id?: string;
  sequence_id?: string | null;
}

export interface WireConfig extends RulesConfig {
  readonly showIdentity: boolean;
}

/**
 * A step's answer with its metadata in both places OpenEnv generations read it: beside the
 * observation (newer clients) and inside it (older ones and the public harness).
 */
export function stepResultOf(
  observation: Omit<Observation, 'metadata'>,
  reward: number | null,
  done: boolean,
  metadata: Record<string, unknown>,
): StepResult {
  return { observation: { ...observation, metadata }, reward, done, metadata };
}

export function observationOf(
  data: EpisodeData,
  config: RulesConfig,
  turn: { feedback: string; image: Image | null; prompt: string | null; movedMeters: number },
): Omit<Observation, 'metadata'> {
  const frame = data.task.frames[data.frameIndex]!;
  const outcome = data.outcome;
  const truth = outcome ? truthOf(data.task) : null;
  return {
    prompt: turn.prompt,
    image_base64: turn.image ? turn.image.bytes.toString('base64') : null,
    image_kind: turn.image?.kind ?? 'none',
    heading_deg: data.camera.headingDeg,
    pitch_deg: data.camera.pitchDeg,
    fov_deg: data.camera.fovDeg,
    moved_meters: round1(turn.movedMeters),
    total_moved_meters: round1(data.totalMovedMeters),
    can_move_forward: data.frameIndex < data.task.frames.length - 1,
    can_move_backward: data.frameIndex > 0,
    // Every op while the episode runs (list_pins and clear_pins included); none once it is over.
    available_tools: outcome ? [] : [...OPS],
    steps_remaining: stepsRemaining(data, config),
    pins: data.pins.map((pin) => ({ ...pin })),
    feedback: turn.feedback,
    captured_at: frame.captured_at,
    distance_km: outcome ? outcome.distanceKm : null,
    score: outcome ? outcome.score : null,
    action_cost: costOf(data),
    true_lat: truth ? truth.lat : null,
    true_lon: truth ? truth.lon : null,
    parsed_ok: outcome ? outcome.kind === 'guess' : null,
  };
}

/** Metadata of a turn that did not end the episode (and of refusals after the end). */
export function turnMetadata(data: EpisodeData, config: WireConfig, op: string, stepCostHundredths: number): Record<string, unknown> {
  return {
    ...bookkeeping(data, config, op, stepCostHundredths),
    ...(config.showIdentity ? identityOf(data) : {}),
  };
}

/** Metadata of the turn that ended the episode: the outcome, the counters and the identity. */
export function finalMetadata(data: EpisodeData, config: WireConfig, op: string, stepCostHundredths: number): Record<string, unknown> {
  const outcome = data.outcome;
  if (!outcome) throw new Error('finalMetadata needs an episode that is over');
  const truth = truthOf(data.task);
  return {
    ...bookkeeping(data, config, op, stepCostHundredths),
    end: outcome.kind,
    country: data.task.country ?? null,
    truth: [truth.lat, truth.lon],
    guess: outcome.guess ? [outcome.guess.lat, outcome.guess.lon] : null,
    guess_country: outcome.guessCountry,
    verdict: outcome.verdict,
    distance_km: outcome.distanceKm,
    score_before_cost: outcome.score,
    reward: outcome.reward,
    parsed_ok: outcome.kind === 'guess',
    no_guess: outcome.guess === null,
    country_hit: outcome.countryHit,
    region_hit: outcome.regionHit,
    n_looks: data.counters.looks,
    n_maps: data.counters.maps,
    n_pins: data.counters.pins,
    n_moves: data.counters.moves,
    n_measures: data.counters.measures,
    total_moved_meters: round1(data.totalMovedMeters),
    ...identityOf(data),
  };
}

export function stateOf(data: EpisodeData, config: WireConfig): EpisodeState {
  return {
    episode_id: data.episodeId,
    split: data.split,
    index: data.index,
    step_count: data.stepCount,
    steps_used: data.stepsUsed,
    steps_remaining: stepsRemaining(data, config),
    done: data.outcome !== null,
    camera: { heading_deg: data.camera.headingDeg, pitch_deg: data.camera.pitchDeg, fov_deg: data.camera.fovDeg },
    frame_index: data.frameIndex,
    pins: data.pins.map((pin) => ({ ...pin })),
    action_cost: costOf(data),
    ...(config.showIdentity ? { task_id: data.task.task_id, sequence_id: data.task.sequence_id ?? null } : {}),
  };
}

/**
 * geolab plays the public environment's agentic mode on panoramas only, and draws no street layer
 * (upstream's Overpass streets): the values its per-turn metadata always reports.
 */
const EPISODE_MODE = 'agentic';
const BACKEND = 'panorama';
const STREET_DETAIL = 'off';

function bookkeeping(data: EpisodeData, config: RulesConfig, op: string, stepCostHundredths: number) {
  return {
    episode_id: data.episodeId,
    split: data.split,
    frame_index: data.frameIndex,
    backend: BACKEND,
    episode_mode: EPISODE_MODE,
    street_detail: STREET_DETAIL,
    op,
    step_count: data.stepCount,
    steps_used: data.stepsUsed,
    steps_remaining: stepsRemaining(data, config),
    step_cost: stepCostHundredths / 100,
    action_cost: costOf(data),
  };
}

/** What the public harness copies from metadata into an episode's `task` (the start frame's capture month, the contributor). */
function identityOf(data: EpisodeData) {
  const start = data.task.frames[data.task.start_frame ?? 0];
  return {
    task_id: data.task.task_id,
    sequence_id: data.task.sequence_id ?? null,
    split: data.split,
    index: data.index,
    captured_at: start?.captured_at ?? '',
    ...(data.task.attribution ? { attribution: data.task.attribution } : {}),
  };
}

function costOf(data: EpisodeData): number {
  return data.costHundredths / 100;
}

function round1(value: number): number {
  return Math.round(value * 10) / 10;
}
