import { Box, Text } from 'ink';
import type { Turn } from '../../core/episode.js';
import { useTheme } from '../contexts/ThemeContext.js';
import { formatCall, wrapLines, wrapWords } from '../format.js';

/** One turn's tool call and its whole feedback: the narrow layout's stand-in for the turn list. */
export function TurnDetail({ turn, width }: { turn: Turn; width: number }) {
  const theme = useTheme();
  return (
    <Box flexDirection="column" width={width}>
      <Text bold color={theme.accent}>
        {wrapLines(formatCall(turn.action), width).join('\n')}
      </Text>
      <Text>{wrapWords(turn.feedback ?? '', width)}</Text>
      {turn.status && turn.status !== 'ok' ? <Text color={theme.status.warn}>status: {turn.status}</Text> : null}
    </Box>
  );
}
