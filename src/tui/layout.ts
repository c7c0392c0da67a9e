/**
 * Cell budgets from the terminal size (WIREFRAMES.md: 120x40 shows an image pane and a side panel;
 * 80x24 drops the side panel and shrinks the image). Pure, so the numbers are tested, not eyeballed.
 */
import type { TerminalSize } from './hooks/useTerminalSize.js';
import type { ImageSize } from './state/player.js';

/** Below this many columns the side panel (the Player's turn list) is dropped. */
export const WIDE_COLUMNS = 100;
/** Rows the Player needs besides the image pane: header, borders, info, reasoning, footer. */
const PLAYER_CHROME_ROWS = 11;
const LIVE_CHROME_ROWS = 8;
const MIN_IMAGE_ROWS = 4;

export interface ImageCells {
  width: number;
  height: number;
}

export function isWide(size: TerminalSize): boolean {
  return size.columns >= WIDE_COLUMNS;
}

/**
 * Cells for a square image: a half-block cell is one pixel wide and two tall, so a square of
 * `height` rows is `2 * height` columns. Large fills the rows left by the chrome (at most half the
 * width when a side panel shares the row); small is half that.
 */
export function imageCells(size: TerminalSize, imageSize: ImageSize, chromeRows: number = PLAYER_CHROME_ROWS): ImageCells {
  const maxWidth = isWide(size) ? Math.floor(size.columns / 2) : size.columns - 40;
  const large = Math.max(MIN_IMAGE_ROWS, Math.min(size.rows - chromeRows, Math.floor(maxWidth / 2)));
  const height = imageSize === 'large' ? large : Math.max(MIN_IMAGE_ROWS, Math.round(large / 2));
  return { width: height * 2, height };
}

export function liveImageCells(size: TerminalSize): ImageCells {
  return imageCells(size, 'large', LIVE_CHROME_ROWS);
}
