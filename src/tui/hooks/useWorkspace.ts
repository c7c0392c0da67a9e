/** The workspace behind Home, Episodes and the Player: opened after the first frame, read on demand. */
import { useEffect, useMemo, useReducer, useState } from 'react';
import type { EpisodeRow, HomeSummary, WorkspaceView } from '../services.js';
import { isFiltered } from '../state/episode-filter.js';
import { episodeListReducer, INITIAL_LIST, type EpisodeListView } from '../state/episode-list.js';

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

export function useWorkspace(openWorkspace: (() => Promise<WorkspaceView>) | undefined): Loading<WorkspaceView> | null {
  const [workspace, setWorkspace] = useState<Loading<WorkspaceView> | null>(openWorkspace ? { status: 'loading' } : null);
  useEffect(() => {
    if (!openWorkspace) return;
    let current = true;
    openWorkspace().then(
      (value) => current && setWorkspace({ status: 'ready', value }),
      (err: Error) => current && setWorkspace({ status: 'failed', message: err.message }),
    );
    return () => {
      current = false;
    };
  }, [openWorkspace]);
  return workspace;
}

/** Reads from the workspace once it is open; a read that throws becomes a failed value the screen shows. */
export function read<T>(workspace: Loading<WorkspaceView> | null, get: (view: WorkspaceView) => T): Loading<T> {
  if (!workspace || workspace.status === 'loading') return { status: 'loading' };
  if (workspace.status === 'failed') return workspace;
  try {
    return { status: 'ready', value: get(workspace.value) };
  } catch (err) {
    return { status: 'failed', message: (err as Error).message };
  }
}

/** The summary, re-read whenever Home comes back into view (`active` again). */
export function useHomeSummary(workspace: Loading<WorkspaceView> | null, active: boolean): Loading<HomeSummary> | null {
  return useMemo(() => (active ? read(workspace, (view) => view.summary()) : null), [workspace, active]);
}

export interface EpisodeListActions {
  move(delta: number): void;
  /** The `/` prompt: open, type, erase, cancel, and apply (or say which term does not parse). */
  openFilter(): void;
  typeFilter(text: string): void;
  eraseFilter(): void;
  cancelFilter(): void;
  applyFilter(): void;
  clearFilter(): void;
  /** recent → reward → distance → turns, each its useful end first. */
  cycleSort(): void;
  reverseSort(): void;
}

/**
 * The Episodes list: two counts (all, and matching the filter) and only the rows on screen. The
 * filter count is read when the filter changes, not when the order or the cursor does; all of it
 * again when the list comes back into view (`active`: the Player on top may have been a new play).
 */
export function useEpisodeList(
  workspace: Loading<WorkspaceView> | null,
  active: boolean,
  visibleRows: number,
): { state: EpisodeListState; actions: EpisodeListActions } {
  const [view, dispatch] = useReducer(episodeListReducer, INITIAL_LIST);
  const { query, cursor } = view;
  const recordedRead = useMemo(() => (active ? read(workspace, (w) => w.countEpisodes()) : null), [workspace, active]);
  const recorded = countOf(recordedRead);
  const totalRead = useMemo(
    () => (!isFiltered(query.filter) ? recordedRead : active ? read(workspace, (w) => w.countEpisodes(query.filter)) : null),
    [workspace, active, query.filter, recordedRead],
  );
  const total = countOf(totalRead);
  const page = useMemo(
    // Nothing matches: no page to read (a search that finds nothing would walk every row again).
    () => (active && total > 0 ? read(workspace, (w) => w.listEpisodes(query, cursor.top, visibleRows)) : null),
    [workspace, active, total, query, cursor.top, visibleRows],
  );
  const rows: readonly EpisodeRow[] = page?.status === 'ready' ? page.value : NO_ROWS;
  // A read that throws (a corrupt or locked database) is said, never passed off as "no episodes".
  const error = [recordedRead, totalRead, page].find((r) => r?.status === 'failed');
  const actions = useMemo<EpisodeListActions>(
    () => ({
      move: (delta) => dispatch({ type: 'move', delta, total, visible: visibleRows }),
      openFilter: () => dispatch({ type: 'openFilter' }),
      typeFilter: (text) => dispatch({ type: 'typeFilter', text }),
      eraseFilter: () => dispatch({ type: 'eraseFilter' }),
      cancelFilter: () => dispatch({ type: 'cancelFilter' }),
      applyFilter: () => dispatch({ type: 'applyFilter' }),
      clearFilter: () => dispatch({ type: 'clearFilter' }),
      cycleSort: () => dispatch({ type: 'cycleSort' }),
      reverseSort: () => dispatch({ type: 'reverseSort' }),
    }),
    [total, visibleRows],
  );
  return { state: { ...view, recorded, total, rows, error: error?.status === 'failed' ? error.message : null }, actions };
}

const NO_ROWS: readonly EpisodeRow[] = [];

function countOf(count: Loading<number> | null): number {
  return count?.status === 'ready' ? count.value : 0;
}
