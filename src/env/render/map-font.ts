/**
 * Text for the maps in a bitmap font (map-font-data.ts): bold 9 x 15 px glyphs stay legible when a
 * 768 px map is shown at 448 px, render the same bytes on every machine, and cost microseconds.
 */

import { inflateRawSync } from 'node:zlib';
import type { Canvas, Rgb } from './map-raster.js';
import { GLYPH_RANGES, GLYPH_ROWS } from './map-font-data.js';

export const GLYPH_WIDTH = 9;
export const GLYPH_HEIGHT = 15;

interface Font {
  readonly rows: Uint16Array;
  /** Code point -> index of its glyph in `rows` (GLYPH_HEIGHT rows each). */
  readonly glyphOf: ReadonlyMap<number, number>;
}

let font: Font | undefined;

function getFont(): Font {
  if (!font) {
    const bytes = inflateRawSync(Buffer.from(GLYPH_ROWS, 'base64'));
    const rows = new Uint16Array(bytes.length / 2);
    for (let i = 0; i < rows.length; i++) rows[i] = bytes.readUInt16LE(2 * i);
    const glyphOf = new Map<number, number>();
    for (const [first, last] of GLYPH_RANGES) for (let cp = first; cp <= last; cp++) glyphOf.set(cp, glyphOf.size);
    font = { rows, glyphOf };
  }
  return font;
}

const COMBINING_MARK = /\p{M}/u;

/**
 * The glyphs to draw for a text: a letter the font lacks is drawn as its base letter (Ǩ -> K),
 * a stray combining mark is dropped, anything else becomes "?".
 */
function glyphsOf(text: string): number[] {
  const { glyphOf } = getFont();
  const glyphs: number[] = [];
  for (const ch of text.normalize('NFC')) {
    const glyph = glyphOf.get(ch.codePointAt(0) as number) ?? glyphOf.get(ch.normalize('NFD').codePointAt(0) as number);
    if (glyph !== undefined) glyphs.push(glyph);
    else if (!COMBINING_MARK.test(ch)) glyphs.push(glyphOf.get(0x3f) as number);
  }
  return glyphs;
}

export function textWidth(text: string): number {
  return glyphsOf(text).length * GLYPH_WIDTH;
}

/**
 * Draws `text` with its top-left corner at (x, y); with `halo`, every glyph is first ringed by one
 * pixel of that colour so that the text stays readable over coastlines and borders.
 */
export function drawText(canvas: Canvas, text: string, x: number, y: number, colour: Rgb, halo?: Rgb): void {
  const { rows } = getFont();
  const glyphs = glyphsOf(text);
  const left = Math.round(x);
  const top = Math.round(y);
  const paint = (ink: Rgb, spread: number): void => {
    glyphs.forEach((glyph, k) => {
      for (let r = 0; r < GLYPH_HEIGHT; r++) {
        const bits = rows[glyph * GLYPH_HEIGHT + r] as number;
        for (let c = 0; bits >> c; c++) {
          if (!((bits >> c) & 1)) continue;
          const px = left + k * GLYPH_WIDTH + c;
          for (let dy = -spread; dy <= spread; dy++) {
            for (let dx = -spread; dx <= spread; dx++) canvas.pixel(px + dx, top + r + dy, ink);
          }
        }
      }
    });
  };
  if (halo) paint(halo, 1);
  paint(colour, 0);
}
