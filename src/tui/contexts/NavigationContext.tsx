/**
 * What every screen shares, in two contexts (docs/tui.md, 'Shared contexts'): the help overlay and the notice, and the
 * actions that open and leave screens. Components that only act never re-render on state changes,
 * and every reader fails loudly outside the container.
 */
import { createContext, useContext } from 'react';
import type { Route } from '../state/navigation.js';

export interface NavigationView {
  readonly help: boolean;
  readonly notice: string | null;
}

export interface NavigationActions {
  open(route: Route): void;
  /** Leaves the screen; leaving the last one ends the app. */
  back(): void;
  toggleHelp(): void;
  notify(message: string | null): void;
}

export const NavigationStateContext = createContext<NavigationView | undefined>(undefined);
export const NavigationActionsContext = createContext<NavigationActions | undefined>(undefined);
/** Whether the screen reading it is the one on top (a covered screen keeps its state, takes no keys). */
export const ScreenActiveContext = createContext<boolean | undefined>(undefined);

export function useNavigation(): NavigationView {
  const state = useContext(NavigationStateContext);
  if (!state) throw new Error('useNavigation must be used inside the AppContainer');
  return state;
}

export function useNavigationActions(): NavigationActions {
  const actions = useContext(NavigationActionsContext);
  if (!actions) throw new Error('useNavigationActions must be used inside the AppContainer');
  return actions;
}

export function useScreenActive(): boolean {
  const active = useContext(ScreenActiveContext);
  if (active === undefined) throw new Error('useScreenActive must be used inside a screen of the AppContainer');
  return active;
}
