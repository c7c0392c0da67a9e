import { Box, Text } from 'ink';
import { useMemo, useReducer } from 'react';
import type { EpisodeRecord } from '../../core/episode.js';
import type { LatLon } from '../../core/geodesy.js';
import { compareEpisodes, type ComparedOutcome, type ComparedSide, type ComparedTurn, type Comparison } from '../../eval/compare.js';
import { Footer } from '../components/Footer.js';
import { Header } from '../components/Header.js';
import { HelpOverlay } from '../components/HelpOverlay.js';
import { InlineImage } from '../components/InlineImage.js';
import { Panel } from '../components/Panel.js';
import { WorldMap } from '../components/WorldMap.js';
import { useNavigation, useNavigationActions } from '../contexts/NavigationContext.js';
import { useTheme } from '../contexts/ThemeContext.js';
import { useWorkspaceState } from '../contexts/WorkspaceContext.js';
import { useScreenKeys } from '../hooks/useScreenKeys.js';
import { useTerminalSize } from '../hooks/useTerminalSize.js';
import { read, type Loading } from '../hooks/useWorkspace.js';
import { formatKm, wrapLines } from '../format.js';
import { matches, type Command, type HintItem } from '../keys.js';
import { fitMap, TRUTH_MARK } from '../map/world-map.js';
import type { ScreenProps } from '../screens.js';
import type { WorkspaceView } from '../services.js';
import type { CompareSide } from '../state/navigation.js';
import { initialPlayerState, playerReducer, type PlayerAction } from '../state/player.js';
import { verdictTone } from '../theme.js';

// The Player's stepper steps through the aligned rows: one position per turn number.
const KEY_ACTIONS: [Command, PlayerAction][] = [
  ['compare.prev', { type: 'prev' }],
  ['compare.next', { type: 'next' }],
  ['compare.first', { type: 'first' }],
  ['compare.last', { type: 'last' }],
  ['compare.map', { type: 'toggleMap' }],
];

const HINTS: HintItem[] = [
  { commands: ['compare.prev', 'compare.next'], label: 'turn' },
  { commands: ['compare.first', 'compare.last'], label: 'first/last' },
  { commands: ['compare.map'], label: 'map' },
  { commands: ['compare.help'], label: 'help' },
  { commands: ['compare.back'], label: 'back' },
];

/** Rows besides the images: header, side titles, panel borders, four lines of turn, three of outcome, footer and notice. */
const CHROME_ROWS = 14;
/** Rows besides the map: header, its borders, legend, both outcomes and the footer. */
const MAP_CHROME_ROWS = 12;
const FEEDBACK_LINES = 2;

interface Loaded {
  label: string;
  record: EpisodeRecord;
  images?: ReadonlyMap<string, Buffer>;
}

function useSide(workspace: Loading<WorkspaceView> | null, side: CompareSide): Loading<Loaded> {
  return useMemo((): Loading<Loaded> => {
    if ('record' in side) return { status: 'ready', value: side };
    const loaded = read(workspace, (view) => view.loadEpisode(side.episodeId));
    if (loaded.status !== 'ready') return loaded;
    if (!loaded.value) return { status: 'failed', message: `no episode ${side.episodeId} in this workspace (geolab episodes lists them)` };
    return { status: 'ready', value: { label: loaded.value.episode_id.slice(0, 8), record: loaded.value } };
  }, [workspace, side]);
}

export function CompareScreen({ route }: ScreenProps<'compare'>) {
  const theme = useTheme();
  const { help, notice } = useNavigation();
  const actions = useNavigationActions();
  const workspace = useWorkspaceState();
  const a = useSide(workspace, route.a);
  const b = useSide(workspace, route.b);
  const compared = useMemo((): Loading<{ comparison: Comparison; a: Loaded; b: Loaded }> => {
    if (a.status !== 'ready') return a;
    if (b.status !== 'ready') return b;
    try {
      return { status: 'ready', value: { comparison: compareEpisodes(a.value, b.value), a: a.value, b: b.value } };
    } catch (err) {
      return { status: 'failed', message: (err as Error).message };
    }
  }, [a, b]);
  const [state, dispatch] = useReducer(playerReducer, null, () => initialPlayerState(null, 0));
  // Reset while rendering (as the Player does): the first key after the episodes appear must step.
  const ready = compared.status === 'ready' ? compared.value : null;
  const key = ready ? `${ready.comparison.a.episodeId}|${ready.comparison.b.episodeId}` : null;
  if (ready && key && state.episodeId !== key) dispatch({ type: 'load', episodeId: key, turnCount: ready.comparison.rows.length });

  useScreenKeys('compare.help', (input, k) => {
    if (matches('compare.back', input, k)) return actions.back();
    const hit = KEY_ACTIONS.find(([command]) => matches(command, input, k));
    if (hit) dispatch(hit[1]);
  });

  if (compared.status === 'loading') return <Text color={theme.muted}>loading the episodes…</Text>;
  if (compared.status === 'failed') {
    return (
      <Box flexDirection="column" paddingX={1}>
        <Text color={theme.status.error}>{compared.message}</Text>
        <Footer notice={notice} hints={['compare.back']} />
      </Box>
    );
  }
  const { comparison } = compared.value;
  const row = comparison.rows[Math.min(state.position, comparison.rows.length - 1)];
  const task = comparison.task;
  const title = `COMPARE ${task.split}/${task.index}${task.taskId ? ` (${task.taskId})` : ''}${task.country ? ` · ${task.country}` : ''}`;
  return (
    <Box flexDirection="column" paddingX={1} height="100%">
      <Header title={<Text bold>{title}</Text>} right={row ? `turn ${row.turn}/${comparison.rows.at(-1)?.turn ?? row.turn}` : ''} />
      {help ? (
        <HelpOverlay title="Compare" groups={['compare']} />
      ) : state.map ? (
        <ComparisonMap comparison={comparison} />
      ) : (
        <Box flexGrow={1} gap={1}>
          <SideColumn letter="A" side={comparison.a} turn={row?.a ?? null} images={compared.value.a.images} />
          <SideColumn letter="B" side={comparison.b} turn={row?.b ?? null} images={compared.value.b.images} />
        </Box>
      )}
      <Footer notice={notice} hints={HINTS} />
    </Box>
  );
}

/** The width of one side's column: half the screen, less the padding and the gap between them. */
function columnWidth(columns: number): number {
  return Math.floor((columns - 2 - 1) / 2);
}

function SideColumn({ letter, side, turn, images }: { letter: string; side: ComparedSide; turn: ComparedTurn | null; images?: ReadonlyMap<string, Buffer> }) {
  const theme = useTheme();
  const size = useTerminalSize();
  const workspace = useWorkspaceState();
  const width = columnWidth(size.columns);
  // A half-block cell is one pixel wide and two tall: a square image is twice as many columns as rows.
  const imageRows = Math.max(4, Math.min(size.rows - CHROME_ROWS, Math.floor((width - 2) / 2)));
  const sha = turn?.imageSha256 ?? null;
  const view = workspace?.status === 'ready' ? workspace.value : undefined;
  const bytes = useMemo(() => (sha ? (images?.get(sha) ?? view?.loadImage(sha)) : undefined), [sha, images, view]);
  const feedback = turn ? wrapLines(turn.feedback, width).slice(0, FEEDBACK_LINES) : [];
  return (
    <Box flexDirection="column" width={width} flexShrink={0}>
      <Text bold wrap="truncate-end">
        {letter} {side.episodeId.slice(0, 8)} {side.model ?? '?'}
        {side.promptVersion ? `@${side.promptVersion}` : ''}
        {side.sample ? ` · sample ${side.sample}` : ''}
      </Text>
      <Panel width={imageRows * 2} height={imageRows}>
        <InlineImage imageKey={sha ?? 'none'} bytes={bytes} width={imageRows * 2} height={imageRows} />
      </Panel>
      {turn ? (
        <Box flexDirection="column" height={2 + FEEDBACK_LINES}>
          <Text wrap="truncate-end">
            <Text bold>{`turn ${turn.turn}`}</Text>
            {turn.cost === null ? '' : ` · +${turn.cost.toFixed(2)} (${(turn.totalCost ?? 0).toFixed(2)} in all)`}
            {' · '}
            <Text color={theme.accent}>{turn.call}</Text>
            {turn.status !== 'ok' ? <Text color={theme.status.warn}>{` [${turn.status}]`}</Text> : null}
          </Text>
          <Text bold wrap="truncate-end">
            {turn.looked}
          </Text>
          {feedback.map((line, i) => (
            <Text key={i}>{line}</Text>
          ))}
        </Box>
      ) : (
        <Box height={2 + FEEDBACK_LINES}>
          <Text color={theme.muted}>no such turn: this episode had ended</Text>
        </Box>
      )}
      <OutcomeLines outcome={side.outcome} />
    </Box>
  );
}

function OutcomeLines({ outcome, letter }: { outcome: ComparedOutcome; letter?: string }) {
  const theme = useTheme();
  if (outcome.error !== null) return <Text color={theme.status.error} wrap="truncate-end">{`${letter ? `${letter} ` : ''}failed: ${outcome.error}`}</Text>;
  const colour = theme.verdict[verdictTone(outcome.verdict) ?? 'wrong'];
  const where = outcome.distanceKm === null ? 'No usable guess' : `${outcome.verdict ?? '?'} · ${formatKm(outcome.distanceKm)}`;
  return (
    <Box flexDirection="column" flexShrink={0}>
      <Text bold color={colour} wrap="truncate-end">
        {letter ? `${letter} ` : ''}
        {where}
        {outcome.forcedGuess ? ' (forced)' : ''}
      </Text>
      <Text wrap="truncate-end">
        {`reference ${outcome.referenceReward === null ? '-' : outcome.referenceReward.toFixed(4)} · game ${outcome.gameReward === null ? '-' : outcome.gameReward.toFixed(4)} · cost ${(outcome.cost ?? 0).toFixed(2)}`}
      </Text>
    </Box>
  );
}

function latLon(p: readonly [number, number] | null): LatLon | null {
  return p ? { lat: p[0], lon: p[1] } : null;
}

/** Both guesses, marked A and B, each joined to the truth; the outcomes under it. */
function ComparisonMap({ comparison }: { comparison: Comparison }) {
  const theme = useTheme();
  const size = useTerminalSize();
  const map = fitMap(size.columns - 4, size.rows - MAP_CHROME_ROWS);
  const truth = latLon(comparison.a.outcome.truth ?? comparison.b.outcome.truth);
  const guesses = [
    { at: latLon(comparison.a.outcome.guess), mark: 'A' },
    { at: latLon(comparison.b.outcome.guess), mark: 'B' },
  ].filter((g): g is { at: LatLon; mark: string } => g.at !== null);
  return (
    <Box flexDirection="column" flexGrow={1}>
      <Panel width={map.columns} height={map.rows}>
        <WorldMap columns={map.columns} rows={map.rows} truth={truth} guesses={guesses} />
      </Panel>
      <Text wrap="truncate-end">
        <Text color={theme.map.guess} bold>
          A
        </Text>
        {` ${comparison.a.model ?? '?'} · `}
        <Text color={theme.map.guess} bold>
          B
        </Text>
        {` ${comparison.b.model ?? '?'} · `}
        <Text color={theme.map.truth} bold>
          {TRUTH_MARK}
        </Text>
        {' truth'}
      </Text>
      <Box gap={1}>
        <Box width={columnWidth(size.columns)}>
          <OutcomeLines letter="A" outcome={comparison.a.outcome} />
        </Box>
        <Box width={columnWidth(size.columns)}>
          <OutcomeLines letter="B" outcome={comparison.b.outcome} />
        </Box>
      </Box>
    </Box>
  );
}
