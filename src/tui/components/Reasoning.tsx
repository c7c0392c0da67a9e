import { Box, Text } from 'ink';
import type { Turn } from '../../core/episode.js';
import { useTheme } from '../contexts/ThemeContext.js';
import { keyLabel } from '../keys.js';
import { truncate, wrapWords } from '../format.js';

/** The model's reasoning and reply for a turn: one line, or (with `r`) the whole text, clipped by the parent. */
export function Reasoning({ model, expanded, width }: { model: Turn['model']; expanded: boolean; width: number }) {
  const theme = useTheme();
  const text = [model?.reasoning, model?.reply].filter((t): t is string => Boolean(t?.trim())).join('\n\n');
  const label = `reasoning (${keyLabel('player.reasoning')}): `;
  if (!text) return <Text color={theme.muted}>{label}none recorded</Text>;
  if (!expanded) {
    return (
      <Text>
        <Text color={theme.muted}>{label}</Text>
        {truncate(text, width - label.length)}
      </Text>
    );
  }
  return (
    <Box flexDirection="column">
      <Text color={theme.muted}>{label}</Text>
      <Text>{wrapWords(text, width)}</Text>
    </Box>
  );
}
