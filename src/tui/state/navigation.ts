/**
 * Which screen is up: a stack of routes (Home -> Episodes -> Player, q goes back; leaving the last
 * screen ends the app), plus the help overlay and a one-line notice shared by every screen.
 */
import type { LiveSource } from '../live/types.js';

export type Route =
  | { screen: 'home' }
  | { screen: 'episodes' }
  | { screen: 'player'; episodeId: string }
  /** The "Watch a model" form; a good start opens Live on top of it. */
  | { screen: 'watch' }
  | { screen: 'live'; source: LiveSource };

export interface NavigationState {
  /** Empty once the last screen was left: the app exits. */
  readonly stack: readonly Route[];
  readonly help: boolean;
  readonly notice: string | null;
}

export type NavigationAction =
  | { type: 'open'; route: Route }
  | { type: 'back' }
  | { type: 'toggleHelp' }
  | { type: 'notice'; message: string | null };

export function initialNavigation(route: Route): NavigationState {
  return { stack: [route], help: false, notice: null };
}

export function navigationReducer(state: NavigationState, action: NavigationAction): NavigationState {
  switch (action.type) {
    case 'open':
      return { stack: [...state.stack, action.route], help: false, notice: null };
    case 'back':
      return { stack: state.stack.slice(0, -1), help: false, notice: null };
    case 'toggleHelp':
      return { ...state, help: !state.help };
    case 'notice':
      return { ...state, notice: action.message };
  }
}

export function currentRoute(state: NavigationState): Route | undefined {
  return state.stack[state.stack.length - 1];
}
