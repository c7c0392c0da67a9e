/**
 * The Episodes list over a virtual list: what it asks for (filter and order), the cursor, and the
 * `/` filter prompt. Only the rows from `top` to `top + visible` are ever fetched and drawn, so 100k
 * episodes cost what 20 do. Pure.
 */
import { DESCENDING_BY_DEFAULT, EPISODE_SORTS } from '../../store/episode-sort.js';
import type { EpisodeListQuery } from '../services.js';
import { describeFilter, isFiltered, parseFilter } from './episode-filter.js';

export interface ListCursor {
  readonly selected: number;
  readonly top: number;
}

export const START: ListCursor = { selected: 0, top: 0 };

/** Moves the selection by `delta` rows (clamped) and scrolls just enough to keep it visible. */
export function moveCursor(cursor: ListCursor, delta: number, total: number, visible: number): ListCursor {
  if (total === 0) return START;
  const selected = Math.min(total - 1, Math.max(0, cursor.selected + delta));
  const rows = Math.max(1, visible);
  const top = Math.min(Math.max(0, total - rows), Math.max(selected - rows + 1, Math.min(cursor.top, selected)));
  return { selected, top };
}

/** The `/` prompt while it is open: the text typed and, after a term that does not parse, why. */
export interface FilterPrompt {
  readonly text: string;
  readonly error: string | null;
}

export interface EpisodeListView {
  readonly query: EpisodeListQuery;
  readonly cursor: ListCursor;
  readonly prompt: FilterPrompt | null;
}

export type EpisodeListAction =
  | { type: 'move'; delta: number; total: number; visible: number }
  | { type: 'openFilter' }
  | { type: 'typeFilter'; text: string }
  | { type: 'eraseFilter' }
  | { type: 'cancelFilter' }
  | { type: 'applyFilter' }
  | { type: 'clearFilter' }
  | { type: 'cycleSort' }
  | { type: 'reverseSort' };

export const INITIAL_LIST: EpisodeListView = {
  query: { filter: {}, sort: 'recent', descending: DESCENDING_BY_DEFAULT.recent },
  cursor: START,
  prompt: null,
};

export function episodeListReducer(state: EpisodeListView, action: EpisodeListAction): EpisodeListView {
  const { query, prompt } = state;
  switch (action.type) {
    case 'move':
      return { ...state, cursor: moveCursor(state.cursor, action.delta, action.total, action.visible) };
    case 'openFilter': {
      // The prompt starts from the filter in force, so `/` refines it; a term typed after it adds to it.
      const current = describeFilter(query.filter);
      return { ...state, prompt: { text: current ? `${current} ` : '', error: null } };
    }
    case 'typeFilter':
      return prompt ? { ...state, prompt: { text: prompt.text + action.text, error: null } } : state;
    case 'eraseFilter':
      return prompt ? { ...state, prompt: { text: prompt.text.slice(0, -1), error: null } } : state;
    case 'cancelFilter':
      return { ...state, prompt: null };
    case 'applyFilter': {
      if (!prompt) return state;
      const parsed = parseFilter(prompt.text);
      // A term that does not parse leaves the filter in force and the text there to be corrected.
      if (!parsed.ok) return { ...state, prompt: { ...prompt, error: parsed.message } };
      return requery({ ...state, prompt: null }, { ...query, filter: parsed.filter });
    }
    case 'clearFilter':
      return isFiltered(query.filter) ? requery(state, { ...query, filter: {} }) : state;
    case 'cycleSort': {
      const sort = EPISODE_SORTS[(EPISODE_SORTS.indexOf(query.sort) + 1) % EPISODE_SORTS.length]!;
      return requery(state, { ...query, sort, descending: DESCENDING_BY_DEFAULT[sort] });
    }
    case 'reverseSort':
      return requery(state, { ...query, descending: !query.descending });
  }
}

/** Another filter or order is another list: its first row is at the top. */
function requery(state: EpisodeListView, query: EpisodeListQuery): EpisodeListView {
  return { ...state, query, cursor: START };
}
