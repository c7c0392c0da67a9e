import { Box, Text } from 'ink';
import { useTheme } from '../contexts/ThemeContext.js';
import { helpEntries, type KeyGroup } from '../keys.js';

/** Every key of a screen, generated from the key table, so the help cannot drift from the bindings. */
export function HelpOverlay({ title, groups }: { title: string; groups: readonly KeyGroup[] }) {
  const theme = useTheme();
  const entries = helpEntries(groups);
  const keysWidth = Math.max(...entries.map((e) => e.keys.length)) + 2;
  const close = entries.find((e) => e.command.endsWith('.help'))?.keys;
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={theme.accent} paddingX={1} alignSelf="flex-start">
      <Text bold>{title} keys</Text>
      {entries.map((entry) => (
        <Text key={entry.command}>
          <Text color={theme.accent}>{entry.keys.padEnd(keysWidth)}</Text>
          {entry.description}
        </Text>
      ))}
      <Text color={theme.muted}>{close ? `${close} or esc closes this help` : 'esc closes this help'}</Text>
    </Box>
  );
}
