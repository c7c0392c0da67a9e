import { Box, Text } from 'ink';
import type { Turn } from '../../core/episode.js';
import { useTheme } from '../contexts/ThemeContext.js';
import { formatCall, formatCost, truncate, turnCost, wrapLines, wrapWords } from '../format.js';

/** The cost column: "0.01 ◀" and the gap before it. */
const COST_COLUMNS = 7;

export interface TurnListProps {
  turns: readonly Turn[];
  /** Index of the current turn, marked ◀ and shown with its whole feedback. */
  position: number;
  width: number;
  height: number;
}

/** Each turn's tool call, its cost and one line of feedback, scrolled to keep the current turn in view. */
export function TurnList({ turns, position, width, height }: TurnListProps) {
  const theme = useTheme();
  // Two lines per turn, and the current turn's feedback may take a few more.
  const visible = Math.max(1, Math.floor((height - 2) / 2));
  const start = Math.max(0, Math.min(position - Math.floor(visible / 2), turns.length - visible));
  // Feedback sits two columns in; other turns' feedback also leaves room for the cost column.
  const feedbackWidth = Math.max(10, width - 2);
  const textWidth = Math.max(10, width - 10);
  // The call keeps clear of the cost column ("0.01 ◀" and a gap): wrapped when current, elided otherwise.
  const callWidth = Math.max(10, width - COST_COLUMNS);
  return (
    <Box flexDirection="column" width={width} height={height} overflow="hidden">
      {turns.slice(start, start + visible).map((turn, i) => {
        const at = start + i;
        const current = at === position;
        const cost = turnCost(turns, at);
        const call = `${turn.turn} ${formatCall(turn.action)}`;
        return (
          <Box key={at} flexDirection="column">
            <Box>
              <Box width={callWidth} flexShrink={0}>
                <Text bold={current} color={current ? theme.accent : undefined}>
                  {current ? wrapLines(call, callWidth).join('\n') : truncate(call, callWidth)}
                </Text>
              </Box>
              <Box flexGrow={1} justifyContent="flex-end">
                <Text color={current ? theme.accent : theme.muted}>
                  {`${cost ? formatCost(cost) : '    '} ${current ? '◀' : ' '}`}
                </Text>
              </Box>
            </Box>
            <Box paddingLeft={2}>
              <Text color={current ? undefined : theme.muted} wrap={current ? 'wrap' : 'truncate-end'}>
                {current ? wrapWords(turn.feedback ?? '', feedbackWidth) : truncate(turn.feedback ?? '', textWidth)}
              </Text>
            </Box>
          </Box>
        );
      })}
    </Box>
  );
}
