/** The Player's episode, loaded from the workspace, and its stepper with the autoplay clock. */
import { useEffect, useMemo, useReducer } from 'react';
import { isFailed, type CompletedEpisode, type FailedEpisode } from '../../core/episode.js';
import type { WorkspaceView } from '../services.js';
import { initialPlayerState, playerReducer } from '../state/player.js';
import { read, type Loading } from './useWorkspace.js';

/** One turn per beat: long enough to read a tool call and its feedback. */
export const AUTOPLAY_MS = 1200;

/** `turn`: the episode's turn number to open on (the Audit screen's finding), else its first. */
export function usePlayback(workspace: Loading<WorkspaceView> | null, episodeId: string | null, turn?: number) {
  const [player, dispatch] = useReducer(playerReducer, null, (id) => initialPlayerState(id, 0));
  const episode = useMemo((): Loading<CompletedEpisode | FailedEpisode> | null => {
    if (!episodeId) return null;
    const loaded = read(workspace, (view) => view.loadEpisode(episodeId));
    if (loaded.status !== 'ready') return loaded;
    return loaded.value
      ? { status: 'ready', value: loaded.value }
      : { status: 'failed', message: `no episode ${episodeId} in this workspace (geolab episodes lists them)` };
  }, [workspace, episodeId]);

  // Reset while rendering (React's "state from props" pattern), not in an effect: a key pressed
  // right after the episode appears must already step through its turns.
  const loaded = episode?.status === 'ready' ? episode.value : null;
  if (loaded && player.episodeId !== loaded.episode_id) {
    const turns = turnsOf(loaded);
    const position = turn === undefined ? 0 : turns.findIndex((t) => t.turn === turn);
    dispatch({ type: 'load', episodeId: loaded.episode_id, turnCount: turns.length, position: Math.max(0, position) });
  }

  useEffect(() => {
    if (!player.autoplay) return;
    const timer = setInterval(() => dispatch({ type: 'tick' }), AUTOPLAY_MS);
    return () => clearInterval(timer);
  }, [player.autoplay]);

  return { episode, player, dispatch };
}

/** The turns to step through: none for a failed episode, and a completed one may omit them too. */
export function turnsOf(episode: CompletedEpisode | FailedEpisode): NonNullable<CompletedEpisode['turns']> {
  return isFailed(episode) ? [] : (episode.turns ?? []);
}
