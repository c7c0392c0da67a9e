import { Box, Text } from 'ink';
import { useTheme } from '../contexts/ThemeContext.js';

/** A box of an image's size with a word in it: while rendering, or when there is nothing to draw. */
export function Placeholder({ width, height, text }: { width: number; height: number; text: string }) {
  const theme = useTheme();
  return (
    <Box width={width} height={height} alignItems="center" justifyContent="center">
      <Text color={theme.muted} wrap="truncate-end">
        {text}
      </Text>
    </Box>
  );
}
