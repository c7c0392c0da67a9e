import { homedir } from 'node:os';
import { Box, Text, type Key } from 'ink';
import { useMemo, useReducer, type Dispatch } from 'react';
import { ArmFlags, ArmsTable, BaselinePicker, ComparisonsTable, GroupTable, RunPicker, SweepsPanel, WorstTable } from '../components/EvalTables.js';
import { Footer } from '../components/Footer.js';
import { Header } from '../components/Header.js';
import { HelpOverlay } from '../components/HelpOverlay.js';
import { useNavigation, useNavigationActions, useScreenActive, type NavigationActions } from '../contexts/NavigationContext.js';
import { useServices } from '../contexts/ServicesContext.js';
import { useTheme } from '../contexts/ThemeContext.js';
import { armGroups, worstEpisodes, type BoardReport, type RankedEpisode } from '../eval/board.js';
import { armsTable, groupsTable, toCsv, worstTable, writtenLine } from '../eval/export.js';
import { cursorIn, evalBoardReducer, INITIAL_EVAL_BOARD, type EvalBoardAction, type EvalBoardState, type EvalView } from '../eval/state.js';
import { useBoardReport, useEvalBoardData } from '../eval/useEvalBoard.js';
import { SweepForm, sweepFormKey } from '../eval/SweepForm.js';
import { useSweepForm } from '../eval/useSweepForm.js';
import { useScreenKeys } from '../hooks/useScreenKeys.js';
import { useTerminalSize } from '../hooks/useTerminalSize.js';
import { matches, type HintItem } from '../keys.js';
import type { GroupRow } from '../../eval/report.js';
import type { EvalBoardService, EvalBoardSnapshot, NewSweepStart, SweepRow } from '../services.js';

/** Rows the body cannot use: header, blank line, notice and key hints, the spare last row. */
const EVAL_CHROME_ROWS = 5;

const HINTS: Record<EvalView, HintItem[]> = {
  board: [
    { commands: ['eval.up', 'eval.down'], label: 'arm' },
    { commands: ['eval.country'], label: 'by country' },
    { commands: ['eval.verdict'], label: 'by verdict' },
    { commands: ['eval.runs'], label: 'runs' },
    { commands: ['eval.baseline'], label: 'baseline' },
    { commands: ['eval.reload'], label: 'reload' },
    { commands: ['eval.export'], label: 'CSV' },
    { commands: ['eval.newSweep'], label: 'new sweep' },
    { commands: ['eval.resume'], label: 'resume sweep' },
    'eval.help',
    'eval.back',
  ],
  runs: [{ commands: ['eval.up', 'eval.down'], label: 'run' }, { commands: ['eval.toggle'], label: 'include/exclude' }, { commands: ['eval.open'], label: 'done' }, 'eval.help', 'eval.back'],
  baseline: [{ commands: ['eval.up', 'eval.down'], label: 'arm' }, { commands: ['eval.open'], label: 'make it the baseline' }, 'eval.help', 'eval.back'],
  groups: [
    { commands: ['eval.up', 'eval.down'], label: 'group' },
    { commands: ['eval.open'], label: 'worst episodes' },
    { commands: ['eval.country', 'eval.verdict'], label: 'country/verdict' },
    { commands: ['eval.export'], label: 'CSV' },
    'eval.help',
    'eval.back',
  ],
  episodes: [
    { commands: ['eval.up', 'eval.down'], label: 'episode' },
    { commands: ['eval.open'], label: 'open in the Player' },
    { commands: ['eval.export'], label: 'CSV' },
    'eval.help',
    'eval.back',
  ],
  sweep: [
    { commands: ['sweep.prev', 'sweep.next'], label: 'field' },
    { commands: ['sweep.choose'], label: 'endpoint/models file' },
    { commands: ['sweep.enter'], label: 'next/start' },
    'eval.help',
    { commands: ['sweep.close'], label: 'back' },
  ],
};

/** What the board shows of the report for the state: the selected arm, its groups and a group's worst episodes. */
interface Selection {
  arm: string | null;
  groups: readonly GroupRow[];
  group: GroupRow | null;
  worst: readonly RankedEpisode[];
}

function useSelection(board: BoardReport | null, state: EvalBoardState): Selection {
  const arms = board?.report.arms ?? [];
  const arm = arms[cursorIn(state.arm, arms.length)]?.arm ?? null;
  const episodes = arm === null ? undefined : board?.arms.get(arm);
  const deep = state.view === 'groups' || state.view === 'episodes';
  const groups = useMemo(() => (deep && episodes && arm !== null ? armGroups(arm, episodes, state.by) : []), [deep, episodes, arm, state.by]);
  const group = groups[cursorIn(state.group, groups.length)] ?? null;
  const name = group?.group;
  const worst = useMemo(
    () => (state.view === 'episodes' && episodes && name !== undefined ? worstEpisodes(episodes, state.by, name) : []),
    [state.view, episodes, state.by, name],
  );
  return { arm, groups, group, worst };
}

export function EvalScreen() {
  const theme = useTheme();
  const { columns, rows } = useTerminalSize();
  const { help, notice } = useNavigation();
  const actions = useNavigationActions();
  const service = useServices().evalBoard;
  const { data, reload } = useEvalBoardData(service, useScreenActive());
  const [state, dispatch] = useReducer(evalBoardReducer, INITIAL_EVAL_BOARD);
  const snapshot = data.snapshot;
  const { report: board, stale } = useBoardReport(snapshot && { episodes: snapshot.episodes, excludedRuns: state.excludedRuns, baseline: state.baseline });
  const selection = useSelection(board, state);
  const sweepForm = useSweepForm(service, state.view === 'sweep', (sweep) => sweepStarted(sweep, dispatch, actions));

  useScreenKeys('eval.help', (input, key) => {
    if (state.view === 'sweep') return sweepFormKey(sweepForm.actions, () => dispatch({ type: 'back' }), input, key);
    if (matches('eval.newSweep', input, key) && state.view === 'board') {
      if (service?.newSweep) return dispatch({ type: 'newSweep' });
      return actions.notify('No workspace to start a sweep in.');
    }
    if (matches('eval.export', input, key)) return exportTable(state, board, selection, service, actions, columns - 2);
    if (matches('eval.resume', input, key) && state.view === 'board') return resumeSweep(snapshot, service, actions);
    onKey(state, dispatch, actions, snapshot, board, selection, reload, input, key);
  });

  const body = rows - EVAL_CHROME_ROWS;
  const busy = data.progress
    ? `reading episodes ${data.progress.read.toLocaleString('en-US')}/${data.progress.of.toLocaleString('en-US')}`
    : snapshot && stale
      ? 'updating…'
      : '';
  return (
    <Box flexDirection="column" paddingX={1} height="100%">
      <Header title={<Text bold>{title(state, snapshot, board, selection)}</Text>} right={busy} />
      {help ? (
        <HelpOverlay title={state.view === 'sweep' ? 'New sweep' : 'Eval board'} groups={state.view === 'sweep' ? ['sweep'] : ['eval']} />
      ) : (
        <>
          <Box marginTop={1} flexGrow={1} flexDirection="column">
            {state.view === 'sweep' ? (
              <SweepForm form={sweepForm.state} />
            ) : !service ? (
              <Text color={theme.muted}>No workspace to report on.</Text>
            ) : !snapshot ? (
              data.error ? (
                <Text color={theme.status.error}>cannot read the workspace: {data.error}</Text>
              ) : (
                <Text color={theme.muted}>reading the workspace&apos;s episodes…</Text>
              )
            ) : (
              <Body state={state} snapshot={snapshot} board={board} selection={selection} width={columns - 2} height={body} />
            )}
            {snapshot && data.error ? <Text color={theme.status.error}>cannot read the workspace: {data.error}</Text> : null}
          </Box>
          <Footer notice={notice} hints={HINTS[state.view]} />
        </>
      )}
    </Box>
  );
}

function title(state: EvalBoardState, snapshot: EvalBoardSnapshot | null, board: BoardReport | null, selection: Selection): string {
  const parts = ['EVAL BOARD'];
  if (state.view === 'sweep') return [...parts, 'new sweep'].join(' · ');
  if (state.view === 'groups' || state.view === 'episodes') {
    parts.push(`${selection.arm ?? '?'} by ${state.by}`);
    if (state.view === 'episodes' && selection.group) parts.push(`${selection.group.group}: worst first (reference reward)`);
    return parts.join(' · ');
  }
  if (snapshot) {
    const runs = snapshot.runs.length;
    const out = snapshot.runs.filter((r) => state.excludedRuns.has(r.id)).length;
    parts.push(`${snapshot.episodes.length.toLocaleString('en-US')} episodes`);
    if (runs > 0) parts.push(out ? `${runs - out} of ${runs} runs` : `${runs} run${runs === 1 ? '' : 's'}`);
  }
  if (board) {
    const arms = board.report.arms.length;
    parts.push(`${arms} arm${arms === 1 ? '' : 's'}`);
    if (board.baseline) parts.push(`baseline ${board.baseline}`);
  }
  return parts.join(' · ');
}

interface BodyProps {
  state: EvalBoardState;
  snapshot: EvalBoardSnapshot;
  board: BoardReport | null;
  selection: Selection;
  width: number;
  height: number;
}

function Body({ state, snapshot, board, selection, width, height }: BodyProps) {
  const theme = useTheme();
  // The list header and the "1-20 of 40" line.
  const listHeight = height - 2;
  switch (state.view) {
    case 'runs':
      return <RunPicker runs={snapshot.runs} excluded={state.excludedRuns} selected={cursorIn(state.picker, snapshot.runs.length)} height={listHeight} />;
    case 'baseline': {
      const arms = board?.report.arms.map((a) => a.arm) ?? [];
      return <BaselinePicker arms={arms} baseline={board?.baseline ?? null} selected={cursorIn(state.picker, arms.length)} height={listHeight} />;
    }
    case 'groups':
      return <GroupTable rows={selection.groups} by={state.by} selected={cursorIn(state.group, selection.groups.length)} height={listHeight} />;
    case 'episodes':
      return <WorstTable episodes={selection.worst} by={state.by} selected={cursorIn(state.episode, selection.worst.length)} height={listHeight} />;
    case 'board':
    case 'sweep':
      break;
  }
  if (!board) return <Text color={theme.muted}>computing the report…</Text>;
  const { arms, comparisons } = board.report;
  const flagged = arms.filter((a) => a.flags.length > 0).length;
  const comparisonRows = board.baseline ? Math.min(comparisons.length, Math.max(1, Math.floor(height / 4))) : 0;
  const comparisonBlock = board.baseline ? 4 + comparisonRows : 0;
  // The arms first (at least a few rows), the sweeps in what is left.
  const armsWanted = Math.min(Math.max(2, arms.length), Math.max(2, listHeight - flagged - comparisonBlock));
  const { shown: sweeps, lines: sweepLines } = sweepsThatFit(snapshot.sweeps, listHeight - flagged - comparisonBlock - armsWanted);
  const armRows = Math.max(2, listHeight - flagged - comparisonBlock - sweepLines);
  return (
    <Box flexDirection="column">
      {arms.length === 0 ? (
        <Text color={theme.muted}>
          {snapshot.episodes.length === 0
            ? 'No episodes recorded yet: geolab eval run or geolab episodes import records some.'
            : 'No episodes in the runs chosen: r chooses the runs.'}
        </Text>
      ) : (
        <>
          <ArmsTable arms={arms} selected={cursorIn(state.arm, arms.length)} width={width} height={armRows} />
          <ArmFlags arms={arms} />
        </>
      )}
      {board.baseline ? (
        <Box marginTop={1}>
          <ComparisonsTable comparisons={comparisons} baseline={board.baseline} height={comparisonRows} />
        </Box>
      ) : null}
      {sweeps.length ? (
        <Box marginTop={1}>
          <SweepsPanel sweeps={sweeps} more={snapshot.sweeps.length - sweeps.length} />
        </Box>
      ) : null}
    </Box>
  );
}

/** Sweeps still going (or stopped) before finished ones, as many as fit in `room` lines with the panel's title and margin. */
function sweepsThatFit(sweeps: readonly SweepRow[], room: number): { shown: SweepRow[]; lines: number } {
  const ordered = [...sweeps].sort((a, b) => Number(a.phase === 'done') - Number(b.phase === 'done'));
  const shown: SweepRow[] = [];
  // The margin, the title, and the "more" line.
  let lines = 3;
  for (const sweep of ordered) {
    const needs = 1 + Math.max(1, sweep.status?.models.length ?? 0);
    if (lines + needs > room && shown.length > 0) break;
    shown.push(sweep);
    lines += needs;
  }
  return { shown, lines: shown.length ? lines : 0 };
}

/** `x`: the table in view as CSV into the workspace, and a status line saying where (or why not). */
function exportTable(
  state: EvalBoardState,
  board: BoardReport | null,
  selection: Selection,
  service: EvalBoardService | undefined,
  actions: NavigationActions,
  width: number,
): void {
  const { arm, group, groups, worst } = selection;
  const table =
    state.view === 'board'
      ? board && armsTable(board.report.arms)
      : state.view === 'groups'
        ? arm !== null && groupsTable(arm, state.by, groups)
        : state.view === 'episodes'
          ? arm !== null && group && worstTable(arm, state.by, group.group, worst)
          : null;
  if (!service || !table) return actions.notify("Nothing to export here: x writes the arms, an arm's groups or a group's worst episodes.");
  service.exportCsv(toCsv(table.rows)).then(
    (file) => actions.notify(writtenLine(table, file, width, homedir())),
    (err: Error) => actions.notify(`not exported: ${err.message}`),
  );
}

/** Phases a sweep can be resumed from: its process gone, or it ended short of done. */
const RESUMABLE: ReadonlySet<string> = new Set(['stopped', 'interrupted', 'failed']);

/**
 * `u`: the first stopped (or interrupted, or failed) sweep listed runs again in this process; the
 * panel shows it running from its sweep.json, and a status line says how it ended.
 */
function resumeSweep(snapshot: EvalBoardSnapshot | null, service: EvalBoardService | undefined, actions: NavigationActions): void {
  const sweep = snapshot?.sweeps.find((s) => s.phase !== null && RESUMABLE.has(s.phase));
  if (!service || !sweep) return actions.notify('No stopped sweep to resume: u resumes one whose process is gone or that was interrupted.');
  const name = sweep.status?.run_id ?? sweep.dir;
  actions.notify(`resuming sweep ${name} in ${sweep.dir}…`);
  service.resumeSweep(sweep.dir).then(
    (outcome) => actions.notify(`sweep ${outcome.runId}: ${outcome.status} · ${outcome.summary.join(' · ')}`),
    (err: Error) => actions.notify(`sweep ${name} not resumed: ${err.message}`),
  );
}

/**
 * A sweep the form started plays on in this process (as a resumed one does): the board shows it from
 * its sweep.json, and a status line says when it began and how it ended.
 */
function sweepStarted(sweep: Extract<NewSweepStart, { ok: true }>, dispatch: Dispatch<EvalBoardAction>, actions: NavigationActions): void {
  dispatch({ type: 'sweepStarted' });
  actions.notify(`sweep ${sweep.runId} started in ${sweep.out}`);
  sweep.done.then(
    (outcome) => actions.notify(`sweep ${outcome.runId}: ${outcome.status} · ${outcome.summary.join(' · ')}`),
    (err: Error) => actions.notify(`sweep ${sweep.runId} stopped: ${err.message}`),
  );
}

function onKey(
  state: EvalBoardState,
  dispatch: Dispatch<EvalBoardAction>,
  actions: NavigationActions,
  snapshot: EvalBoardSnapshot | null,
  board: BoardReport | null,
  selection: Selection,
  reload: () => void,
  input: string,
  key: Key,
): void {
  if (matches('eval.back', input, key)) return state.view === 'board' ? actions.back() : dispatch({ type: 'back' });
  if (matches('eval.reload', input, key)) return reload();
  const arms = board?.report.arms ?? [];
  const total = { board: arms.length, runs: snapshot?.runs.length ?? 0, baseline: arms.length, groups: selection.groups.length, episodes: selection.worst.length, sweep: 0 }[state.view];
  if (matches('eval.up', input, key)) return dispatch({ type: 'move', delta: -1, total });
  if (matches('eval.down', input, key)) return dispatch({ type: 'move', delta: 1, total });
  switch (state.view) {
    case 'board':
      if (matches('eval.runs', input, key)) {
        if (snapshot?.runs.length) dispatch({ type: 'pickRuns' });
        else actions.notify('No runs in the workspace: every episode is in the report.');
      } else if (matches('eval.baseline', input, key)) {
        if (board?.baseline) dispatch({ type: 'pickBaseline', at: arms.findIndex((a) => a.arm === board.baseline) });
        else actions.notify('A baseline needs two arms to compare.');
      } else if (matches('eval.country', input, key) || matches('eval.open', input, key)) {
        if (selection.arm !== null) dispatch({ type: 'groupBy', by: 'country' });
      } else if (matches('eval.verdict', input, key) && selection.arm !== null) dispatch({ type: 'groupBy', by: 'verdict' });
      return;
    case 'runs': {
      const run = snapshot?.runs[cursorIn(state.picker, snapshot.runs.length)];
      if (matches('eval.toggle', input, key) && run) dispatch({ type: 'toggleRun', runId: run.id });
      else if (matches('eval.open', input, key)) dispatch({ type: 'back' });
      return;
    }
    case 'baseline': {
      const arm = arms[cursorIn(state.picker, arms.length)];
      if (matches('eval.open', input, key) && arm) dispatch({ type: 'chooseBaseline', arm: arm.arm });
      return;
    }
    case 'groups':
      if (matches('eval.country', input, key)) dispatch({ type: 'groupBy', by: 'country' });
      else if (matches('eval.verdict', input, key)) dispatch({ type: 'groupBy', by: 'verdict' });
      else if (matches('eval.open', input, key) && selection.group) dispatch({ type: 'openGroup' });
      return;
    case 'episodes': {
      const episode = selection.worst[cursorIn(state.episode, selection.worst.length)];
      if (matches('eval.open', input, key) && episode) actions.open({ screen: 'player', episodeId: episode.facts.episodeId });
      return;
    }
    case 'sweep':
      return;
  }
}
