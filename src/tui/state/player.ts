/**
 * The Player's stepper: which turn of a recorded episode is shown and how. A pure reducer over a
 * discriminated union of actions, tested without rendering.
 */

export type ImageSize = 'small' | 'large';

export interface PlayerState {
  /** The episode stepped through; a different one starts over (see `load`). */
  readonly episodeId: string | null;
  /** Index into the episode's turns (turn 0 is the reset). */
  readonly position: number;
  readonly turnCount: number;
  readonly autoplay: boolean;
  /** The model's reply and reasoning shown in full rather than as one line. */
  readonly reasoning: boolean;
  readonly imageSize: ImageSize;
  /** The world map in the image pane; arriving at the last turn opens it, leaving closes it. */
  readonly map: boolean;
  /** The turn's full request in place of the turn: its first line shown, or null when closed. */
  readonly request: number | null;
}

export type PlayerAction =
  /** Another episode: back to its first turn (or `position`, opened on one) with the defaults. */
  | { type: 'load'; episodeId: string; turnCount: number; position?: number }
  | { type: 'next' }
  | { type: 'prev' }
  | { type: 'first' }
  | { type: 'last' }
  | { type: 'toggleAutoplay' }
  /** Another view takes the screen (the retry or fork panel): the turn stays where it is. */
  | { type: 'stopAutoplay' }
  /** One beat of the autoplay clock: the next turn, stopping at the last. */
  | { type: 'tick' }
  | { type: 'toggleReasoning' }
  | { type: 'toggleImageSize' }
  | { type: 'toggleMap' }
  | { type: 'toggleRequest' }
  /** Scroll the request by `by` lines, within 0..`max` (the lines that do not fit). */
  | { type: 'scrollRequest'; by: number; max: number };

export function initialPlayerState(episodeId: string | null, turnCount: number): PlayerState {
  return { episodeId, position: 0, turnCount, autoplay: false, reasoning: false, imageSize: 'large', map: turnCount <= 1, request: null };
}

export function playerReducer(state: PlayerState, action: PlayerAction): PlayerState {
  const last = Math.max(0, state.turnCount - 1);
  switch (action.type) {
    case 'load':
      return goTo(initialPlayerState(action.episodeId, action.turnCount), action.position ?? 0);
    case 'next':
      return goTo(state, state.position + 1);
    case 'prev':
      return goTo(state, state.position - 1);
    case 'first':
      return goTo(state, 0);
    case 'last':
      return { ...goTo(state, last), autoplay: false };
    case 'toggleAutoplay':
      if (state.autoplay) return { ...state, autoplay: false };
      // Starting at the end replays from the start, as a media player does.
      return { ...(state.position >= last ? goTo(state, 0) : state), autoplay: last > 0 };
    case 'stopAutoplay':
      return state.autoplay ? { ...state, autoplay: false } : state;
    case 'tick': {
      if (!state.autoplay) return state;
      const next = goTo(state, state.position + 1);
      return next.position >= last ? { ...next, autoplay: false } : next;
    }
    case 'toggleReasoning':
      return { ...state, reasoning: !state.reasoning };
    case 'toggleImageSize':
      return { ...state, imageSize: state.imageSize === 'large' ? 'small' : 'large' };
    case 'toggleMap':
      return { ...state, map: !state.map };
    case 'toggleRequest':
      return { ...state, request: state.request === null ? 0 : null, autoplay: false };
    case 'scrollRequest':
      if (state.request === null) return state;
      return { ...state, request: Math.max(0, Math.min(action.max, state.request + action.by)) };
  }
}

function goTo(state: PlayerState, position: number): PlayerState {
  const last = Math.max(0, state.turnCount - 1);
  const clamped = Math.min(last, Math.max(0, position));
  if (clamped === state.position) return state;
  return { ...state, position: clamped, map: clamped === last };
}
