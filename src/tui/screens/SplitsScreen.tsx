/**
 * Splits (docs/splits.md, docs/tui.md): choose a pool, steer the per-country table (countries in or out, eval caps,
 * eval size, buffer, contributor exclusivity) with the counts recomputed by `buildSplits` on every
 * change, then write through the same function as `geolab splits build`, only once confirmed.
 */
import { Box, Text, type Key } from 'ink';
import { useEffect, useMemo, useReducer, useState, type Dispatch } from 'react';
import { buildSplits, type SplitResult } from '../../splits/build.js';
import { Footer } from '../components/Footer.js';
import { Header } from '../components/Header.js';
import { HelpOverlay } from '../components/HelpOverlay.js';
import { Spinner } from '../components/Spinner.js';
import { SplitsTable } from '../components/SplitsTable.js';
import { TextPrompt } from '../components/TextPrompt.js';
import { useNavigation, useNavigationActions, useScreenActive, type NavigationActions } from '../contexts/NavigationContext.js';
import { useServices } from '../contexts/ServicesContext.js';
import { useTheme } from '../contexts/ThemeContext.js';
import type { Loading } from '../hooks/useWorkspace.js';
import { useScreenKeys } from '../hooks/useScreenKeys.js';
import { useTerminalSize } from '../hooks/useTerminalSize.js';
import { keyLabel, matches, type HintItem } from '../keys.js';
import type { SplitsService } from '../services.js';
import {
  BUFFER_STEP_KM,
  countryCounts,
  EVAL_SIZE_STEP,
  INITIAL_SPLITS,
  splitsReducer,
  splitsRows,
  type SplitsAction,
  type SplitsRow,
  type SplitsState,
} from '../state/splits.js';

type TaskSets = Loading<{ name: string; tasks: number }[]>;

/** Rows the table cannot use: header, settings, blank, column titles, window line, preview (3), message, footer (2). */
const SPLITS_CHROME_ROWS = 12;

const POOL_HINTS: HintItem[] = [{ commands: ['pools.up', 'pools.down'], label: 'choose' }, 'pools.open', 'pools.back', 'pools.help'];
const TABLE_HINTS: HintItem[] = [
  { commands: ['splits.up', 'splits.down'], label: 'country' },
  { commands: ['splits.toggle'], label: 'in/out' },
  { commands: ['splits.capUp', 'splits.capDown'], label: 'cap' },
  { commands: ['splits.write'], label: 'write' },
  { commands: ['splits.sort'], label: 'sort' },
  { commands: ['splits.evalLess', 'splits.evalMore'], label: 'eval size' },
  { commands: ['splits.bufferLess', 'splits.bufferMore'], label: 'buffer' },
  { commands: ['splits.contributor'], label: 'contributors' },
  'splits.back',
  'splits.help',
];

export function SplitsScreen() {
  const { help, notice } = useNavigation();
  const navigation = useNavigationActions();
  const service = useServices().splits;
  const active = useScreenActive();
  const { rows: screenRows } = useTerminalSize();
  const [state, dispatch] = useReducer(splitsReducer, INITIAL_SPLITS);
  const taskSets = useTaskSets(service, active);
  const { loaded, options, phase } = state;
  const { result, stale } = useSplitResult(state);
  const rows = useMemo(() => (loaded && result ? splitsRows(loaded, options, result, state.sort) : []), [loaded, options, result, state.sort]);
  useTaken(service, state.phase, dispatch);
  useWrite(service, state, result, dispatch);

  const inTable = phase.kind === 'table' || phase.kind === 'outDir' || phase.kind === 'name' || phase.kind === 'confirm' || phase.kind === 'writing';
  const typing = phase.kind === 'path' || phase.kind === 'outDir' || phase.kind === 'name';
  useScreenKeys(typing ? null : inTable ? 'splits.help' : 'pools.help', (input, key) => onKey(state, taskSets, rows, stale ? null : result, service, navigation, dispatch, input, key), {
    hold: phase.kind === 'loading' || phase.kind === 'writing',
  });

  const title = loaded ? `SPLITS · ${loaded.label} · ${loaded.pool.tasks.length} tasks` : 'SPLITS · choose a pool';
  return (
    <Box flexDirection="column" paddingX={1} height="100%">
      <Header title={<Text bold>{title}</Text>} right={inTable ? `sort: ${state.sort}` : undefined} />
      {help ? (
        <HelpOverlay title="Splits" groups={inTable ? ['splits'] : ['pools']} />
      ) : !service ? (
        <Text>This app has no workspace to read pools from.</Text>
      ) : inTable && loaded && result ? (
        <>
          <Settings state={state} />
          <Box marginTop={1} flexGrow={1} flexDirection="column">
            <SplitsTable rows={rows} selected={state.selected} sort={state.sort} height={screenRows - SPLITS_CHROME_ROWS} />
          </Box>
          <Preview result={result} stale={stale} />
        </>
      ) : inTable && loaded ? (
        <Box marginTop={1} flexGrow={1}>
          <Spinner label={`splitting ${loaded.pool.tasks.length} tasks`} />
        </Box>
      ) : (
        <Box marginTop={1} flexGrow={1} flexDirection="column">
          <Pools state={state} taskSets={taskSets} />
        </Box>
      )}
      <Message state={state} />
      <Bottom state={state} notice={notice} inTable={inTable} />
    </Box>
  );
}

/**
 * How long the settings must stay put before the split is recomputed: `buildSplits` (with its
 * self-check) takes a few hundred ms on a pool of some thousands of tasks, so a burst of +/- or [/]
 * keys is answered at once in the settings and recomputed once when it ends.
 */
const RECOMPUTE_DELAY_MS = 100;

/** The split of the settings on screen, and whether it is still being recomputed for the latest ones. */
function useSplitResult({ loaded, options }: SplitsState): { result: SplitResult | null; stale: boolean } {
  const [computed, setComputed] = useState<{ loaded: SplitsState['loaded']; options: SplitsState['options']; result: SplitResult } | null>(null);
  const known = computed?.loaded === loaded ? computed : null;
  const first = loaded !== null && known === null;
  useEffect(() => {
    if (!loaded) return;
    const timer = setTimeout(() => setComputed({ loaded, options, result: buildSplits(loaded.pool.tasks, options) }), first ? 0 : RECOMPUTE_DELAY_MS);
    return () => clearTimeout(timer);
  }, [loaded, options, first]);
  return { result: known?.result ?? null, stale: known?.options !== options };
}

/** The workspace's task sets, read when the screen comes into view. */
function useTaskSets(service: SplitsService | undefined, active: boolean): TaskSets {
  const [sets, setSets] = useState<TaskSets>({ status: 'loading' });
  useEffect(() => {
    if (!service || !active) return;
    let current = true;
    service.taskSets().then(
      (value) => current && setSets({ status: 'ready', value }),
      (err: Error) => current && setSets({ status: 'failed', message: err.message }),
    );
    return () => {
      current = false;
    };
  }, [service, active]);
  return sets;
}

/** On the confirmation: what the write would replace, so the question can name it (docs/splits.md, Replacing a split). */
function useTaken(service: SplitsService | undefined, phase: SplitsState['phase'], dispatch: Dispatch<SplitsAction>): void {
  const target = phase.kind === 'confirm' && phase.replaces === undefined ? { outDir: phase.outDir, name: phase.name } : null;
  const outDir = target?.outDir;
  const name = target?.name;
  useEffect(() => {
    if (outDir === undefined || name === undefined || !service) return;
    let current = true;
    (service.taken ? service.taken({ outDir, name }) : Promise.resolve([])).then(
      (replaces) => current && dispatch({ type: 'taken', replaces }),
      (err: Error) => current && dispatch({ type: 'writeFailed', message: err.message }),
    );
    return () => {
      current = false;
    };
  }, [service, outDir, name, dispatch]);
}

/** The write, once confirmed: the phase says where to; the result is the one on screen. */
function useWrite(service: SplitsService | undefined, state: SplitsState, result: SplitResult | null, dispatch: Dispatch<SplitsAction>): void {
  const { phase, loaded, options } = state;
  useEffect(() => {
    if (phase.kind !== 'writing' || !service || !loaded || !result) return;
    let current = true;
    service.write(loaded.pool, result, options, { outDir: phase.outDir, name: phase.name, replace: phase.replace }).then(
      ({ files, sets, manifest }) =>
        current &&
        dispatch({
          type: 'written',
          text: `wrote ${manifest.eval.tasks} eval and ${manifest.train.tasks} train tasks: ${files.eval}, ${files.train}, ${files.manifest}; task sets ${sets.join(', ')}`,
        }),
      (err: Error) => current && dispatch({ type: 'writeFailed', message: err.message }),
    );
    return () => {
      current = false;
    };
  }, [phase, service, loaded, result, options, dispatch]);
}

function onKey(
  state: SplitsState,
  taskSets: TaskSets,
  rows: readonly SplitsRow[],
  result: SplitResult | null,
  service: SplitsService | undefined,
  navigation: NavigationActions,
  dispatch: Dispatch<SplitsAction>,
  input: string,
  key: Key,
): void {
  const { phase } = state;
  const open = (source: { taskSet: string } | { file: string }, label: string) => {
    if (!service) return;
    dispatch({ type: 'loading', label });
    service.load(source).then(
      ({ label: shown, pool }) => dispatch({ type: 'loaded', loaded: { label: shown, pool, counts: countryCounts(pool) } }),
      (err: Error) => dispatch({ type: 'failed', message: `cannot open ${label}: ${err.message}` }),
    );
  };
  switch (phase.kind) {
    case 'path':
    case 'outDir':
    case 'name':
      if (matches('prompt.cancel', input, key)) dispatch({ type: 'cancel' });
      else if (matches('prompt.erase', input, key)) dispatch({ type: 'erase' });
      else if (matches('prompt.submit', input, key)) {
        if (phase.kind === 'path') {
          if (phase.text.trim()) open({ file: phase.text.trim() }, phase.text.trim());
        } else dispatch({ type: 'submit' });
      }
      // Printable text only: arrows and other named keys arrive with an empty input.
      else if (input && !key.ctrl && !key.meta) dispatch({ type: 'type', text: input });
      return;
    case 'confirm':
      if (matches('confirm.yes', input, key)) dispatch({ type: 'confirm' });
      else if (matches('confirm.no', input, key)) dispatch({ type: 'cancel' });
      return;
    case 'loading':
    case 'writing':
      return;
    case 'choose': {
      const sets = taskSets.status === 'ready' ? taskSets.value : [];
      if (matches('pools.back', input, key)) navigation.back();
      else if (matches('pools.up', input, key)) dispatch({ type: 'moveChoice', delta: -1, count: sets.length + 1 });
      else if (matches('pools.down', input, key)) dispatch({ type: 'moveChoice', delta: 1, count: sets.length + 1 });
      else if (matches('pools.open', input, key)) {
        const set = sets[state.choice];
        if (set) open({ taskSet: set.name }, set.name);
        else dispatch({ type: 'typePath' });
      }
      return;
    }
    case 'table': {
      const order = rows.map((r) => r.country);
      if (matches('splits.back', input, key)) navigation.back();
      else if (matches('splits.up', input, key)) dispatch({ type: 'move', delta: -1, order });
      else if (matches('splits.down', input, key)) dispatch({ type: 'move', delta: 1, order });
      else if (matches('splits.toggle', input, key)) dispatch({ type: 'toggle' });
      else if (matches('splits.capUp', input, key)) dispatch({ type: 'cap', delta: 1 });
      else if (matches('splits.capDown', input, key)) dispatch({ type: 'cap', delta: -1 });
      else if (matches('splits.sort', input, key)) dispatch({ type: 'sort' });
      else if (matches('splits.evalMore', input, key)) dispatch({ type: 'evalSize', delta: EVAL_SIZE_STEP });
      else if (matches('splits.evalLess', input, key)) dispatch({ type: 'evalSize', delta: -EVAL_SIZE_STEP });
      else if (matches('splits.bufferMore', input, key)) dispatch({ type: 'buffer', deltaKm: BUFFER_STEP_KM });
      else if (matches('splits.bufferLess', input, key)) dispatch({ type: 'buffer', deltaKm: -BUFFER_STEP_KM });
      else if (matches('splits.contributor', input, key)) dispatch({ type: 'contributor' });
      else if (matches('splits.write', input, key) && state.loaded) {
        // The counts on screen must be those of the settings on screen before they are offered for writing.
        const problems = result ? result.problems : ['the split is still being recomputed: press w again in a moment'];
        dispatch({ type: 'write', problems, defaultOutDir: `splits/${defaultName(state.loaded.label)}` });
      }
      return;
    }
  }
}

/** A task set's name, or a pool file's name without its directory and extension. */
function defaultName(label: string): string {
  return (label.split(/[/\\]/).pop() ?? label).replace(/\.jsonl?$/, '').replace(/[^A-Za-z0-9_.-]/g, '-') || 'split';
}

function Pools({ state, taskSets }: { state: SplitsState; taskSets: TaskSets }) {
  const theme = useTheme();
  if (state.phase.kind === 'loading') return <Spinner label={`reading ${state.phase.label}`} />;
  if (taskSets.status === 'loading') return <Text color={theme.muted}>reading the workspace's task sets…</Text>;
  if (taskSets.status === 'failed') return <Text color={theme.status.error}>cannot read the task sets: {taskSets.message}</Text>;
  const lines = [...taskSets.value.map((s) => `${s.name.padEnd(24)} ${s.tasks} tasks`), 'a task file…'];
  return (
    <Box flexDirection="column">
      <Text color={theme.muted}>Pool to split (a workspace task set, or a task file):</Text>
      {lines.map((line, i) => {
        const current = i === state.choice;
        return (
          <Text key={line} color={current ? theme.accent : undefined} bold={current}>
            {current ? '› ' : '  '}
            {line}
          </Text>
        );
      })}
    </Box>
  );
}

function Settings({ state }: { state: SplitsState }) {
  const theme = useTheme();
  const o = state.options;
  const out = o.excludeCountries?.length ?? 0;
  return (
    <Text wrap="truncate-end">
      <Text color={theme.accent}>eval size </Text>
      {o.evalSize}
      <Text color={theme.accent}> · cap per country </Text>
      {o.evalPerCountry}
      <Text color={theme.accent}> · buffer </Text>
      {o.bufferKm} km
      <Text color={theme.accent}> · contributor-exclusive </Text>
      {o.contributorExclusive ? 'on' : 'off'}
      {out ? <Text color={theme.muted}>{` · ${out} ${out === 1 ? 'country' : 'countries'} left out`}</Text> : null}
    </Text>
  );
}

function Preview({ result, stale }: { result: SplitResult; stale: boolean }) {
  const theme = useTheme();
  const d = result.dropped;
  const countries = (side: 'eval' | 'train') => Object.values(result.perCountry).filter((row) => row[side] > 0).length;
  return (
    <Box flexDirection="column" flexShrink={0}>
      <Text wrap="truncate-end">
        {`preview: eval ${result.eval.length} tasks in ${countries('eval')} countries · train ${result.train.length} tasks in ${countries('train')} countries · closest cross-split ${result.closestCrossKm ?? '-'} km`}
        {stale ? <Text color={theme.muted}> · recomputing…</Text> : null}
      </Text>
      <Text wrap="truncate-end" color={theme.muted}>
        {`dropped: ${d.shared_sequence} shared sequence · ${d.buffer} buffer · ${d.contributor} contributor · ${d.cap} cap · ${d.country_filter} left out`}
      </Text>
      {result.problems.length > 0 ? (
        <Text wrap="truncate-end" color={theme.status.error}>
          {`self-check: ${result.problems[0]}`}
        </Text>
      ) : result.warnings.length > 0 ? (
        <Text wrap="truncate-end" color={theme.status.warn}>
          {`warning: ${result.warnings[0]}`}
        </Text>
      ) : null}
    </Box>
  );
}

function Message({ state }: { state: SplitsState }) {
  const theme = useTheme();
  if (!state.message) return null;
  return (
    <Text wrap="wrap" color={state.message.tone === 'error' ? theme.status.error : theme.status.ok}>
      {state.message.text}
    </Text>
  );
}

function Bottom({ state, notice, inTable }: { state: SplitsState; notice: string | null; inTable: boolean }) {
  const theme = useTheme();
  const { phase } = state;
  switch (phase.kind) {
    case 'path':
      return <TextPrompt label="task file:" text={phase.text} submit="open" error={null} placeholder="path/to/pool.jsonl" />;
    case 'outDir':
      return <TextPrompt label="write to directory:" text={phase.text} submit="next" error={null} />;
    case 'name':
      return <TextPrompt label="task sets NAME-eval / NAME-train, NAME:" text={phase.text} submit="next" error={null} />;
    case 'confirm':
      if (phase.replaces === undefined) return <Spinner label={`looking for a split already in ${phase.outDir} or named ${phase.name}`} />;
      if (phase.replaces.length > 0) {
        return (
          <Text wrap="wrap">
            <Text bold color={theme.status.error}>
              {`Replace ${phase.replaces.join(', ')}? Episodes keep reading the task set version they were played on.`}
            </Text>
            <Text color={theme.muted}>{`  ${keyLabel('confirm.yes')} replace · ${keyLabel('confirm.no')} no`}</Text>
          </Text>
        );
      }
      return (
        <Text wrap="wrap">
          <Text bold color={theme.accent}>
            {`Write eval.jsonl, train.jsonl and manifest.json to ${phase.outDir} and import ${phase.name}-eval, ${phase.name}-train?`}
          </Text>
          <Text color={theme.muted}>{`  ${keyLabel('confirm.yes')} yes · ${keyLabel('confirm.no')} no`}</Text>
        </Text>
      );
    case 'writing':
      return <Spinner label={`writing to ${phase.outDir}`} />;
    default:
      return <Footer notice={notice} hints={inTable ? TABLE_HINTS : POOL_HINTS} />;
  }
}
