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
import { keyLabel, matches, type HintItem } from '../keys.js';
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
const RUN_HINTS: HintItem[] = [{ commands: ['train.up', 'train.down'], label: 'choose' }, { commands: ['train.open'], label: 'turns' }, { commands: ['train.stop'], label: 'stop' }, 'train.help', 'train.back'];

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
          <Text color={theme.muted}>No training runs yet: `geolab train init` writes a config, `geolab train launch CONFIG` starts it.</Text>
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
  const { columns, rows } = useTerminalSize();
  const { notice } = useNavigation();
  const actions = useNavigationActions();
  const [load] = useState(() => () => service.view(name));
  const view = usePolled(load, useScreenActive());
  const [selected, setSelected] = useState(0);
  const [opened, setOpened] = useState(false);
  const [stop, setStop] = useState<'confirm' | 'stopping' | null>(null);
  const rollouts = view.status === 'ready' ? view.value.rollouts : [];
  const running = view.status === 'ready' && view.value.state.status === 'running';

  useScreenKeys('train.help', (input, key) => {
    if (stop === 'confirm') {
      if (matches('confirm.yes', input, key)) {
        setStop('stopping');
        service.stop(name).then(
          (message) => (setStop(null), actions.notify(message)),
          (err: Error) => (setStop(null), actions.notify(`cannot stop ${name}: ${err.message}`)),
        );
      } else if (matches('confirm.no', input, key)) setStop(null);
      return;
    }
    if (matches('train.stop', input, key)) {
      if (running && stop === null) setStop('confirm');
      else if (!running) actions.notify(`${name} is not running`);
    } else if (matches('train.back', input, key)) {
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
  const crash = state.snapshot.crashed;
  const crashLines = rows >= 40 ? 10 : 4;
  // What is left for the rollouts below the title, curves, warnings, crash box and footer.
  const chrome = 1 + 1 + CURVES.length + state.snapshot.warnings.length + (crash ? Math.min(crashLines, crash.last_lines.length) + 3 : 0) + 2 + 2;
  const listRows = Math.max(2, rows - chrome);
  const first = Math.max(0, selected - listRows + 1);
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
      {crash ? <Crash lines={crash.last_lines.slice(-crashLines)} /> : null}
      <Box marginTop={1} flexDirection="column" flexGrow={1}>
        <Text color={theme.accent}>recent rollouts (traces/rollouts.jsonl)</Text>
        {rollouts.length === 0 ? <Text color={theme.muted}>none traced yet</Text> : null}
        {opened && rollout ? (
          <RolloutTurns rollout={rollout} rows={listRows} />
        ) : (
          rollouts.slice(first, first + listRows).map((r, at) => {
            const i = first + at;
            return (
              <Text key={`${r.step}-${i}`} inverse={i === selected} wrap="truncate-end">
                {`${i === selected ? '›' : ' '} ${rolloutLine(r)}`}
              </Text>
            );
          })
        )}
      </Box>
      {stop ? (
        <Text color={theme.status.warn}>
          {stop === 'stopping'
            ? `stopping ${name}: SIGINT, the trainer saves a checkpoint…`
            : `Stop ${name}? SIGINT (a checkpoint when the step ends), SIGTERM after 10 min. ${keyLabel('confirm.yes')} stops · ${keyLabel('confirm.no')} keeps it running`}
        </Text>
      ) : (
        <Footer notice={notice} hints={RUN_HINTS} />
      )}
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
      {lines.map((line, i) => (
        <Text key={i} wrap="truncate-end">
          {line}
        </Text>
      ))}
    </Box>
  );
}

function RolloutTurns({ rollout, rows }: { rollout: TraceRollout; rows: number }) {
  const theme = useTheme();
  return (
    <Box flexDirection="column">
      <Text>{rolloutLine(rollout)}</Text>
      <Text color={theme.muted}>traces keep no images: the turns as the trainer recorded them (esc: back to the list)</Text>
      {rollout.turns.slice(0, Math.max(1, rows - 2)).map((t) => (
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
  return `${run.step ?? '-'}/${run.max_steps ?? '?'}`;
}

function formatValue(metric: string, value: number): string {
  if (metric === 'completions/clipped_ratio') return `${Math.round(value * 100)}%`;
  if (metric === 'completions/mean_length') return value.toFixed(0);
  return Math.abs(value) >= 1 ? value.toFixed(2) : value.toPrecision(3);
}
