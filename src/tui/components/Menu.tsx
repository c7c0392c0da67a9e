import { Box, Text } from 'ink';
import { useTheme } from '../contexts/ThemeContext.js';

export interface MenuItem {
  label: string;
  hint: string;
  /** Shown but not selectable yet: why, e.g. "coming". */
  disabled?: string;
}

export function Menu({ items, selected }: { items: readonly MenuItem[]; selected: number }) {
  const theme = useTheme();
  const labelWidth = Math.max(...items.map((item) => item.label.length)) + 3;
  return (
    <Box flexDirection="column">
      {items.map((item, i) => {
        const current = i === selected;
        return (
          <Text key={item.label} color={item.disabled ? theme.muted : current ? theme.accent : undefined} bold={current}>
            {current ? '› ' : '  '}
            {item.label.padEnd(labelWidth)}
            {item.disabled ? `${item.hint} (${item.disabled})` : item.hint}
          </Text>
        );
      })}
    </Box>
  );
}
