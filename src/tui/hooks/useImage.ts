/**
 * An image as coloured half-blocks, rendered asynchronously and cached per (image, cell size,
 * colour depth), so stepping back to a turn draws at once. sharp is imported on first use, never
 * before the first frame.
 */
import { useStdout } from 'ink';
import { useEffect, useState } from 'react';
import { colourDepthFromEnv, renderHalfBlocks, type ColourDepth } from '../images/half-blocks.js';

export type ImageRender = { status: 'rendering' } | { status: 'ready'; text: string } | { status: 'failed'; message: string };

/** Rendered images kept; a 56x28-cell image is about 30 kB of escapes. */
const CACHE_ENTRIES = 64;
const rendered = new Map<string, string>();
const inFlight = new Map<string, Promise<string>>();

async function renderImage(id: string, bytes: Buffer, width: number, height: number, depth: ColourDepth): Promise<string> {
  const text = await renderHalfBlocks(bytes, width, height, depth);
  rendered.set(id, text);
  if (rendered.size > CACHE_ENTRIES) rendered.delete(rendered.keys().next().value!);
  return text;
}

function renderOnce(id: string, bytes: Buffer, width: number, height: number, depth: ColourDepth): Promise<string> {
  let promise = inFlight.get(id);
  if (!promise) {
    promise = renderImage(id, bytes, width, height, depth).finally(() => inFlight.delete(id));
    inFlight.set(id, promise);
  }
  return promise;
}

/** The image `key` rendered into at most `width` x `height` cells (aspect kept); idle while `bytes` is undefined. */
export function useImage(key: string, bytes: Buffer | undefined, width: number, height: number): ImageRender {
  // Colours as deep as the terminal Ink draws on shows, the rule Ink's own colours follow.
  const { stdout } = useStdout();
  const depth = colourDepthFromEnv(process.env, Boolean(stdout.isTTY));
  const id = `${key}@${width}x${height}/${depth}`;
  const [result, setResult] = useState<{ id: string; render: ImageRender } | undefined>();
  useEffect(() => {
    if (!bytes || rendered.has(id)) return;
    let current = true;
    renderOnce(id, bytes, width, height, depth).then(
      (text) => current && setResult({ id, render: { status: 'ready', text } }),
      (err: Error) => current && setResult({ id, render: { status: 'failed', message: err.message } }),
    );
    return () => {
      current = false;
    };
  }, [id, bytes, width, height, depth]);
  const text = rendered.get(id);
  if (text !== undefined) return { status: 'ready', text };
  // A result for another image or size is stale the moment the props change.
  return result?.id === id ? result.render : { status: 'rendering' };
}
