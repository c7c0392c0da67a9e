/**
 * An image as coloured half-blocks (terminal-image, each cell one pixel over another), rendered
 * asynchronously and cached per (image, cell size), so stepping back to a turn draws at once.
 *
 * `preferNativeRender: false` always: kitty/iTerm protocols write to stdout themselves or return
 * escapes Ink cannot lay out. terminal-image decodes and scales in pure JS (jimp): about 70 ms for
 * a 640 px view, so sharp first shrinks the image to the pixels the cells show (about 15 ms for
 * both). Both are imported on first use, never before the first frame.
 */
import { useEffect, useState } from 'react';

export type ImageRender = { status: 'rendering' } | { status: 'ready'; text: string } | { status: 'failed'; message: string };

/** Rendered images kept; a 56x28-cell image is about 100 kB of escapes. */
const CACHE_ENTRIES = 64;
const rendered = new Map<string, string>();
const inFlight = new Map<string, Promise<string>>();

/** Bytes of a JPEG or PNG as at most `width` x `height` cells of coloured half-blocks. */
export async function renderHalfBlocks(bytes: Buffer, width: number, height: number): Promise<string> {
  const [{ default: terminalImage }, { default: sharp }] = await Promise.all([import('terminal-image'), import('sharp')]);
  // Two pixels per cell, one above the other. A palette makes neighbouring cells share colours, so
  // most colour escapes repeat the previous one and can go (see withoutRepeatedColours).
  const fitted = await sharp(bytes)
    .resize(width, height * 2, { fit: 'inside' })
    .png({ palette: true, colours: PALETTE_COLOURS, dither: 0 })
    .toBuffer();
  return withoutRepeatedColours(withoutInnerResets(await terminalImage.buffer(fitted, { width, height, preferNativeRender: false })));
}

async function renderImage(id: string, bytes: Buffer, width: number, height: number): Promise<string> {
  const text = await renderHalfBlocks(bytes, width, height);
  rendered.set(id, text);
  if (rendered.size > CACHE_ENTRIES) rendered.delete(rendered.keys().next().value!);
  return text;
}

/**
 * terminal-image closes both colours after every cell although the next cell sets both again. Ink
 * tokenizes every escape of the frame on every redraw, so those closings go (a fifth off a 120x40
 * redraw with a large truecolor image); the one at the end of each line stays.
 */
const ESC = '\u001b';
const INNER_RESET = new RegExp(`${ESC}\\[39m${ESC}\\[49m(?=${ESC}\\[)`, 'g');

function withoutInnerResets(text: string): string {
  return text.replace(INNER_RESET, '');
}

/** Colours of an inline image: few enough for long runs, enough for a view to read. */
const PALETTE_COLOURS = 64;
const COLOUR = new RegExp(`${ESC}\\[(38|48);[0-9;]*m`, 'g');

/**
 * Drops a foreground or background escape that sets the colour already in force on its line. Ink
 * tokenizes every escape of the frame on every redraw: this is most of a step's cost.
 */
function withoutRepeatedColours(text: string): string {
  return text
    .split('\n')
    .map((line) => {
      let fg = '';
      let bg = '';
      return line.replace(COLOUR, (escape: string, kind: string) => {
        if (kind === '38' ? escape === fg : escape === bg) return '';
        if (kind === '38') fg = escape;
        else bg = escape;
        return escape;
      });
    })
    .join('\n');
}

function renderOnce(id: string, bytes: Buffer, width: number, height: number): Promise<string> {
  let promise = inFlight.get(id);
  if (!promise) {
    promise = renderImage(id, bytes, width, height).finally(() => inFlight.delete(id));
    inFlight.set(id, promise);
  }
  return promise;
}

/** The image `key` rendered into at most `width` x `height` cells (aspect kept); idle while `bytes` is undefined. */
export function useImage(key: string, bytes: Buffer | undefined, width: number, height: number): ImageRender {
  const id = `${key}@${width}x${height}`;
  const [result, setResult] = useState<{ id: string; render: ImageRender } | undefined>();
  useEffect(() => {
    if (!bytes || rendered.has(id)) return;
    let current = true;
    renderOnce(id, bytes, width, height).then(
      (text) => current && setResult({ id, render: { status: 'ready', text } }),
      (err: Error) => current && setResult({ id, render: { status: 'failed', message: err.message } }),
    );
    return () => {
      current = false;
    };
  }, [id, bytes, width, height]);
  const text = rendered.get(id);
  if (text !== undefined) return { status: 'ready', text };
  // A result for another image or size is stale the moment the props change.
  return result?.id === id ? result.render : { status: 'rendering' };
}
