import { Box, Text } from 'ink';
import { useEffect, useState } from 'react';
import { Footer } from '../components/Footer.js';
import { Header } from '../components/Header.js';
import { HelpOverlay } from '../components/HelpOverlay.js';
import { useNavigation, useNavigationActions, useScreenActive } from '../contexts/NavigationContext.js';
import { useServices } from '../contexts/ServicesContext.js';
import { useTheme } from '../contexts/ThemeContext.js';
import { useScreenKeys } from '../hooks/useScreenKeys.js';
import { useTerminalSize } from '../hooks/useTerminalSize.js';
import { matches, type HintItem } from '../keys.js';
import type { ScreenProps } from '../screens.js';
import type { TrainRunLine, TrainService } from '../services.js';
import { sparkline } from '../train/sparkline.js';
import { formatDuration } from '../../train/log.js';
import type { TraceRollout } from '../../train/rollouts.js';
import type { RunState } from '../../train/watch.js';

/** How often a shown run is looked at again (its log read from where the last look stopped). */
const POLL_MS = 2000;
/** The curves drawn, by TRL's metric name. */
const CURVES = [
  { metric: 'reward', label: 'reward' },
  { metric: 'loss', label: 'loss' },
  { metric: 'completions/mean_length', label: 'length' },
  { metric: 'completions/clipped_ratio', label: 'clipped' },
] as const;

const HINTS: HintItem[] = [{ commands: ['train.up', 'train.down'], label: 'choose' }, 'train.open', 'train.help', 'train.back'];

type Loaded<T> = { status: 'loading' } | { status: 'ready'; value: T } | { status: 'failed'; message: string };

/** Polls `load` while the screen is in view; the newest answer is shown, a failure says why. */
function usePolled<T>(load: (() => Promise<T>) | undefined, active: boolean): Loaded<T> {
  const [state, setState] = useState<Loaded<T>>({ status: 'loading' });
  useEffect(() => {
    if (!load || !active) return;
    let current = true;
    const tick = () =>
      load().then(
        (value) => current && setState({ status: 'ready', value }),
        (err: Error) => current && setState({ status: 'failed', message: err.message }),
      );
    void tick();
    const timer = setInterval(() => void tick(), POLL_MS);
    return () => {
      current = false;
      clearInterval(timer);
    };
  }, [load, active]);
  return state;
}

export function TrainScreen({ route }: ScreenProps<'train'>) {
  const { help } = useNavigation();
  const service = useServices().train;
  return (
    <Box flexDirection="column" paddingX={1} height="100%">
      {help ? (
        <>
          <Header title={<Text bold>TRAIN</Text>} />
          <HelpOverlay title="Train" groups={['train']} />
        </>
      ) : !service ? (
        <Text>No workspace: no training runs.</Text>
      ) : route.run === undefined ? (
        <RunList service={service} />
      ) : (
        <RunView service={service} name={route.run} />
      )}
    </Box>
  );
}

function RunList({ service }: { service: TrainService }) {
  const theme = useTheme();
  const { notice } = useNavigation();
  const actions = useNavigationActions();
  const [load] = useState(() => () => service.runs());
  const runs = usePolled(load, useScreenActive());
  const [selected, setSelected] = useState(0);
  const list = runs.status === 'ready' ? runs.value : [];

  useScreenKeys('train.help', (input, key) => {
    if (matches('train.back', input, key)) actions.back();
    else if (matches('train.up', input, key)) setSelected((s) => Math.max(0, s - 1));
    else if (matches('train.down', input, key)) setSelected((s) => Math.min(list.length - 1, s + 1));
    else if (matches('train.open', input, key) && list[selected]) actions.open({ screen: 'train', run: list[selected].name });
  });

  return (
    <>
      <Header title={<Text bold>TRAIN · runs</Text>} />
      <Box marginTop={1} flexDirection="column" flexGrow={1}>
        {runs.status === 'loading' ? (
          <Text color={theme.muted}>reading the runs…</Text>
        ) : runs.status === 'failed' ? (
          <Text color={theme.status.error}>cannot read the runs: {runs.message}</Text>
        ) : list.length === 0 ? (
          <Text color={theme.muted}>No training runs yet: `geolab train launch CONFIG` starts one.</Text>
        ) : (
          list.map((run, i) => (
            <Text key={run.name} inverse={i === selected} wrap="truncate-end">
              {`${i === selected ? '›' : ' '} ${run.name.padEnd(24)} ${run.status.padEnd(8)} ${stepOf(run)}`}
            </Text>
          ))
        )}
      </Box>
      <Footer notice={notice} hints={HINTS} />
    </>
  );
}

function RunView({ service, name }: { service: TrainService; name: string }) {
  const theme = useTheme();
  const { columns } = useTerminalSize();
  const { notice } = useNavigation();
  const actions = useNavigationActions();
  const [load] = useState(() => () => service.view(name));
  const view = usePolled(load, useScreenActive());
  const [selected, setSelected] = useState(0);
  const [opened, setOpened] = useState(false);
  const rollouts = view.status === 'ready' ? view.value.rollouts : [];

  useScreenKeys('train.help', (input, key) => {
    if (matches('train.back', input, key)) {
      if (opened) setOpened(false);
      else actions.back();
    } else if (matches('train.up', input, key)) setSelected((s) => Math.max(0, s - 1));
    else if (matches('train.down', input, key)) setSelected((s) => Math.min(rollouts.length - 1, s + 1));
    else if (matches('train.open', input, key) && rollouts[selected]) setOpened((o) => !o);
  });

  if (view.status !== 'ready') {
    return (
      <>
        <Header title={<Text bold>{`TRAIN · ${name}`}</Text>} />
        <Text color={view.status === 'failed' ? theme.status.error : theme.muted}>
          {view.status === 'failed' ? `cannot read the run: ${view.message}` : 'reading the run…'}
        </Text>
      </>
    );
  }
  const { state } = view.value;
  const rollout = rollouts[Math.min(selected, rollouts.length - 1)];
  return (
    <>
      <Header title={<Text bold>{title(state)}</Text>} right={state.snapshot.resumed_from ? `resumed from ${state.snapshot.resumed_from.checkpoint}` : ''} />
      <Box marginTop={1} flexDirection="column" flexShrink={0}>
        <Curves state={state} width={Math.max(10, columns - 30)} />
      </Box>
      {state.snapshot.warnings.map((w) => (
        <Text key={w.id} color={theme.status.warn} wrap="truncate-end">
          {`! ${w.message}`}
        </Text>
      ))}
      {state.snapshot.crashed ? <Crash lines={state.snapshot.crashed.last_lines} /> : null}
      <Box marginTop={1} flexDirection="column" flexGrow={1}>
        <Text color={theme.accent}>recent rollouts (traces/rollouts.jsonl)</Text>
        {rollouts.length === 0 ? <Text color={theme.muted}>none traced yet</Text> : null}
        {opened && rollout ? (
          <RolloutTurns rollout={rollout} />
        ) : (
          rollouts.map((r, i) => (
            <Text key={`${r.step}-${i}`} inverse={i === selected} wrap="truncate-end">
              {`${i === selected ? '›' : ' '} ${rolloutLine(r)}`}
            </Text>
          ))
        )}
      </Box>
      <Footer notice={notice} hints={HINTS} />
    </>
  );
}

function Curves({ state, width }: { state: RunState; width: number }) {
  const theme = useTheme();
  const points = state.snapshot.metrics;
  return (
    <>
      {CURVES.map(({ metric, label }) => {
        const values = points.map((p) => p.values[metric] ?? Number.NaN);
        const last = [...values].reverse().find(Number.isFinite);
        return (
          <Text key={metric} wrap="truncate-end">
            <Text color={theme.accent}>{label.padEnd(9)}</Text>
            {` ${(last === undefined ? '-' : formatValue(metric, last)).padStart(8)}  `}
            {sparkline(values, width)}
          </Text>
        );
      })}
    </>
  );
}

function Crash({ lines }: { lines: string[] }) {
  const theme = useTheme();
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={theme.status.error} flexShrink={0}>
      <Text color={theme.status.error}>crashed: the last lines of the log</Text>
      {lines.slice(-10).map((line, i) => (
        <Text key={i} wrap="truncate-end">
          {line}
        </Text>
      ))}
    </Box>
  );
}

function RolloutTurns({ rollout }: { rollout: TraceRollout }) {
  const theme = useTheme();
  return (
    <Box flexDirection="column">
      <Text>{rolloutLine(rollout)}</Text>
      <Text color={theme.muted}>traces keep no images: the turns as the trainer recorded them (esc: back to the list)</Text>
      {rollout.turns.map((t) => (
        <Text key={t.turn} wrap="truncate-end">
          {`${String(t.turn).padStart(2)} ${t.action}  `}
          <Text color={theme.muted}>{t.feedback}</Text>
        </Text>
      ))}
    </Box>
  );
}

function title(state: RunState): string {
  const s = state.snapshot;
  const parts = ['TRAIN', state.name, state.status, s.phase, `step ${s.step ?? '-'}/${s.max_steps ?? '?'}`];
  if (state.status === 'running' && s.eta_s !== null) parts.push(`ETA ${formatDuration(s.eta_s)}`);
  if (s.s_per_it !== null) parts.push(`${s.s_per_it.toFixed(1)} s/it`);
  return parts.join(' · ');
}

function rolloutLine(r: TraceRollout): string {
  const distance = r.distanceKm === null ? 'no guess' : `${Math.round(r.distanceKm).toLocaleString('en-US')} km`;
  return `step ${r.step}  ${r.split}/${r.index}  reward ${r.reward === null ? '-' : r.reward.toFixed(3)}  ${distance}  ${r.turnsUsed ?? r.turns.length} turns`;
}

function stepOf(run: TrainRunLine): string {
  return `${run.step ?? '-'}/${run.maxSteps ?? '?'}`;
}

function formatValue(metric: string, value: number): string {
  if (metric === 'completions/clipped_ratio') return `${Math.round(value * 100)}%`;
  if (metric === 'completions/mean_length') return value.toFixed(0);
  return Math.abs(value) >= 1 ? value.toFixed(2) : value.toPrecision(3);
}
