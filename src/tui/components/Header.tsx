import { Box, Text } from 'ink';
import type { ReactNode } from 'react';
import { useTheme } from '../contexts/ThemeContext.js';

/** The top line of a screen: what is shown on the left, where you are or the main keys on the right. */
export function Header({ title, right }: { title: ReactNode; right?: string }) {
  const theme = useTheme();
  return (
    <Box justifyContent="space-between" flexShrink={0}>
      <Box flexShrink={1}>
        <Text wrap="truncate-end">{title}</Text>
      </Box>
      {right ? (
        <Box flexShrink={0} marginLeft={2}>
          <Text color={theme.muted}>{right}</Text>
        </Box>
      ) : null}
    </Box>
  );
}
