import { Box, Text } from 'ink';
import type { Theme } from '../theme.js';
import { useTheme } from '../contexts/ThemeContext.js';
import type { RequestLine, RequestLineTone } from '../turn-text.js';

export interface RequestViewProps {
  /** The turn number, for the title. */
  turn: number;
  /** The request's lines (requestLines), or null when the turn recorded no request. */
  lines: readonly RequestLine[] | null;
  /** The first line shown. */
  offset: number;
  height: number;
  /** A line drawn inverted (the Audit screen's finding). */
  mark?: number;
}

function colourOf(theme: Theme, tone: RequestLineTone) {
  switch (tone) {
    case 'modelHead':
    case 'model':
      return theme.accent;
    case 'image':
      return theme.muted;
    case 'harnessHead':
    case 'harness':
      return undefined;
  }
}

/** The full request the model was sent on a turn, scrolled to `offset`: the Player's `p`. */
export function RequestView({ turn, lines, offset, height, mark }: RequestViewProps) {
  const theme = useTheme();
  if (!lines) {
    return (
      <Box flexDirection="column" flexGrow={1}>
        <Text bold>request of turn {turn}</Text>
        <Text color={theme.muted}>
          {turn === 0 ? 'Turn 0 is the reset: the model was sent nothing.' : 'No request was recorded for this turn (neither its messages nor its prompt).'}
        </Text>
      </Box>
    );
  }
  const rows = Math.max(1, height - 1);
  const shown = lines.slice(offset, offset + rows);
  const range = lines.length ? `lines ${offset + 1}–${offset + shown.length} of ${lines.length}` : 'empty';
  return (
    <Box flexDirection="column" flexGrow={1} height={height} overflow="hidden">
      <Text bold wrap="truncate-end">
        request of turn {turn} · {range}
      </Text>
      {shown.map((line, i) => (
        <Text key={offset + i} color={colourOf(theme, line.tone)} bold={line.tone === 'harnessHead' || line.tone === 'modelHead'} inverse={offset + i === mark} wrap="truncate-end">
          {line.text || ' '}
        </Text>
      ))}
    </Box>
  );
}
