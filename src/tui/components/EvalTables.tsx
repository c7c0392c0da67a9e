/**
 * The Eval board's tables: arms, paired comparisons, a sweep's progress, an arm's groups, a group's
 * worst episodes, and the run and baseline pickers. The columns of the first and the last two are
 * those of eval/columns.ts, which `x` writes as CSV.
 */
import { Box, Text } from 'ink';
import { fixed, signed, type ArmRow, type Comparison, type GroupRow } from '../../eval/report.js';
import type { SweepPhase } from '../../eval/sweep-status.js';
import { useTheme } from '../contexts/ThemeContext.js';
import { ARM_FLAG_REASONS, type GroupBy, type RankedEpisode } from '../eval/board.js';
import { armColumns, GROUP_COLUMNS, worstColumns, type Column } from '../eval/columns.js';
import { bar, truncate } from '../format.js';
import type { EvalRunRow, SweepRow } from '../services.js';
import type { Theme } from '../theme.js';

/** The rows of a list that fit in `height`, scrolled so that the selected one is in view. */
function windowOf(selected: number, total: number, height: number): { top: number; visible: number } {
  const visible = Math.max(1, height);
  const top = Math.max(0, Math.min(selected - Math.floor(visible / 2), total - visible));
  return { top, visible };
}

function More({ top, visible, total, what }: { top: number; visible: number; total: number; what: string }) {
  const theme = useTheme();
  return total > visible ? <Text color={theme.muted}>{`  ${top + 1}-${Math.min(total, top + visible)} of ${total} ${what}`}</Text> : null;
}

/** The columns that fit in `width` (the most wanted ones), in their own order. */
function fitting<T>(columns: readonly Column<T>[], width: number): Column<T>[] {
  const kept = new Set<Column<T>>();
  let used = 0;
  for (const column of [...columns].sort((a, b) => a.keep - b.keep)) {
    if (used + column.width > width) continue;
    kept.add(column);
    used += column.width;
  }
  return columns.filter((c) => kept.has(c));
}

const cells = <T,>(columns: readonly Column<T>[], row: T) => columns.map((c) => c.cell(row).padStart(c.width)).join('');
const titles = <T,>(columns: readonly Column<T>[]) => columns.map((c) => c.title.padStart(c.width)).join('');

/** Room for the arm's label: the longest, within reason (a label past it is cut with …). */
function labelWidth(labels: readonly string[], most: number): number {
  return Math.min(most, Math.max(8, ...labels.map((l) => l.length))) + 1;
}

export function ArmsTable({ arms, selected, width, height }: { arms: readonly ArmRow[]; selected: number; width: number; height: number }) {
  const theme = useTheme();
  const label = labelWidth(
    arms.map((a) => a.arm),
    32,
  );
  // Two for the cursor, one for the flag mark.
  const columns = fitting(armColumns(arms), width - label - 3);
  const { top, visible } = windowOf(selected, arms.length, height);
  return (
    <Box flexDirection="column">
      <Text color={theme.muted}>{`   ${'arm'.padEnd(label)}${titles(columns)}`}</Text>
      {arms.slice(top, top + visible).map((a, i) => {
        const current = top + i === selected;
        const flagged = a.flags.length > 0;
        return (
          <Text key={a.arm} color={current ? theme.accent : flagged ? theme.status.warn : undefined} bold={current} wrap="truncate-end">
            {current ? '› ' : '  '}
            {flagged ? '!' : ' '}
            {truncate(a.arm, label - 1).padEnd(label)}
            {cells(columns, a)}
          </Text>
        );
      })}
      <More top={top} visible={visible} total={arms.length} what="arms" />
    </Box>
  );
}

/** Each flagged arm with what its flags mean: its numbers are not to be trusted as they are. */
export function ArmFlags({ arms }: { arms: readonly ArmRow[] }) {
  const theme = useTheme();
  const flagged = arms.filter((a) => a.flags.length > 0);
  if (flagged.length === 0) return null;
  return (
    <Box flexDirection="column">
      {flagged.map((a) => (
        <Text key={a.arm} color={theme.status.warn} wrap="truncate-end">
          {`! ${a.arm}: ${a.flags.map((f) => `${f} (${ARM_FLAG_REASONS[f]})`).join('; ')}`}
        </Text>
      ))}
    </Box>
  );
}

export function ComparisonsTable({ comparisons, baseline, height }: { comparisons: readonly Comparison[]; baseline: string; height: number }) {
  const theme = useTheme();
  const label = labelWidth(
    comparisons.map((c) => c.arm),
    32,
  );
  const shown = comparisons.slice(0, Math.max(1, height));
  return (
    <Box flexDirection="column">
      <Text bold wrap="truncate-end">
        {`Paired vs ${baseline} on shared tasks`}
        <Text color={theme.muted}> · SE = standard error · 95% CI = delta ± 1.96 SE · within 1e-9 a tie</Text>
      </Text>
      <Text color={theme.muted} wrap="truncate-end">{`  ${'arm'.padEnd(label)}${'n'.padStart(6)}${'delta'.padStart(10)}${'SE'.padStart(9)}  ${'95% CI'.padEnd(21)}${'better'.padStart(12)}${'worse'.padStart(10)}${'ties'.padStart(6)}  significant`}</Text>
      {shown.map((c) => (
        <Text key={c.arm} wrap="truncate-end">
          {'  '}
          {truncate(c.arm, label - 1).padEnd(label)}
          {String(c.n).padStart(6)}
          {signed(c.delta, 4).padStart(10)}
          {fixed(c.se, 4).padStart(9)}
          {'  '}
          {`[${signed(c.ci_low, 4)}, ${signed(c.ci_high, 4)}]`.padEnd(21)}
          {`${c.better}/${c.n}`.padStart(12)}
          {`${c.worse}/${c.n}`.padStart(10)}
          {String(c.ties).padStart(6)}
          {'  '}
          <Text color={c.significant ? theme.status.ok : theme.muted}>{c.significant ? 'yes' : 'no'}</Text>
        </Text>
      ))}
      {comparisons.length > shown.length ? <Text color={theme.muted}>{`  … ${comparisons.length - shown.length} more`}</Text> : null}
    </Box>
  );
}

/** "4m 05s", "1h 02m": how long a sweep still needs at its rate. */
function formatEta(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

function phaseColour(phase: SweepPhase, theme: Theme) {
  switch (phase) {
    case 'running':
      return theme.accent;
    case 'done':
      return theme.status.ok;
    case 'failed':
      return theme.status.error;
    default:
      return theme.status.warn;
  }
}

const PHASE_NOTE: Partial<Record<SweepPhase, string>> = {
  stopped: 'its process is gone: u resumes it here, or run the same command again',
  interrupted: 'u resumes it here, or run the same command again',
};

const BAR_CELLS = 20;

/** `more`: sweeps left out for want of room. */
export function SweepsPanel({ sweeps, more }: { sweeps: readonly SweepRow[]; more: number }) {
  const theme = useTheme();
  return (
    <Box flexDirection="column">
      <Text bold>Sweeps</Text>
      {sweeps.map((sweep) => {
        const { status, phase } = sweep;
        const nameWidth = Math.max(8, ...(status?.models.map((m) => m.name.length) ?? [])) + 1;
        return (
          <Box key={sweep.dir} flexDirection="column">
            <Text wrap="truncate-end">
              {'  '}
              {status ? `${status.run_id} · ` : ''}
              {phase ? <Text color={phaseColour(phase, theme)}>{phase}</Text> : null}
              {phase && PHASE_NOTE[phase] ? <Text color={theme.muted}>{` (${PHASE_NOTE[phase]})`}</Text> : null}
              {phase === 'running' && status?.machine ? (
                <Text>
                  {` · ${status.machine.in_flight}/${status.machine.limit} in flight`}
                  {status.machine.cpu_bound ? <Text color={theme.status.warn}>{' · CPU-bound'}</Text> : null}
                </Text>
              ) : null}
              <Text color={theme.muted}>{`${phase ? ' · ' : ''}${sweep.dir}${status ? ` · updated ${status.updated_at}` : ''}`}</Text>
            </Text>
            {sweep.error ? (
              <Text color={theme.status.error} wrap="truncate-end">{`    cannot read its progress: ${sweep.error}`}</Text>
            ) : !status ? (
              <Text color={theme.muted}>{'    no progress written yet'}</Text>
            ) : (
              status.models.map((m) => (
                <Text key={m.name} wrap="truncate-end">
                  {'    '}
                  {truncate(m.name, nameWidth - 1).padEnd(nameWidth)}
                  <Text color={phaseColour(phase ?? 'running', theme)}>{bar(m.total ? m.done / m.total : 0, BAR_CELLS)}</Text>
                  {` ${m.done}/${m.total}`}
                  {m.failed ? <Text color={theme.status.warn}>{` · ${m.failed} failed`}</Text> : null}
                  {m.aborted ? <Text color={theme.status.warn}>{` · ${m.aborted} aborted`}</Text> : null}
                  {m.retries ? <Text color={theme.muted}>{` · ${m.retries} ${m.retries === 1 ? 'retry' : 'retries'}`}</Text> : null}
                  {` · ${m.per_min.toFixed(1)}/min`}
                  {phase === 'running' && m.done < m.total ? ` · ETA ${m.eta_s === null ? '?' : formatEta(m.eta_s)}` : ''}
                </Text>
              ))
            )}
          </Box>
        );
      })}
      {more > 0 ? <Text color={theme.muted}>{`  … ${more} more sweep${more === 1 ? '' : 's'}`}</Text> : null}
    </Box>
  );
}

export function GroupTable({ rows, by, selected, height }: { rows: readonly GroupRow[]; by: string; selected: number; height: number }) {
  const theme = useTheme();
  const label = labelWidth(
    rows.map((r) => r.group),
    36,
  );
  const { top, visible } = windowOf(selected, rows.length, height);
  return (
    <Box flexDirection="column">
      <Text color={theme.muted}>{`  ${by.padEnd(label)}${titles(GROUP_COLUMNS)}`}</Text>
      {rows.slice(top, top + visible).map((r, i) => {
        const current = top + i === selected;
        return (
          <Text key={r.group} color={current ? theme.accent : undefined} bold={current} wrap="truncate-end">
            {current ? '› ' : '  '}
            {truncate(r.group, label - 1).padEnd(label)}
            {cells(GROUP_COLUMNS, r)}
          </Text>
        );
      })}
      <More top={top} visible={visible} total={rows.length} what="groups" />
    </Box>
  );
}

/** `by`: what the list was opened from; the other grouping is shown as the last column. */
export function WorstTable({ episodes, by, selected, height }: { episodes: readonly RankedEpisode[]; by: GroupBy; selected: number; height: number }) {
  const theme = useTheme();
  const id = labelWidth(
    episodes.map((e) => e.facts.episodeId),
    40,
  );
  const { top, visible } = windowOf(selected, episodes.length, height);
  // The task and the other grouping are left-aligned around the numbers.
  const columns = worstColumns(by);
  const task = columns[0] as Column<RankedEpisode>;
  const other = columns[columns.length - 1] as Column<RankedEpisode>;
  const numbers = columns.slice(1, -1);
  return (
    <Box flexDirection="column">
      <Text color={theme.muted}>{`  ${'episode'.padEnd(id)}${task.title.padEnd(task.width)}${titles(numbers)}  ${other.title}`}</Text>
      {episodes.slice(top, top + visible).map((ranked, i) => {
        const current = top + i === selected;
        return (
          <Text key={ranked.facts.episodeId} color={current ? theme.accent : undefined} bold={current} wrap="truncate-end">
            {current ? '› ' : '  '}
            {truncate(ranked.facts.episodeId, id - 1).padEnd(id)}
            {truncate(task.cell(ranked), task.width - 1).padEnd(task.width)}
            {cells(numbers, ranked)}
            {`  ${other.cell(ranked)}`}
          </Text>
        );
      })}
      <More top={top} visible={visible} total={episodes.length} what="episodes" />
    </Box>
  );
}

export function RunPicker({ runs, excluded, selected, height }: { runs: readonly EvalRunRow[]; excluded: ReadonlySet<string>; selected: number; height: number }) {
  const theme = useTheme();
  const { top, visible } = windowOf(selected, runs.length, height);
  const name = labelWidth(
    runs.map((r) => (r.name === r.id ? r.id : `${r.name} (${r.id})`)),
    60,
  );
  return (
    <Box flexDirection="column">
      <Text bold>Runs in the report</Text>
      {runs.slice(top, top + visible).map((r, i) => {
        const current = top + i === selected;
        const out = excluded.has(r.id);
        return (
          <Text key={r.id} color={current ? theme.accent : out ? theme.muted : undefined} bold={current} wrap="truncate-end">
            {current ? '› ' : '  '}
            {out ? '[ ] ' : '[x] '}
            {truncate(r.name === r.id ? r.id : `${r.name} (${r.id})`, name - 1).padEnd(name)}
            {`${r.episodes} episode${r.episodes === 1 ? '' : 's'}`}
          </Text>
        );
      })}
      <More top={top} visible={visible} total={runs.length} what="runs" />
    </Box>
  );
}

export function BaselinePicker({ arms, baseline, selected, height }: { arms: readonly string[]; baseline: string | null; selected: number; height: number }) {
  const theme = useTheme();
  const { top, visible } = windowOf(selected, arms.length, height);
  return (
    <Box flexDirection="column">
      <Text bold>Baseline arm of the paired comparisons</Text>
      {arms.slice(top, top + visible).map((arm, i) => {
        const current = top + i === selected;
        return (
          <Text key={arm} color={current ? theme.accent : undefined} bold={current} wrap="truncate-end">
            {current ? '› ' : '  '}
            {arm === baseline ? '(•) ' : '( ) '}
            {arm}
          </Text>
        );
      })}
      <More top={top} visible={visible} total={arms.length} what="arms" />
    </Box>
  );
}
