/**
 * Which screens are up: a stack of routes (Home -> Episodes -> Player, q goes back; leaving the last
 * screen ends the app), plus the help overlay and a one-line notice shared by every screen. A route
 * says which screen and what it is opened on; each screen keeps its own state (its module's hook),
 * and a screen covered by another keeps it until the other is left.
 */
import type { EpisodeRecord } from '../../core/episode.js';
import type { LiveSource } from '../live/types.js';

/** One side of a comparison: a workspace episode, or a record read from a file with the images it names. */
export type CompareSide = { episodeId: string } | { label: string; record: EpisodeRecord; images: ReadonlyMap<string, Buffer> };

export type Route =
  | { screen: 'home' }
  | { screen: 'episodes' }
  /** `turn`: open on that turn of the episode (a finding's), else the first. */
  | { screen: 'player'; episodeId: string; turn?: number }
  /** The "Watch a model" form; a good start opens Live on top of it. */
  | { screen: 'watch' }
  | { screen: 'live'; source: LiveSource }
  | { screen: 'splits' }
  | { screen: 'audit' }
  | { screen: 'eval' }
  /** Without a run: the workspace's training runs to choose from. */
  | { screen: 'train'; run?: string }
  /** Two episodes of one task side by side. */
  | { screen: 'compare'; a: CompareSide; b: CompareSide };

export type ScreenName = Route['screen'];

/** The route of one screen: `RouteOf<'player'>` carries its episode. */
export type RouteOf<S extends ScreenName> = Extract<Route, { screen: S }>;

/** A route on the stack, under a key of its own: the same screen opened again starts afresh. */
export interface StackEntry {
  readonly key: number;
  readonly route: Route;
}

export interface NavigationState {
  /** Empty once the last screen was left: the app exits. */
  readonly stack: readonly StackEntry[];
  readonly opened: number;
  readonly help: boolean;
  readonly notice: string | null;
}

export type NavigationAction =
  | { type: 'open'; route: Route }
  | { type: 'back' }
  | { type: 'toggleHelp' }
  | { type: 'notice'; message: string | null };

export function initialNavigation(route: Route): NavigationState {
  return { stack: [{ key: 0, route }], opened: 1, help: false, notice: null };
}

export function navigationReducer(state: NavigationState, action: NavigationAction): NavigationState {
  switch (action.type) {
    case 'open':
      return { stack: [...state.stack, { key: state.opened, route: action.route }], opened: state.opened + 1, help: false, notice: null };
    case 'back':
      return { ...state, stack: state.stack.slice(0, -1), help: false, notice: null };
    case 'toggleHelp':
      return { ...state, help: !state.help };
    case 'notice':
      return { ...state, notice: action.message };
  }
}

export function currentRoute(state: NavigationState): Route | undefined {
  return state.stack[state.stack.length - 1]?.route;
}
