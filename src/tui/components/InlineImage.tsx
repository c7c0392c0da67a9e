import { Box, Text } from 'ink';
import { useTheme } from '../contexts/ThemeContext.js';
import { useImage } from '../hooks/useImage.js';
import { Placeholder } from './Placeholder.js';

export interface InlineImageProps {
  /** Identifies the image for the render cache: its sha256 when known. */
  imageKey: string;
  bytes: Buffer | undefined;
  width: number;
  height: number;
}

/**
 * A JPEG or PNG drawn in coloured half-blocks inside `width` x `height` cells. Without colour
 * (NO_COLOR) half-blocks show nothing, so a placeholder says why instead.
 */
export function InlineImage({ imageKey, bytes, width, height }: InlineImageProps) {
  const theme = useTheme();
  const render = useImage(imageKey, theme.colour ? bytes : undefined, width, height);
  if (!bytes) return <Placeholder width={width} height={height} text="no image this turn" />;
  if (!theme.colour) return <Placeholder width={width} height={height} text="image hidden (NO_COLOR)" />;
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
