import { Box, Text } from 'ink';
import { useTheme } from '../contexts/ThemeContext.js';
import type { SortColumn, SplitsRow } from '../state/splits.js';

const NUMBER_COLUMNS = ['pool', 'eval', 'train', 'cap'] as const;
const NUMBER_WIDTH = 7;

/** The per-country table: a window of `height` rows around the selected country; the sorted column marked. */
export function SplitsTable({ rows, selected, sort, height }: { rows: readonly SplitsRow[]; selected: string | null; sort: SortColumn; height: number }) {
  const theme = useTheme();
  const countryWidth = Math.max(12, ...rows.map((r) => r.country.length)) + 2;
  const at = Math.max(0, rows.findIndex((r) => r.country === selected));
  const visible = Math.max(1, height);
  const top = Math.max(0, Math.min(at - Math.floor(visible / 2), rows.length - visible));
  const title = (name: string, column: SortColumn) => (sort === column ? `${name}↓` : name);
  return (
    <Box flexDirection="column">
      <Text color={theme.muted}>
        {'      '}
        {title('country', 'country').padEnd(countryWidth)}
        {NUMBER_COLUMNS.map((c) => title(c, c).padStart(NUMBER_WIDTH)).join('')}
      </Text>
      {rows.slice(top, top + visible).map((row) => {
        const current = row.country === selected;
        return (
          <Text key={row.country} color={!row.included ? theme.muted : current ? theme.accent : undefined} bold={current}>
            {current ? '› ' : '  '}
            {row.included ? '[x] ' : '[ ] '}
            {row.country.padEnd(countryWidth)}
            {NUMBER_COLUMNS.map((c) => String(row[c]).padStart(NUMBER_WIDTH)).join('')}
          </Text>
        );
      })}
      {rows.length > visible ? <Text color={theme.muted}>{`  ${top + 1}-${Math.min(rows.length, top + visible)} of ${rows.length} countries`}</Text> : null}
    </Box>
  );
}
