/**
 * The React side of native images: which protocol the terminal speaks (a context, so a test can
 * choose; otherwise the environment, `--images` and, inside tmux, its allow-passthrough), and the
 * bytes each protocol takes.
 */
import { useStdout, type DOMElement } from 'ink';
import { createContext, useContext, useEffect, useLayoutEffect, useState, type RefObject } from 'react';
import { imageDrawingFor, imagesSettingFromEnv, kittyPng, overlayFor, type Cells, type ImageDrawing, type ImageProtocol } from './native.js';

/** null draws half-blocks; undefined (no provider) detects from the environment. */
export const ImageProtocolContext = createContext<ImageProtocol | null | undefined>(undefined);

/** The protocol, whether it goes through tmux's passthrough, and the line saying why not when `native` cannot. */
export function useImageDrawing(): ImageDrawing {
  const chosen = useContext(ImageProtocolContext);
  const { stdout } = useStdout();
  if (chosen !== undefined) return { protocol: chosen, tmux: false, note: null };
  return imageDrawingFor(process.env, imagesSettingFromEnv(process.env), Boolean(stdout.isTTY));
}

/** PNGs made for kitty, by image key: a handful of views, so stepping back does not convert again. */
const PNG_ENTRIES = 16;
const pngs = new Map<string, Buffer>();

async function cachedPng(key: string, bytes: Buffer): Promise<Buffer> {
  const png = pngs.get(key) ?? (await kittyPng(bytes));
  pngs.set(key, png);
  if (pngs.size > PNG_ENTRIES) pngs.delete(pngs.keys().next().value!);
  return png;
}

type Prepared = { status: 'ready'; data: Buffer } | { status: 'rendering' } | { status: 'failed'; message: string };

/** The bytes `protocol` takes for an image, once ready (kitty needs a PNG, made off the render). */
function useProtocolBytes(key: string, bytes: Buffer, protocol: ImageProtocol): Prepared {
  const direct = protocol === 'iterm2' ? bytes : pngs.get(key);
  const [converted, setConverted] = useState<{ key: string; prepared: Prepared } | undefined>();
  useEffect(() => {
    if (direct) return;
    let current = true;
    cachedPng(key, bytes).then(
      (png) => current && setConverted({ key, prepared: { status: 'ready', data: png } }),
      (err: Error) => current && setConverted({ key, prepared: { status: 'failed', message: err.message } }),
    );
    return () => {
      current = false;
    };
  }, [direct, key, bytes]);
  if (direct) return { status: 'ready', data: direct };
  return converted?.key === key ? converted.prepared : { status: 'rendering' };
}

export type NativeImageState = { status: 'drawn' } | { status: 'rendering' } | { status: 'failed'; message: string };

/**
 * Keeps the image over the box `box` while the component is mounted. A layout effect, so the
 * overlay learns of a change before the microtask that follows the frame's write.
 */
export function useNativeImage(box: RefObject<DOMElement | null>, key: string, bytes: Buffer, cells: Cells, protocol: ImageProtocol, tmux = false): NativeImageState {
  const { stdout } = useStdout();
  const prepared = useProtocolBytes(key, bytes, protocol);
  const data = prepared.status === 'ready' ? prepared.data : undefined;
  const { width, height } = cells;
  useLayoutEffect(() => {
    if (!data || !box.current) return;
    const overlay = overlayFor(stdout);
    overlay.show({ key, protocol, tmux, data, cells: { width, height }, box: box.current });
    return () => overlay.hide(key);
  }, [box, stdout, key, protocol, tmux, data, width, height]);
  return prepared.status === 'ready' ? { status: 'drawn' } : prepared;
}
