/**
 * The Episodes list cursor over a virtual list: only the rows from `top` to `top + visible` are ever
 * fetched and drawn, so 100k episodes cost what 20 do. Pure.
 */

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
