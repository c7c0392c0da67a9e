/**
 * The rules of one episode as a pure reducer (docs/protocol.md): (state, action) -> next state, its
 * feedback and what to draw. No I/O here; the engine renders the drawing and commits the state.
 *
 * Budget: an action that costs something spends one step; the action whose step is the last one
 * still takes effect, then the episode ends with no guess (reward 0). Free actions (list_pins,
 * clear_pins, reverse_geocode, the first measures, the guess) spend nothing.
 */
import { haversineKm, normalizeDeg, type LatLon } from '../core/geodesy.js';
import { parseGuess } from '../core/parse-guess.js';
import { scoreGuess, type Verdict } from '../core/scoring.js';
import { truthOf, type Task } from '../core/tasks.js';
import { countryAt, locate } from '../geo/index.js';
import { COST_HUNDREDTHS } from './action-facts.js';
import type { ActionOf, ParsedAction } from './actions.js';
import * as say from './feedback.js';
import type { Camera, PinView } from './types.js';

export interface RulesConfig {
  readonly maxSteps: number;
  readonly curve: 'game' | 'mixture';
  readonly mode: 'subtract' | 'multiply';
  readonly freeMeasures: number;
}

/** How often each kind of action was used (the episode record's n_looks, n_maps, ...). */
export interface Counters {
  /** look, pan and zoom: every action that only turns the camera. */
  readonly looks: number;
  /** view_map (pins are counted apart). */
  readonly maps: number;
  readonly pins: number;
  readonly moves: number;
  readonly measures: number;
}

/** How an episode ended and what it scored. */
export interface Outcome {
  readonly kind: 'guess' | 'unusable_guess' | 'out_of_actions';
  readonly guess: LatLon | null;
  readonly distanceKm: number | null;
  /** Before cost, clipped to 1; 0 without a usable guess. */
  readonly score: number;
  readonly reward: number;
  readonly verdict: Verdict | null;
  /** The guess's country by the geocoder (null at sea or without a guess). */
  readonly guessCountry: string | null;
  /** Guess and truth looked up with the same geocoder; null when the truth has no country or there is no guess. */
  readonly countryHit: boolean | null;
  readonly regionHit: boolean | null;
}

export interface EpisodeData {
  readonly episodeId: string;
  readonly split: string;
  readonly index: number;
  readonly task: Task;
  readonly frameIndex: number;
  readonly camera: Camera;
  readonly pins: readonly PinView[];
  /** Accepted actions, free ones included. */
  readonly stepCount: number;
  /** Budget spent: costed actions only. */
  readonly stepsUsed: number;
  readonly costHundredths: number;
  readonly totalMovedMeters: number;
  readonly counters: Counters;
  /** Set once the episode is over. */
  readonly outcome: Outcome | null;
}

/** What an action shows: a view at the current frame and camera, a map, the reveal, or nothing. */
export type Drawing =
  | { readonly kind: 'view' }
  | { readonly kind: 'map'; readonly centerLat: number; readonly centerLon: number; readonly spanDeg: number }
  | { readonly kind: 'reveal' }
  | { readonly kind: 'none' };

export interface Transition {
  readonly next: EpisodeData;
  readonly feedback: string;
  readonly drawing: Drawing;
  readonly movedMeters: number;
  readonly costHundredths: number;
}

/** The camera a new episode starts with: true north, level, 90° across. */
export const START_CAMERA: Readonly<Camera> = Object.freeze({ headingDeg: 0, pitchDeg: 0, fovDeg: 90 });

export function startEpisode(init: { episodeId: string; split: string; index: number; task: Task }): EpisodeData {
  return {
    ...init,
    frameIndex: init.task.start_frame,
    camera: START_CAMERA,
    pins: [],
    stepCount: 0,
    stepsUsed: 0,
    costHundredths: 0,
    totalMovedMeters: 0,
    counters: { looks: 0, maps: 0, pins: 0, moves: 0, measures: 0 },
    outcome: null,
  };
}

export function stepsRemaining(data: EpisodeData, config: RulesConfig): number {
  return config.maxSteps - data.stepsUsed;
}

/** One action on a running episode (the caller refuses actions once `outcome` is set). */
export function applyAction(data: EpisodeData, action: ParsedAction, config: RulesConfig): Transition {
  const effect = effectOf(data, action, config);
  const next = { ...effect.next, stepCount: data.stepCount + 1 };
  if (effect.costHundredths === 0) return { ...effect, next };

  const charged: EpisodeData = {
    ...next,
    stepsUsed: data.stepsUsed + 1,
    costHundredths: data.costHundredths + effect.costHundredths,
  };
  const remaining = stepsRemaining(charged, config);
  return {
    ...effect,
    next: remaining > 0 ? charged : { ...charged, outcome: noGuess() },
    feedback: `${effect.feedback} ${say.budgetTail(remaining)}`,
  };
}

/** An op's own transition, before the budget is charged. */
type Effect = Transition;

function effectOf(data: EpisodeData, action: ParsedAction, config: RulesConfig): Effect {
  switch (action.op) {
    case 'look': {
      const camera = { headingDeg: normalizeDeg(action.heading_deg), pitchDeg: action.pitch_deg, fovDeg: action.fov_deg };
      return turnCamera(data, 'look', camera, say.lookFeedback);
    }
    case 'pan': {
      const camera = { ...data.camera, headingDeg: normalizeDeg(data.camera.headingDeg + action.delta_deg) };
      return turnCamera(data, 'pan', camera, (c) => say.panFeedback(action.delta_deg, c));
    }
    case 'zoom':
      return turnCamera(data, 'zoom', { ...data.camera, fovDeg: action.fov_deg }, say.zoomFeedback);
    case 'move':
      return move(data, action);
    case 'pin':
      return pin(data, action);
    case 'view_map':
      return viewMap(data, action);
    case 'measure':
      return measure(data, action, config);
    case 'list_pins':
      return free(data, say.listPinsFeedback(data.pins));
    case 'clear_pins':
      return free({ ...data, pins: [] }, say.clearPinsFeedback(data.pins.length));
    case 'reverse_geocode':
      return free(data, say.reverseGeocodeFeedback(action.lat, action.lon, say.describePlace(locate(action.lat, action.lon))));
    case 'guess':
      return guess(data, action, config);
  }
}

function free(next: EpisodeData, feedback: string): Effect {
  return { next, feedback, drawing: { kind: 'none' }, movedMeters: 0, costHundredths: 0 };
}

function turnCamera(data: EpisodeData, op: 'look' | 'pan' | 'zoom', camera: Camera, feedback: (camera: Camera) => string): Effect {
  return {
    next: { ...data, camera, counters: { ...data.counters, looks: data.counters.looks + 1 } },
    feedback: feedback(camera),
    drawing: { kind: 'view' },
    movedMeters: 0,
    costHundredths: COST_HUNDREDTHS[op],
  };
}

/**
 * Frame by frame along the captured sequence until at least `meters` are covered or it ends. A
 * centimetre of slack keeps float noise from walking one frame too far when the frames lie exactly
 * `meters` apart.
 */
const WALK_SLACK_M = 0.01;

export function walk(
  frames: readonly LatLon[],
  from: number,
  direction: 'forward' | 'backward',
  meters: number,
): { frameIndex: number; movedMeters: number; atEnd: boolean } {
  const stride = direction === 'forward' ? 1 : -1;
  const inRange = (i: number) => i >= 0 && i < frames.length;
  let at = from;
  let moved = 0;
  while (moved < meters - WALK_SLACK_M && inRange(at + stride)) {
    const a = frames[at]!;
    const b = frames[at + stride]!;
    moved += haversineKm(a.lat, a.lon, b.lat, b.lon) * 1000;
    at += stride;
  }
  return { frameIndex: at, movedMeters: moved, atEnd: !inRange(at + stride) };
}

function move(data: EpisodeData, action: ActionOf<'move'>): Effect {
  const walked = walk(data.task.frames, data.frameIndex, action.direction, action.meters);
  const totalMovedMeters = data.totalMovedMeters + walked.movedMeters;
  return {
    next: {
      ...data,
      frameIndex: walked.frameIndex,
      totalMovedMeters,
      counters: { ...data.counters, moves: data.counters.moves + 1 },
    },
    feedback: say.moveFeedback({
      direction: action.direction,
      movedMeters: walked.movedMeters,
      totalMovedMeters,
      atEnd: walked.atEnd,
    }),
    // A dead end still shows the view: the agent paid for a look at where it stands.
    drawing: { kind: 'view' },
    movedMeters: walked.movedMeters,
    costHundredths: COST_HUNDREDTHS.move,
  };
}

function pin(data: EpisodeData, action: ActionOf<'pin'>): Effect {
  const placed: PinView = {
    index: data.pins.length + 1,
    lat: action.lat,
    lon: action.lon,
    label: action.label ?? null,
    description: say.describePlace(locate(action.lat, action.lon)),
  };
  const previous = data.pins.at(-1);
  const fromPrevious = previous
    ? { index: previous.index, distanceKm: haversineKm(previous.lat, previous.lon, placed.lat, placed.lon) }
    : null;
  return {
    next: { ...data, pins: [...data.pins, placed], counters: { ...data.counters, pins: data.counters.pins + 1 } },
    feedback: say.pinFeedback(placed, fromPrevious),
    drawing: { kind: 'map', centerLat: action.lat, centerLon: action.lon, spanDeg: action.span_deg },
    movedMeters: 0,
    costHundredths: COST_HUNDREDTHS.pin,
  };
}

function viewMap(data: EpisodeData, action: ActionOf<'view_map'>): Effect {
  return {
    next: { ...data, counters: { ...data.counters, maps: data.counters.maps + 1 } },
    feedback: say.viewMapFeedback(action.lat, action.lon, action.span_deg, countryAt(action.lat, action.lon)),
    drawing: { kind: 'map', centerLat: action.lat, centerLon: action.lon, spanDeg: action.span_deg },
    movedMeters: 0,
    costHundredths: COST_HUNDREDTHS.view_map,
  };
}

function measure(data: EpisodeData, action: ActionOf<'measure'>, config: RulesConfig): Effect {
  const used = data.counters.measures;
  const billing: say.MeasureBilling =
    used >= config.freeMeasures ? 'paid' : used === config.freeMeasures - 1 ? 'last_free' : 'free';
  const a = { lat: action.lat_a, lon: action.lon_a };
  const b = { lat: action.lat_b, lon: action.lon_b };
  return {
    next: { ...data, counters: { ...data.counters, measures: used + 1 } },
    feedback: say.measureFeedback(a, b, haversineKm(a.lat, a.lon, b.lat, b.lon), billing, config.freeMeasures),
    drawing: { kind: 'none' },
    movedMeters: 0,
    costHundredths: billing === 'paid' ? COST_HUNDREDTHS.measure : 0,
  };
}

function guess(data: EpisodeData, action: ActionOf<'guess'>, config: RulesConfig): Effect {
  const truth = truthOf(data.task);
  // The label first (what the task file says); the geocoder only when the task has none.
  const trueCountry = data.task.country ?? countryAt(truth.lat, truth.lon).country;
  // Coordinates given as numbers win over a response; the response is parsed only without them.
  const parsed =
    action.lat !== undefined && action.lon !== undefined
      ? ({ ok: true, lat: action.lat, lon: action.lon } as const)
      : parseGuess(action.response ?? '');
  if (!parsed.ok) {
    return {
      next: { ...data, outcome: { ...noGuess(), kind: 'unusable_guess' } },
      feedback: say.unusableGuessFeedback(parsed.note, parsed.guidance, truth, trueCountry),
      drawing: { kind: 'reveal' },
      movedMeters: 0,
      costHundredths: 0,
    };
  }
  const point = { lat: parsed.lat, lon: parsed.lon };
  const scored = scoreGuess({
    distanceKm: haversineKm(point.lat, point.lon, truth.lat, truth.lon),
    cost: data.costHundredths / 100,
    curve: config.curve,
    mode: config.mode,
  });
  const guessPlace = countryAt(point.lat, point.lon);
  const truthPlace = countryAt(truth.lat, truth.lon);
  const outcome: Outcome = {
    kind: 'guess',
    guess: point,
    distanceKm: scored.distance_km,
    score: scored.score,
    reward: scored.reward,
    verdict: scored.verdict,
    guessCountry: guessPlace.country,
    countryHit: truthPlace.country === null ? null : guessPlace.country === truthPlace.country,
    regionHit: truthPlace.subregion === null ? null : guessPlace.subregion === truthPlace.subregion,
  };
  return {
    next: { ...data, outcome },
    feedback: say.guessFeedback({ guess: point, truth, trueCountry, scored, reward: scored.reward }),
    drawing: { kind: 'reveal' },
    movedMeters: 0,
    costHundredths: 0,
  };
}

function noGuess(): Outcome {
  return {
    kind: 'out_of_actions',
    guess: null,
    distanceKm: null,
    score: 0,
    reward: 0,
    verdict: null,
    guessCountry: null,
    countryHit: null,
    regionHit: null,
  };
}
