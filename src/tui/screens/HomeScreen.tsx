import { Box, Text } from 'ink';
import { useState } from 'react';
import { useNavigation, useNavigationActions, useScreenActive, type NavigationActions } from '../contexts/NavigationContext.js';
import { useServices } from '../contexts/ServicesContext.js';
import { useTheme } from '../contexts/ThemeContext.js';
import { useWorkspaceState } from '../contexts/WorkspaceContext.js';
import { Footer } from '../components/Footer.js';
import { Header } from '../components/Header.js';
import { HelpOverlay } from '../components/HelpOverlay.js';
import { Menu, type MenuItem } from '../components/Menu.js';
import { describeRuns } from '../../store/eval-runs.js';
import type { LastAudit } from '../../audit/last-run.js';
import { formatAgo } from '../format.js';
import { useScreenKeys } from '../hooks/useScreenKeys.js';
import { useHomeSummary, type Loading } from '../hooks/useWorkspace.js';
import { keyHint, matches } from '../keys.js';
import type { HomeSummary, TuiServices } from '../services.js';
import type { SavedSplit } from '../../store/saved-splits.js';
import { describeRunLines } from '../../train/run-line.js';

type Entry = MenuItem & { run?: () => void };

/** An entry that works when the app was given what it needs, and says what is missing otherwise. */
function optional(run: (() => void) | undefined, missing: string): Pick<Entry, 'run' | 'disabled'> {
  return run ? { run } : { disabled: missing };
}

function menu({ open }: NavigationActions, { newPlay, watch, splits, audit, evalBoard, train }: TuiServices): Entry[] {
  return [
    { label: 'Episodes', hint: 'step through recorded episodes', run: () => open({ screen: 'episodes' }) },
    { label: 'Play', hint: 'play a task yourself', ...optional(newPlay && (() => open({ screen: 'live', source: newPlay() })), 'no environment') },
    { label: 'Watch a model', hint: 'run a served model live', ...optional(watch && (() => open({ screen: 'watch' })), 'needs a model endpoint') },
    { label: 'Eval board', hint: 'compare models', ...optional(evalBoard && (() => open({ screen: 'eval' })), 'no workspace') },
    { label: 'Audit', hint: 'identity-leak findings', ...optional(audit && (() => open({ screen: 'audit' })), 'no workspace') },
    { label: 'Splits', hint: 'build or check task splits', ...optional(splits && (() => open({ screen: 'splits' })), 'no workspace') },
    { label: 'Train', hint: 'local GRPO training runs', ...optional(train && (() => open({ screen: 'train' })), 'no workspace') },
  ];
}

function choose(entry: Entry, { notify }: NavigationActions) {
  if (entry.run) entry.run();
  else notify(`${entry.label}: ${entry.disabled}.`);
}

export function HomeScreen() {
  const { help, notice } = useNavigation();
  const actions = useNavigationActions();
  const home = useHomeSummary(useWorkspaceState(), useScreenActive());
  const [selected, setSelected] = useState(0);
  const entries = menu(actions, useServices());

  useScreenKeys('home.help', (input, key) => {
    if (matches('home.up', input, key)) setSelected((s) => Math.max(0, s - 1));
    else if (matches('home.down', input, key)) setSelected((s) => Math.min(entries.length - 1, s + 1));
    else if (matches('home.quit', input, key)) actions.back();
    else if (matches('home.audit', input, key)) choose(entries.find((e) => e.label === 'Audit')!, actions);
    else if (matches('home.splits', input, key)) choose(entries.find((e) => e.label === 'Splits')!, actions);
    else if (matches('home.eval', input, key)) choose(entries.find((e) => e.label === 'Eval board')!, actions);
    else if (matches('home.train', input, key)) choose(entries.find((e) => e.label === 'Train')!, actions);
    else if (matches('home.open', input, key)) choose(entries[selected]!, actions);
  });

  const dir = home?.status === 'ready' ? home.value.dir : null;
  return (
    <Box flexDirection="column" paddingX={1} height="100%">
      <Header title={<Text bold>geolab{dir ? <Text>{`  workspace ${dir}`}</Text> : null}</Text>} right={keyHint(['home.help', 'home.quit'])} />
      {help ? (
        <HelpOverlay title="Home" groups={['home']} />
      ) : (
        <>
          <Box marginY={1}>
            <Summary home={home} />
          </Box>
          <Menu items={entries} selected={selected} />
          <Box flexGrow={1} />
          <Footer notice={notice} hints={[{ commands: ['home.up', 'home.down'], label: 'choose' }, 'home.open', 'home.quit']} />
        </>
      )}
    </Box>
  );
}

function Summary({ home }: { home: Loading<HomeSummary> | null }) {
  const theme = useTheme();
  if (!home || home.status === 'loading') return <Text color={theme.muted}>opening the workspace…</Text>;
  if (home.status === 'failed') return <Text color={theme.status.error}>cannot read the workspace: {home.message}</Text>;
  return <SummaryTable summary={home.value} />;
}

function SummaryTable({ summary }: { summary: HomeSummary }) {
  const theme = useTheme();
  // Ages as of the summary's read: the table mounts with each read (Home coming back into view).
  const [now] = useState(() => Date.now());
  const tasks = summary.taskSets.reduce((n, s) => n + s.tasks, 0);
  const sets = summary.taskSets.map((s) => `${s.name} ${s.tasks}`).join(', ');
  const last = summary.lastEpisode;
  const rows: [string, string][] = [
    ['Tasks', `${tasks} in ${summary.taskSets.length} set${summary.taskSets.length === 1 ? '' : 's'}${sets ? ` (${sets})` : ''}`],
    ['Splits', describeSplits(summary.splits)],
    [
      'Episodes',
      `${summary.episodes}${last ? ` · last: ${last.modelName ?? '?'} on ${last.split}/${last.index}, ${formatAgo(last.recordedAt, now)}` : ''}`,
    ],
    ['Runs', describeRuns(summary.runs)],
    ['Training', describeRunLines(summary.trainRuns ?? [])],
    ['Audit', describeAudit(summary.audit)],
  ];
  return (
    <Box flexDirection="column">
      {rows.map(([name, value]) => (
        <Text key={name} wrap="truncate-end">
          <Text color={theme.accent}>{name.padEnd(11)}</Text>
          {value}
        </Text>
      ))}
    </Box>
  );
}

/** The saved splits by name with their tasks; until there is one, what the environment plays instead. */
function describeSplits(splits: readonly SavedSplit[]): string {
  // The embedded environment then serves the demo split in two and every task set under its own name (task-splits.ts).
  if (!splits.length) return 'none saved · played: the demo as train/eval, each task set by name';
  const each = splits.map((s) => `${s.name} (eval ${s.eval.toLocaleString('en-US')}, train ${s.train.toLocaleString('en-US')})`);
  return `${splits.length} saved: ${each.join(', ')}`;
}

/** Open findings of the last audit (what Home can say without running one). */
function describeAudit(last: LastAudit | null | undefined): string {
  if (!last) return 'not run yet';
  const { high, medium, low } = last.open_by_severity;
  const bySeverity = [high && `${high} high`, medium && `${medium} medium`, low && `${low} low`].filter(Boolean).join(', ');
  const open = `${last.open} open finding${last.open === 1 ? '' : 's'}${bySeverity ? `: ${bySeverity}` : ''}`;
  return `${open} (last run ${last.prompts.toLocaleString('en-US')} prompts, ${last.seconds.toFixed(2)} s)`;
}

