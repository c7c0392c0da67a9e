/** The workspace behind Home, Episodes and the Player: opened after the first frame, read on demand. */
import { useEffect, useMemo, useReducer, useState } from 'react';
import type { Loading } from '../contexts/UIContext.js';
import type { EpisodeRow, HomeSummary, WorkspaceView } from '../services.js';
import { isFiltered } from '../state/episode-filter.js';
import { episodeListReducer, INITIAL_LIST } from '../state/episode-list.js';

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

/** The summary, re-read whenever Home comes back into view (`visit` changes). */
export function useHomeSummary(workspace: Loading<WorkspaceView> | null, visit: unknown): Loading<HomeSummary> | null {
  return useMemo(() => (visit ? read(workspace, (view) => view.summary()) : null), [workspace, visit]);
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
 * filter count is read when the filter changes, not when the order or the cursor does.
 */
export function useEpisodeList(workspace: Loading<WorkspaceView> | null, visit: unknown, visibleRows: number) {
  const [view, dispatch] = useReducer(episodeListReducer, INITIAL_LIST);
  const { query, cursor } = view;
  const recordedRead = useMemo(() => (visit ? read(workspace, (w) => w.countEpisodes()) : null), [workspace, visit]);
  const recorded = countOf(recordedRead);
  const totalRead = useMemo(
    () => (!isFiltered(query.filter) ? recordedRead : visit ? read(workspace, (w) => w.countEpisodes(query.filter)) : null),
    [workspace, visit, query.filter, recordedRead],
  );
  const total = countOf(totalRead);
  const page = useMemo(
    // Nothing matches: no page to read (a search that finds nothing would walk every row again).
    () => (visit && total > 0 ? read(workspace, (w) => w.listEpisodes(query, cursor.top, visibleRows)) : null),
    [workspace, visit, total, query, cursor.top, visibleRows],
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
