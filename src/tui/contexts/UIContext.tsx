/**
 * The container's state and actions, in two contexts (STYLE.md 2): components that only act never
 * re-render on state changes, and every reader fails loudly outside the container.
 */
import { createContext, useContext } from 'react';
import type { CompletedEpisode, FailedEpisode } from '../../core/episode.js';
import type { LiveActions } from '../hooks/useLiveEpisode.js';
import type { EpisodeListActions } from '../hooks/useWorkspace.js';
import type { WatchFormActions, WatchFormView } from '../hooks/useWatchForm.js';
import type { EpisodeRow, HomeSummary, WorkspaceView } from '../services.js';
import type { EpisodeListView } from '../state/episode-list.js';
import type { LiveState } from '../state/live.js';
import type { Route } from '../state/navigation.js';
import type { PlayerAction, PlayerState } from '../state/player.js';

export type Loading<T> = { status: 'loading' } | { status: 'ready'; value: T } | { status: 'failed'; message: string };

/** The list's query, cursor and prompt, with what the workspace holds for them. */
export interface EpisodeListState extends EpisodeListView {
  /** All the episodes recorded. */
  recorded: number;
  /** The episodes matching the filter. */
  total: number;
  /** Only the visible rows, from `cursor.top`. */
  rows: readonly EpisodeRow[];
  /** Why a read of the list failed (shown instead of the list), or null. */
  error: string | null;
}

export interface UIState {
  route: Route;
  help: boolean;
  notice: string | null;
  workspace: Loading<WorkspaceView> | null;
  home: Loading<HomeSummary> | null;
  episodes: EpisodeListState;
  /** The Player's episode and stepper (meaningful on the player route). */
  episode: Loading<CompletedEpisode | FailedEpisode> | null;
  player: PlayerState;
  live: LiveState;
  /** The "Watch a model" form (meaningful on the watch route). */
  watchForm: WatchFormView;
}

export interface UIActions {
  open(route: Route): void;
  /** Leaves the screen; leaving the last one ends the app. */
  back(): void;
  toggleHelp(): void;
  notify(message: string | null): void;
  player(action: PlayerAction): void;
  episodes: EpisodeListActions;
  live: LiveActions;
  watchForm: WatchFormActions;
  /** Home's "Play" and "Watch a model" (its form), when the services offer them. */
  play?: () => void;
  watch?: () => void;
}

export const UIStateContext = createContext<UIState | undefined>(undefined);
export const UIActionsContext = createContext<UIActions | undefined>(undefined);

export function useUIState(): UIState {
  const state = useContext(UIStateContext);
  if (!state) throw new Error('useUIState must be used inside the AppContainer');
  return state;
}

export function useUIActions(): UIActions {
  const actions = useContext(UIActionsContext);
  if (!actions) throw new Error('useUIActions must be used inside the AppContainer');
  return actions;
}
