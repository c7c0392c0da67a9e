import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { ansi16, ansi256, colourDepthFromEnv, halfBlockText, renderHalfBlocks } from '../../src/tui/images/half-blocks.js';

const ESC = '\u001b';
const fg = (r: number, g: number, b: number) => `${ESC}[38;2;${r};${g};${b}m`;
const bg = (r: number, g: number, b: number) => `${ESC}[48;2;${r};${g};${b}m`;
const RESET = `${ESC}[0m`;

/** Packed RGB rows, top first. */
function pixels(rows: [number, number, number][][]): Uint8Array {
  return Uint8Array.from(rows.flat(2));
}

const RED: [number, number, number] = [255, 0, 0];
const BLUE: [number, number, number] = [0, 0, 255];
const WHITE: [number, number, number] = [255, 255, 255];
const BLACK: [number, number, number] = [0, 0, 0];

describe('half-blocks from raw pixels', () => {
  it('writes the upper pixel as foreground, the lower as background, a colour only when it changes, a reset per line', () => {
    const image = pixels([
      [RED, RED, BLUE],
      [WHITE, WHITE, WHITE],
      [BLACK, BLACK, RED],
      [BLACK, BLUE, BLUE],
    ]);
    expect(halfBlockText(image, 3, 4, 3, 3)).toBe(
      [
        `${fg(255, 0, 0)}${bg(255, 255, 255)}▀▀${fg(0, 0, 255)}▀${RESET}`,
        `${fg(0, 0, 0)}${bg(0, 0, 0)}▀${bg(0, 0, 255)}▀${fg(255, 0, 0)}▀${RESET}`,
      ].join('\n'),
    );
  });

  it('rounds each channel to one of 32 levels, so near colours share one escape', () => {
    const image = pixels([
      [[100, 50, 201], [103, 51, 198]],
      [[9, 9, 9], [7, 10, 8]],
    ]);
    expect(halfBlockText(image, 2, 2, 3, 3)).toBe(`${fg(104, 48, 200)}${bg(8, 8, 8)}▀▀${RESET}`);
  });

  it('leaves the terminal background under an odd last pixel row', () => {
    expect(halfBlockText(pixels([[RED, BLUE]]), 2, 1, 3, 3)).toBe(`${fg(255, 0, 0)}${ESC}[49m▀${fg(0, 0, 255)}▀${RESET}`);
  });

  it('writes 256 and 16 colours as chalk does at those depths, and bare blocks at depth 0', () => {
    const image = pixels([[RED], [BLUE]]);
    expect(halfBlockText(image, 1, 2, 3, 2)).toBe(`${ESC}[38;5;196m${ESC}[48;5;21m▀${RESET}`);
    expect(halfBlockText(image, 1, 2, 3, 1)).toBe(`${ESC}[91m${ESC}[104m▀${RESET}`);
    expect(halfBlockText(image, 1, 2, 3, 0)).toBe('▀');
    expect([ansi256(128, 128, 128), ansi16(ansi256(0, 0, 0)), ansi16(ansi256(255, 255, 255))]).toEqual([244, 30, 97]);
  });

  it('fits a real PNG into the cells, aspect kept', async () => {
    // 6x4 pixels of one green into 3 cells wide is 3x2 pixels: one row of three cells.
    const png = await sharp({ create: { width: 6, height: 4, channels: 3, background: { r: 0, g: 255, b: 0 } } }).png().toBuffer();
    expect(await renderHalfBlocks(png, 3, 10, 3)).toBe(`${fg(0, 255, 0)}${bg(0, 255, 0)}▀▀▀${RESET}`);
  });

  it('picks the colour depth as chalk does for the stream Ink draws on', () => {
    expect(colourDepthFromEnv({ COLORTERM: 'truecolor', TERM: 'xterm' }, true)).toBe(3);
    expect(colourDepthFromEnv({ TERM: 'xterm-256color' }, true)).toBe(2);
    expect(colourDepthFromEnv({ TERM: 'xterm' }, true)).toBe(1);
    expect(colourDepthFromEnv({ TERM: 'xterm-256color' }, false)).toBe(0);
    expect(colourDepthFromEnv({ FORCE_COLOR: '2' }, false)).toBe(2);
    expect(colourDepthFromEnv({ FORCE_COLOR: '0', COLORTERM: 'truecolor' }, true)).toBe(0);
    expect(colourDepthFromEnv({ TERM: 'dumb', COLORTERM: 'truecolor' }, true)).toBe(0);
  });
});
