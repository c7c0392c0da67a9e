/**
 * The Live screen's state: an episode as the runner plays it, driven by the runner's events, the
 * pause gate, and (for a person) the coordinate prompt and the quit confirmation. Pure.
 */
import type { RunnerEvent } from '../../agent/types.js';
import { isFailed, type CompletedEpisode, type EpisodeConfig, type FailedEpisode, type Turn } from '../../core/episode.js';
import type { ImageKind, Observation } from '../../env/types.js';
import { turnBudget, type TurnBudget } from '../turn-text.js';

/** Who chooses the actions: a person at the keyboard or a policy (a served model, a baseline). */
export type Driver = 'person' | 'model';

export interface LiveImage {
  /** Cache key for the rendered image: the turn's image hash when recorded, else unique per turn. */
  key: string;
  bytes: Buffer;
  kind: ImageKind;
}

export type LivePhase =
  | { kind: 'starting' }
  /** The model thinks, or the person is to move; `since` is when it started (ms). */
  | { kind: 'deciding'; turn: number; since: number }
  /** The person's action is with the environment. */
  | { kind: 'stepping'; turn: number }
  | { kind: 'finished'; record: CompletedEpisode | FailedEpisode }
  | { kind: 'aborted' }
  | { kind: 'failed'; message: string };

export type PromptPurpose = 'pin' | 'guess';

/**
 * What the main pane shows: the last view of the street, or the last map (a pin's or `v`'s; after
 * the guess, the reveal). A new image brings its own pane forward; `m` switches locally, no step.
 */
export type LivePane = 'view' | 'map';

/** The inline "lat, lon" prompt of a pin or a guess. */
export interface CoordinatePrompt {
  purpose: PromptPurpose;
  text: string;
  error: string | null;
}

export interface LiveState {
  readonly driver: Driver;
  readonly episodeId: string | null;
  readonly split: string | null;
  readonly index: number | null;
  readonly observation: Observation | null;
  /** The harness config of the run (max turns, protocol): what a model is told it has left. */
  readonly config: EpisodeConfig | null;
  /** The environment's steps remaining at the reset, before the first turn. */
  readonly openingSteps: number | null;
  /** The last view of the street the environment drew: a map no longer replaces it. */
  readonly view: LiveImage | null;
  /** The last map the environment drew (around a pin). */
  readonly map: LiveImage | null;
  readonly pane: LivePane;
  /** Once the episode is over: the turn being read again (null: the last). */
  readonly reviewed: number | null;
  /** The reasoning and reply of the turn shown, in full, in place of the pane (the Player's `r`). */
  readonly reasoning: boolean;
  readonly turns: readonly Turn[];
  readonly phase: LivePhase;
  /** Model: the gate holds the next decision (space pauses, n lets one through). */
  readonly paused: boolean;
  /** Model: a decision is waiting at the gate right now. */
  readonly held: boolean;
  /** Person: the turn waiting is the forced one at the limit, where only a guess counts. */
  readonly forced: boolean;
  readonly prompt: CoordinatePrompt | null;
  readonly confirmQuit: boolean;
}

export type LiveAction =
  | { type: 'reset'; driver: Driver }
  | { type: 'prepared'; config: EpisodeConfig }
  | { type: 'runner'; event: RunnerEvent; at: number }
  | { type: 'held' }
  | { type: 'released'; at: number }
  | { type: 'setPaused'; paused: boolean }
  | { type: 'personWaiting'; forced: boolean }
  | { type: 'submitted' }
  | { type: 'aborted' }
  | { type: 'failed'; message: string }
  | { type: 'promptOpen'; purpose: PromptPurpose }
  | { type: 'promptType'; text: string }
  | { type: 'promptErase' }
  | { type: 'promptError'; message: string }
  | { type: 'promptClose' }
  | { type: 'askQuit' }
  | { type: 'cancelQuit' }
  | { type: 'switchPane' }
  /** Shows or hides the reasoning of the turn shown; before the first turn there is none to show. */
  | { type: 'toggleReasoning' }
  /** After the end: read the turn `delta` before (-) or after (+) the one read now, beside the last view. */
  | { type: 'review'; delta: number };

export function initialLiveState(driver: Driver): LiveState {
  return {
    driver,
    episodeId: null,
    split: null,
    index: null,
    observation: null,
    config: null,
    openingSteps: null,
    view: null,
    map: null,
    pane: 'view',
    reviewed: null,
    reasoning: false,
    turns: [],
    phase: { kind: 'starting' },
    paused: false,
    held: false,
    forced: false,
    prompt: null,
    confirmQuit: false,
  };
}

/** The reveal is there to show: the episode finished with a scored record. */
export function hasReveal(state: LiveState): boolean {
  return state.phase.kind === 'finished' && !isFailed(state.phase.record);
}

/** The pane `m` switches to, or null while there is nothing else to show. */
export function otherPane(state: LiveState): LivePane | null {
  if (state.pane === 'map') return 'view';
  return state.map || hasReveal(state) ? 'map' : null;
}

/**
 * The budget a model was told on the turn at `position`, beside the environment's count before it
 * (the Player's rule); a person is told nothing, so none. The runner streams no reset turn: the
 * environment's count before the first turn is the one at the reset.
 */
export function liveTurnBudget(state: LiveState, position: number): TurnBudget | undefined {
  if (state.driver === 'person') return undefined;
  const budget = turnBudget(state.turns, position, state.config);
  return position === 0 ? { ...budget, environment: state.openingSteps } : budget;
}

/** The episode is over one way or another: no more actions, quitting needs no confirmation. */
export function isOver(state: LiveState): boolean {
  return state.phase.kind === 'finished' || state.phase.kind === 'aborted' || state.phase.kind === 'failed';
}

export function liveReducer(state: LiveState, action: LiveAction): LiveState {
  switch (action.type) {
    case 'reset':
      return initialLiveState(action.driver);
    case 'prepared':
      return { ...state, config: action.config };
    case 'runner':
      return onRunnerEvent(state, action.event, action.at);
    case 'held':
      return { ...state, held: true };
    case 'released':
      return state.phase.kind === 'deciding'
        ? { ...state, held: false, phase: { ...state.phase, since: action.at } }
        : { ...state, held: false };
    case 'setPaused':
      return { ...state, paused: action.paused };
    case 'personWaiting':
      return { ...state, forced: action.forced };
    case 'submitted':
      return state.phase.kind === 'deciding' ? { ...state, prompt: null, phase: { kind: 'stepping', turn: state.phase.turn } } : state;
    case 'aborted':
      return isOver(state) ? state : { ...state, phase: { kind: 'aborted' }, held: false, prompt: null };
    case 'failed':
      return isOver(state) ? state : { ...state, phase: { kind: 'failed', message: action.message }, held: false, prompt: null };
    case 'promptOpen':
      return isOver(state) ? state : { ...state, prompt: { purpose: action.purpose, text: '', error: null } };
    case 'promptType':
      return state.prompt ? { ...state, prompt: { ...state.prompt, text: state.prompt.text + action.text, error: null } } : state;
    case 'promptErase':
      return state.prompt ? { ...state, prompt: { ...state.prompt, text: state.prompt.text.slice(0, -1), error: null } } : state;
    case 'promptError':
      return state.prompt ? { ...state, prompt: { ...state.prompt, error: action.message } } : state;
    case 'promptClose':
      return { ...state, prompt: null };
    case 'askQuit':
      return { ...state, confirmQuit: true, prompt: null };
    case 'cancelQuit':
      return { ...state, confirmQuit: false };
    case 'review': {
      if (!isOver(state) || !state.turns.length) return state;
      const last = state.turns.length - 1;
      const reviewed = Math.max(0, Math.min(last, (state.reviewed ?? last) + action.delta));
      return { ...state, reviewed, pane: 'view' };
    }
    case 'switchPane': {
      // Over the reasoning: the pane asked for comes out from under it (the one under it, with no other).
      const pane = otherPane(state);
      if (state.reasoning) return { ...state, pane: pane ?? state.pane, reasoning: false };
      return pane ? { ...state, pane } : state;
    }
    case 'toggleReasoning':
      return state.turns.length ? { ...state, reasoning: !state.reasoning } : state;
  }
}

function onRunnerEvent(state: LiveState, event: RunnerEvent, at: number): LiveState {
  switch (event.type) {
    case 'started': {
      const { observation } = event;
      const image = observation.image_base64
        ? { key: `${event.episodeId}:start`, bytes: Buffer.from(observation.image_base64, 'base64'), kind: observation.image_kind }
        : null;
      return {
        ...withImage(state, image),
        episodeId: event.episodeId,
        split: event.split,
        index: event.index,
        observation,
        openingSteps: observation.steps_remaining,
      };
    }
    case 'thinking':
      return isOver(state) ? state : { ...state, phase: { kind: 'deciding', turn: event.turn, since: at } };
    case 'turn': {
      const { turn, observation } = event;
      const image = event.image
        ? { key: turn.image_sha256 ?? `${state.episodeId}:${turn.turn}`, bytes: event.image, kind: observation.image_kind }
        : null;
      return { ...withImage(state, image), observation, turns: [...state.turns, turn] };
    }
    case 'finished': {
      // An abort the user asked for stays an abort, whatever record the runner made of it.
      if (state.phase.kind === 'aborted') return state;
      const finished: LiveState = { ...state, phase: { kind: 'finished', record: event.record }, held: false, prompt: null };
      // The reveal comes first; the view stays one key away.
      return { ...finished, pane: hasReveal(finished) ? 'map' : state.pane };
    }
  }
}

/** A new image goes to its own pane and brings it forward; a turn without one changes nothing. */
function withImage(state: LiveState, image: LiveImage | null): LiveState {
  if (!image || image.kind === 'none') return state;
  return image.kind === 'map' ? { ...state, map: image, pane: 'map' } : { ...state, view: image, pane: 'view' };
}
