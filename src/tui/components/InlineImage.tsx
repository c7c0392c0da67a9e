import { Box, Text, type DOMElement } from 'ink';
import { useRef } from 'react';
import { useTheme } from '../contexts/ThemeContext.js';
import { wrapLines } from '../format.js';
import { useImage } from '../hooks/useImage.js';
import type { ImageProtocol } from '../images/native.js';
import { useImageDrawing, useNativeImage } from '../images/useNativeImage.js';
import { Placeholder } from './Placeholder.js';

export interface InlineImageProps {
  /** Identifies the image for the render caches: its sha256 when known. */
  imageKey: string;
  bytes: Buffer | undefined;
  width: number;
  height: number;
}

/**
 * A JPEG or PNG inside `width` x `height` cells: through the terminal's graphics protocol where it
 * has one, else in coloured half-blocks. Without colour (NO_COLOR) a placeholder says why instead.
 */
export function InlineImage({ imageKey, bytes, width, height }: InlineImageProps) {
  const theme = useTheme();
  const { protocol, tmux, note } = useImageDrawing();
  if (!bytes) return <Placeholder width={width} height={height} text="no image this turn" />;
  if (!theme.colour) return <Placeholder width={width} height={height} text="image hidden (NO_COLOR)" />;
  if (protocol) return <NativeImage imageKey={imageKey} bytes={bytes} width={width} height={height} protocol={protocol} tmux={tmux} />;
  const noteLines = note ? wrapLines(note, width).slice(0, Math.max(0, height - 1)) : [];
  if (noteLines.length) {
    // `--images native` that cannot be: half-blocks, and under them the one sentence saying why (wrapped to the box).
    return (
      <Box flexDirection="column" width={width} height={height}>
        <HalfBlockImage imageKey={imageKey} bytes={bytes} width={width} height={height - noteLines.length} />
        <Text color={theme.muted}>{noteLines.join('\n')}</Text>
      </Box>
    );
  }
  return <HalfBlockImage imageKey={imageKey} bytes={bytes} width={width} height={height} />;
}

function HalfBlockImage({ imageKey, bytes, width, height }: InlineImageProps) {
  const render = useImage(imageKey, bytes, width, height);
  if (render.status === 'ready') {
    return (
      <Box width={width} height={height}>
        <Text>{render.text}</Text>
      </Box>
    );
  }
  const text = render.status === 'failed' ? `cannot draw the image: ${render.message}` : 'rendering…';
  return <Placeholder width={width} height={height} text={text} />;
}

/** A blank box Ink lays out; the image is written over it outside Ink's frame (images/native.ts). */
function NativeImage({ imageKey, bytes, width, height, protocol, tmux }: InlineImageProps & { bytes: Buffer; protocol: ImageProtocol; tmux: boolean }) {
  const box = useRef<DOMElement>(null);
  const image = useNativeImage(box, imageKey, bytes, { width, height }, protocol, tmux);
  const text = image.status === 'failed' ? `cannot draw the image: ${image.message}` : image.status === 'rendering' ? 'rendering…' : null;
  return (
    <Box ref={box} width={width} height={height}>
      {text === null ? null : <Placeholder width={width} height={height} text={text} />}
    </Box>
  );
}
