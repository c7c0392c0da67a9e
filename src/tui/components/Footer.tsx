import { Box, Text } from 'ink';
import { useTheme } from '../contexts/ThemeContext.js';
import { useTerminalSize } from '../hooks/useTerminalSize.js';
import { keyHint, type HintItem } from '../keys.js';

/** The bottom lines of a screen: the notice of the last action, if any, and the keys from the table. */
export function Footer({ hints, notice }: { hints: readonly HintItem[]; notice?: string | null }) {
  const theme = useTheme();
  const { columns } = useTerminalSize();
  return (
    <Box flexDirection="column" flexShrink={0}>
      {notice ? <Text color={theme.status.warn} wrap="truncate-end">{notice}</Text> : null}
      <Text color={theme.muted} wrap="truncate-end">
        {keyHint(hints, columns - 2)}
      </Text>
    </Box>
  );
}
