/**
 * The React side of native images: which protocol the terminal speaks (a context, so a test can
 * choose; otherwise the environment and `--images`), and the bytes each protocol takes.
 */
import { useStdout, type DOMElement } from 'ink';
import { createContext, useContext, useEffect, useLayoutEffect, useState, type RefObject } from 'react';
import { imageProtocolFor, imagesSettingFromEnv, overlayFor, type Cells, type ImageProtocol } from './native.js';

/** null draws half-blocks; undefined (no provider) detects from the environment. */
export const ImageProtocolContext = createContext<ImageProtocol | null | undefined>(undefined);

export function useImageProtocol(): ImageProtocol | null {
  const chosen = useContext(ImageProtocolContext);
  const { stdout } = useStdout();
  if (chosen !== undefined) return chosen;
  return imageProtocolFor(process.env, imagesSettingFromEnv(process.env), Boolean(stdout.isTTY));
}

/** PNGs made for kitty (it takes no JPEG), by image key: a handful of views. */
const PNG_ENTRIES = 16;
const pngs = new Map<string, Buffer>();

async function asPng(key: string, bytes: Buffer): Promise<Buffer> {
  const cached = pngs.get(key);
  if (cached) return cached;
  const { default: sharp } = await import('sharp');
  const png = await sharp(bytes).png({ compressionLevel: 1 }).toBuffer();
  pngs.set(key, png);
  if (pngs.size > PNG_ENTRIES) pngs.delete(pngs.keys().next().value!);
  return png;
}

function isPng(bytes: Buffer): boolean {
  return bytes.length > 8 && bytes.readUInt32BE(0) === 0x89504e47;
}

/** The bytes `protocol` takes for an image, once ready (kitty needs a PNG, made off the render). */
function useProtocolBytes(key: string, bytes: Buffer, protocol: ImageProtocol): Buffer | undefined {
  const direct = protocol === 'iterm2' || isPng(bytes) ? bytes : pngs.get(key);
  const [converted, setConverted] = useState<{ key: string; png: Buffer } | undefined>();
  useEffect(() => {
    if (direct) return;
    let current = true;
    void asPng(key, bytes).then((png) => current && setConverted({ key, png }));
    return () => {
      current = false;
    };
  }, [direct, key, bytes]);
  return direct ?? (converted?.key === key ? converted.png : undefined);
}

/**
 * Keeps the image over the box `box` while the component is mounted; returns whether it is drawn.
 * A layout effect, so the overlay knows of a change before the frame's redraw is written.
 */
export function useNativeImage(box: RefObject<DOMElement | null>, key: string, bytes: Buffer, cells: Cells, protocol: ImageProtocol): boolean {
  const { stdout } = useStdout();
  const data = useProtocolBytes(key, bytes, protocol);
  const { width, height } = cells;
  useLayoutEffect(() => {
    if (!data || !box.current) return;
    const overlay = overlayFor(stdout);
    overlay.show({ key, protocol, data, cells: { width, height }, box: box.current });
    return () => overlay.hide(key);
  }, [box, stdout, key, protocol, data, width, height]);
  return data !== undefined;
}
