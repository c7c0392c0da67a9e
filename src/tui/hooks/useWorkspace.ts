/** The workspace behind Home, Episodes and the Player: opened after the first frame, read on demand. */
import { useCallback, useEffect, useMemo, useState } from 'react';
import type { Loading } from '../contexts/UIContext.js';
import type { EpisodeRow, HomeSummary, WorkspaceView } from '../services.js';
import { moveCursor, START, type ListCursor } from '../state/episode-list.js';

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

/** The Episodes list: a count, a cursor, and only the rows on screen. */
export function useEpisodeList(workspace: Loading<WorkspaceView> | null, visit: unknown, visibleRows: number) {
  const [cursor, setCursor] = useState<ListCursor>(START);
  const total = useMemo(() => {
    const count = visit ? read(workspace, (view) => view.countEpisodes()) : null;
    return count?.status === 'ready' ? count.value : 0;
  }, [workspace, visit]);
  const rows = useMemo((): readonly EpisodeRow[] => {
    const window = read(workspace, (view) => view.listEpisodes(cursor.top, visibleRows));
    return visit && window.status === 'ready' ? window.value : [];
  }, [workspace, visit, cursor.top, visibleRows]);
  const move = useCallback((delta: number) => setCursor((c) => moveCursor(c, delta, total, visibleRows)), [total, visibleRows]);
  return { state: { total, cursor, rows }, move };
}
