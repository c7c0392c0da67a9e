import { Box, Text } from 'ink';
import { useTheme } from '../contexts/ThemeContext.js';
import { formatKm, truncate } from '../format.js';
import type { EpisodeRow } from '../services.js';
import { verdictTone } from '../theme.js';

// 78 cells with the cursor and the gaps: fits 80 columns less the screen's padding.
const COLUMNS = [
  { title: 'recorded', width: 16 },
  { title: 'model', width: 14 },
  { title: 'task', width: 11 },
  { title: 'verdict', width: 15 },
  { title: 'km', width: 9 },
  { title: 'reward', width: 6 },
] as const;

/** The visible window of the Episodes list: `rows` start at list position `top`. */
export function EpisodeTable({ rows, top, selected }: { rows: readonly EpisodeRow[]; top: number; selected: number }) {
  const theme = useTheme();
  return (
    <Box flexDirection="column">
      <Text color={theme.muted} wrap="truncate-end">
        {'  ' + COLUMNS.map((c) => c.title.padEnd(c.width)).join(' ')}
      </Text>
      {rows.map((row, i) => {
        const current = top + i === selected;
        const cells = [
          row.recordedAt.replace('T', ' ').slice(0, 16),
          row.modelName ?? '?',
          `${row.split}/${row.index}${row.sample ? `#${row.sample}` : ''}`,
          row.error ? 'failed' : (row.verdict ?? 'no guess'),
          row.distanceKm != null ? formatKm(row.distanceKm) : '',
          row.reward != null ? row.reward.toFixed(4) : '',
        ];
        const tone = row.error ? undefined : verdictTone(row.verdict);
        return (
          <Text key={row.episodeId} bold={current} wrap="truncate-end">
            <Text color={theme.accent}>{current ? '› ' : '  '}</Text>
            {cells.slice(0, 3).map((cell, c) => truncate(cell, COLUMNS[c]!.width).padEnd(COLUMNS[c]!.width) + ' ').join('')}
            <Text color={row.error ? theme.status.error : tone && theme.verdict[tone]}>
              {truncate(cells[3]!, COLUMNS[3].width).padEnd(COLUMNS[3].width)}{' '}
            </Text>
            {cells[4]!.padStart(COLUMNS[4].width)} {cells[5]!.padStart(COLUMNS[5].width)}
          </Text>
        );
      })}
    </Box>
  );
}
