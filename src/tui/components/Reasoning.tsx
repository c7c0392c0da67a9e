import { Box, Text } from 'ink';
import type { Turn } from '../../core/episode.js';
import { useTheme } from '../contexts/ThemeContext.js';
import { keyLabel, type Command } from '../keys.js';
import { truncate, wrapWords } from '../format.js';
import { modelText, toolCallTexts } from '../turn-text.js';

export interface ReasoningProps {
  model: Turn['model'];
  /** The turn number, which names calls recorded without an id. */
  turn: number;
  expanded: boolean;
  width: number;
  /** The command that expands it, named in the label: the Player's unless given. */
  command?: Command;
}

/**
 * The model's reasoning and reply for a turn, and apart from them its tool calls by name and
 * arguments: one line each, or (with `r`) the whole text, clipped by the parent.
 */
export function Reasoning({ model, turn, expanded, width, command = 'player.reasoning' }: ReasoningProps) {
  const theme = useTheme();
  const text = modelText(model);
  const calls = toolCallTexts(model, turn);
  const label = `reasoning (${keyLabel(command)}): `;
  const callsLabel = 'tool calls: ';
  const callsLine = calls.length ? (
    <Text>
      <Text color={theme.muted}>{callsLabel}</Text>
      {expanded ? wrapWords(calls.join(', '), width - callsLabel.length) : truncate(calls.join(', '), width - callsLabel.length)}
    </Text>
  ) : null;
  if (!text) {
    return (
      <Box flexDirection="column">
        <Text color={theme.muted}>{label}none recorded</Text>
        {callsLine}
      </Box>
    );
  }
  if (!expanded) {
    return (
      <Box flexDirection="column">
        <Text>
          <Text color={theme.muted}>{label}</Text>
          {truncate(text, width - label.length)}
        </Text>
        {callsLine}
      </Box>
    );
  }
  return (
    <Box flexDirection="column">
      <Text color={theme.muted}>{label}</Text>
      <Text>{wrapWords(text, width)}</Text>
      {callsLine}
    </Box>
  );
}
