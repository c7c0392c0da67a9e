import { Box } from 'ink';
import type { ReactNode } from 'react';
import { useTheme } from '../contexts/ThemeContext.js';

/**
 * A bordered pane (the image, the turn list). `width`/`height` are the content's (the border adds
 * 2); without a width the pane takes the rest of the row.
 */
export function Panel({ width, height, children }: { width?: number; height?: number; children: ReactNode }) {
  const theme = useTheme();
  return (
    <Box
      borderStyle="round"
      borderColor={theme.muted}
      width={width !== undefined ? width + 2 : undefined}
      height={height !== undefined ? height + 2 : undefined}
      flexDirection="column"
      flexShrink={0}
      flexGrow={width === undefined ? 1 : 0}
    >
      {children}
    </Box>
  );
}
