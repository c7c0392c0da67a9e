import { Box, Text } from 'ink';
import { useTheme } from '../contexts/ThemeContext.js';
import { formatAgo, formatKm, truncate } from '../format.js';
import type { EpisodeSort } from '../../store/episode-sort.js';
import { episodeState } from '../../store/episode-state.js';
import type { EpisodeRow } from '../services.js';
import { verdictTone } from '../theme.js';

interface Column {
  title: string;
  width: number;
  align: 'left' | 'right';
  cell(row: EpisodeRow, now: number): string;
}

// All nine take 91 cells with the gaps; at 80 columns the seven most important fit (see KEEP).
const COLUMNS = {
  id: { title: 'id', width: 8, align: 'left', cell: (row) => row.episodeId.slice(0, 8) },
  model: { title: 'model', width: 12, align: 'left', cell: (row) => row.modelName ?? '?' },
  task: { title: 'task', width: 9, align: 'left', cell: (row) => `${row.split}/${row.index}${row.sample ? `#${row.sample}` : ''}` },
  country: { title: 'country', width: 11, align: 'left', cell: (row) => row.country ?? '' },
  // 15: "Wrong continent", the longest verdict.
  verdict: { title: 'verdict', width: 15, align: 'left', cell: (row) => (row.error ? episodeState(row.error) : (row.verdict ?? 'no guess')) },
  km: { title: 'km', width: 9, align: 'right', cell: (row) => (row.distanceKm != null ? formatKm(row.distanceKm) : '') },
  reward: { title: 'reward', width: 6, align: 'right', cell: (row) => (row.reward != null ? row.reward.toFixed(4) : '') },
  turns: { title: 'turns', width: 5, align: 'right', cell: (row) => (row.turnsUsed != null ? String(row.turnsUsed) : '') },
  age: { title: 'age', width: 8, align: 'right', cell: (row, now) => formatAgo(row.recordedAt, now).replace(/ ago$/, '') },
} satisfies Record<string, Column>;

type ColumnName = keyof typeof COLUMNS;

/** Display order. */
const ORDER: readonly ColumnName[] = ['id', 'model', 'task', 'country', 'verdict', 'km', 'reward', 'turns', 'age'];
/** Most important first: a narrow terminal drops columns from the end of this list. */
const KEEP: readonly ColumnName[] = ['verdict', 'reward', 'model', 'task', 'km', 'country', 'turns', 'age', 'id'];
/**
 * Cells a wide terminal gives the columns whose text runs long, in this order, up to these widths:
 * "Bosnia and Herzegovina", a served model's full name. Fixed per width, so columns never shift as
 * the list scrolls.
 */
const GROW: readonly [ColumnName, number][] = [
  ['country', 22],
  ['model', 28],
  ['task', 14],
];
/** The column a sort orders by stays whatever the width, so the order can be seen. */
const SORTED: Record<EpisodeSort, ColumnName> = { recent: 'age', reward: 'reward', distance: 'km', turns: 'turns' };

/**
 * The columns that fit in `width` cells (one space between columns), in display order, with their
 * widths: the cells left over widen the columns of GROW.
 */
export function fitColumns(width: number, sort: EpisodeSort): { name: ColumnName; width: number }[] {
  const chosen = new Map<ColumnName, number>();
  let used = 0;
  for (const name of [SORTED[sort], ...KEEP.filter((n) => n !== SORTED[sort])]) {
    const needed = COLUMNS[name].width + (chosen.size ? 1 : 0);
    if (used + needed > width) continue;
    chosen.set(name, COLUMNS[name].width);
    used += needed;
  }
  for (const [name, most] of GROW) {
    const base = chosen.get(name);
    if (base === undefined) continue;
    const extra = Math.min(most - base, width - used);
    chosen.set(name, base + extra);
    used += extra;
  }
  return ORDER.filter((name) => chosen.has(name)).map((name) => ({ name, width: chosen.get(name)! }));
}

function pad(text: string, column: Column, width: number): string {
  const cut = truncate(text, width);
  return column.align === 'left' ? cut.padEnd(width) : cut.padStart(width);
}

export interface EpisodeTableProps {
  /** The visible window of the list: `rows` start at list position `top`. */
  rows: readonly EpisodeRow[];
  top: number;
  selected: number;
  /** Cells for the table, the cursor mark included. */
  width: number;
  sort: EpisodeSort;
  now: number;
}

export function EpisodeTable({ rows, top, selected, width, sort, now }: EpisodeTableProps) {
  const theme = useTheme();
  const fitted = fitColumns(width - 2, sort);
  const titles = fitted.map(({ name, width: cells }) => pad(COLUMNS[name].title, COLUMNS[name], cells)).join(' ');
  return (
    <Box flexDirection="column">
      <Text color={theme.muted} wrap="truncate-end">
        {'  ' + titles}
      </Text>
      {rows.map((row, i) => {
        const current = top + i === selected;
        const tone = row.error ? undefined : verdictTone(row.verdict);
        return (
          <Text key={row.episodeId} bold={current} wrap="truncate-end">
            <Text color={theme.accent}>{current ? '› ' : '  '}</Text>
            {fitted.map(({ name, width: cells }, c) => {
              const text = pad(COLUMNS[name].cell(row, now), COLUMNS[name], cells) + (c < fitted.length - 1 ? ' ' : '');
              if (name !== 'verdict') return text;
              return (
                <Text key={name} color={row.error ? theme.status.error : tone && theme.verdict[tone]}>
                  {text}
                </Text>
              );
            })}
          </Text>
        );
      })}
    </Box>
  );
}
