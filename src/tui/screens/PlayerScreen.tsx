import { Box, Text, type Key } from 'ink';
import { useMemo } from 'react';
import { isFailed, type CompletedEpisode, type FailedEpisode, type Turn } from '../../core/episode.js';
import { DecisionPanel } from '../components/DecisionPanel.js';
import { Footer } from '../components/Footer.js';
import { Header } from '../components/Header.js';
import { HelpOverlay } from '../components/HelpOverlay.js';
import { InlineImage } from '../components/InlineImage.js';
import { OutcomeSummary } from '../components/OutcomeSummary.js';
import { Panel } from '../components/Panel.js';
import { Reasoning } from '../components/Reasoning.js';
import { RequestView } from '../components/RequestView.js';
import { RevealMap, RevealPlaces, REVEAL_PLACES_ROWS } from '../components/Reveal.js';
import { TurnDetail } from '../components/TurnDetail.js';
import { TurnInfo } from '../components/TurnInfo.js';
import { TurnList } from '../components/TurnList.js';
import { WorldMap } from '../components/WorldMap.js';
import { useNavigation, useNavigationActions } from '../contexts/NavigationContext.js';
import { useServices } from '../contexts/ServicesContext.js';
import { useTheme } from '../contexts/ThemeContext.js';
import { useWorkspaceState } from '../contexts/WorkspaceContext.js';
import { useDecisionPanel, type DecisionPanelActions } from '../hooks/useDecisionPanel.js';
import { turnsOf, usePlayback } from '../hooks/usePlayback.js';
import { useScreenKeys } from '../hooks/useScreenKeys.js';
import { useTerminalSize } from '../hooks/useTerminalSize.js';
import { imageCells, isWide } from '../layout.js';
import { matches, type Command, type HintItem } from '../keys.js';
import { fitMap } from '../map/world-map.js';
import type { ScreenProps } from '../screens.js';
import { decisionTurnProblem, startPosition, type DecisionState } from '../state/decision.js';
import type { PlayerAction, PlayerState } from '../state/player.js';
import { requestLines, requestOf, turnBudget } from '../turn-text.js';

const KEY_ACTIONS: [Command, PlayerAction][] = [
  ['player.prev', { type: 'prev' }],
  ['player.next', { type: 'next' }],
  ['player.first', { type: 'first' }],
  ['player.last', { type: 'last' }],
  ['player.autoplay', { type: 'toggleAutoplay' }],
  ['player.reasoning', { type: 'toggleReasoning' }],
  ['player.imageSize', { type: 'toggleImageSize' }],
  ['player.map', { type: 'toggleMap' }],
  ['player.prompt', { type: 'toggleRequest' }],
];

// Most needed first: a narrow footer leaves out what does not fit from the end (help has them all).
const HINTS: HintItem[] = [
  { commands: ['player.prev', 'player.next'], label: 'step' },
  { commands: ['player.first', 'player.last'], label: 'first/last' },
  { commands: ['player.autoplay'], label: 'play' },
  { commands: ['player.reasoning'], label: 'reasoning' },
  { commands: ['player.map'], label: 'map' },
  { commands: ['player.prompt'], label: 'request' },
  { commands: ['player.retry'], label: 'retry' },
  { commands: ['player.fork'], label: 'fork' },
  { commands: ['player.imageSize'], label: 'image size' },
  { commands: ['player.help'], label: 'help' },
  { commands: ['player.back'], label: 'back' },
];

const REQUEST_HINTS: HintItem[] = [
  { commands: ['request.up', 'request.down'], label: 'scroll' },
  { commands: ['request.pageUp', 'request.pageDown'], label: 'page' },
  { commands: ['request.top', 'request.bottom'], label: 'top/bottom' },
  { commands: ['request.help'], label: 'help' },
  { commands: ['request.close'], label: 'close' },
];

const DECISION_HINTS: HintItem[] = [
  { commands: ['decision.prev', 'decision.next'], label: 'field' },
  { commands: ['decision.enter'], label: 'next/send' },
  { commands: ['decision.help'], label: 'help' },
  { commands: ['decision.close'], label: 'close' },
];

const FORK_HINTS: HintItem[] = [
  { commands: ['decision.prev', 'decision.next'], label: 'field' },
  { commands: ['decision.enter'], label: 'next/play on' },
  { commands: ['decision.person'], label: 'play on yourself' },
  { commands: ['decision.help'], label: 'help' },
  { commands: ['decision.close'], label: 'close' },
];

/** Rows besides the panel: the header, a notice and the footer. */
const DECISION_CHROME_ROWS = 3;

/** Rows besides the request view: the header, a notice and the footer. */
const REQUEST_CHROME_ROWS = 3;

/** Rows under the main pane: turn info, outcome (3, last turn only), reasoning, notice and keys. */
const MAP_CHROME_ROWS = 11;

export function PlayerScreen({ route }: ScreenProps<'player'>) {
  const theme = useTheme();
  const { help, notice } = useNavigation();
  const actions = useNavigationActions();
  const workspace = useWorkspaceState();
  const { episode, player, dispatch } = usePlayback(workspace, route.episodeId, route.turn);
  const loadedId = episode?.status === 'ready' ? episode.value.episode_id : null;
  const { panel, actions: panelActions } = useDecisionPanel(useServices().decision, loadedId, (source) => actions.open({ screen: 'live', source }));
  const size = useTerminalSize();
  const requestOpen = player.request !== null;
  const turns = episode?.status === 'ready' ? turnsOf(episode.value) : [];
  const turn = turns[Math.min(player.position, turns.length - 1)];
  const requestHeight = size.rows - REQUEST_CHROME_ROWS;
  const lines = useMemo(() => {
    const request = requestOpen && turn ? requestOf(turn) : null;
    return request ? requestLines(request, size.columns - 2) : null;
  }, [requestOpen, turn, size.columns]);

  useScreenKeys(panel ? 'decision.help' : requestOpen ? 'request.help' : 'player.help', (input, key) => {
    if (panel) return onPanelKey(panel, panelActions, input, key);
    if (requestOpen) {
      // The title takes a row; a page keeps one line of the last in view.
      const max = Math.max(0, (lines?.length ?? 0) - (requestHeight - 1));
      const page = Math.max(1, requestHeight - 2);
      const scroll = (by: number) => dispatch({ type: 'scrollRequest', by, max });
      if (matches('request.close', input, key)) return dispatch({ type: 'toggleRequest' });
      if (matches('request.up', input, key)) return scroll(-1);
      if (matches('request.down', input, key)) return scroll(1);
      if (matches('request.pageUp', input, key)) return scroll(-page);
      if (matches('request.pageDown', input, key)) return scroll(page);
      if (matches('request.top', input, key)) return scroll(-max);
      if (matches('request.bottom', input, key)) return scroll(max);
      return;
    }
    if (matches('player.back', input, key)) return actions.back();
    if (matches('player.retry', input, key) || matches('player.fork', input, key)) {
      const problem = decisionTurnProblem(turns, Math.min(player.position, turns.length - 1));
      if (problem) return actions.notify(problem);
      dispatch({ type: 'stopAutoplay' });
      actions.notify(null);
      return panelActions.open(matches('player.retry', input, key) ? 'retry' : 'fork', turn!.turn);
    }
    const hit = KEY_ACTIONS.find(([command]) => matches(command, input, key));
    if (hit) dispatch(hit[1]);
  });

  if (!episode || episode.status === 'loading') return <Text color={theme.muted}>loading the episode…</Text>;
  if (episode.status === 'failed') {
    return (
      <Box flexDirection="column" paddingX={1}>
        <Text color={theme.status.error}>{episode.message}</Text>
        <Footer notice={notice} hints={['player.back']} />
      </Box>
    );
  }
  if (panel) {
    const outcome = isFailed(episode.value) ? null : episode.value.outcome;
    return (
      <Box flexDirection="column" paddingX={1} height="100%">
        <EpisodeHeader episode={episode.value} player={player} />
        {help ? (
          <HelpOverlay title={panel.kind === 'retry' ? 'Retry' : 'Fork'} groups={['decision']} />
        ) : (
          <DecisionPanel panel={panel} outcome={outcome} width={size.columns - 2} height={size.rows - DECISION_CHROME_ROWS} />
        )}
        <Footer notice={notice} hints={panel.kind === 'retry' ? DECISION_HINTS : FORK_HINTS} />
      </Box>
    );
  }
  if (requestOpen) {
    return (
      <Box flexDirection="column" paddingX={1} height="100%">
        <EpisodeHeader episode={episode.value} player={player} />
        {help ? (
          <HelpOverlay title="Request" groups={['request']} />
        ) : (
          <RequestView turn={turn?.turn ?? 0} lines={lines} offset={player.request} height={requestHeight} />
        )}
        <Footer notice={notice} hints={REQUEST_HINTS} />
      </Box>
    );
  }
  return (
    <Box flexDirection="column" paddingX={1} height="100%">
      <EpisodeHeader episode={episode.value} player={player} />
      {help ? <HelpOverlay title="Player" groups={['player']} /> : <EpisodeBody episode={episode.value} player={player} />}
      <Footer notice={notice} hints={HINTS} />
    </Box>
  );
}

/** The panel's keys: Esc always; the form's while it is a form; letters are text except on Start. */
function onPanelKey(panel: DecisionState, actions: DecisionPanelActions, input: string, key: Key): void {
  if (matches('decision.close', input, key)) return actions.close();
  if (panel.phase !== 'editing' && panel.phase !== 'done') return;
  const onStart = panel.focus === startPosition(panel);
  if (matches('decision.next', input, key)) actions.move(1);
  else if (matches('decision.prev', input, key)) actions.move(-1);
  else if (matches('decision.erase', input, key)) actions.erase();
  else if (matches('decision.enter', input, key)) actions.submit();
  else if (onStart && panel.kind === 'fork' && matches('decision.person', input, key)) actions.person();
  // Printable text only: arrows and other named keys arrive with an empty input.
  else if (!onStart && input && !key.ctrl && !key.meta) actions.type(input);
}

function EpisodeHeader({ episode, player }: { episode: CompletedEpisode | FailedEpisode; player: PlayerState }) {
  const turns = turnsOf(episode);
  const turn = turns[player.position];
  const lastTurn = turns[turns.length - 1];
  const task = episode.task;
  const title = [
    `episode ${episode.episode_id.slice(0, 8)}`,
    episode.model_name ?? '?',
    `${task.split}/${task.index}`,
    task.sample ? `sample ${task.sample}` : null,
  ]
    .filter(Boolean)
    .join(' · ');
  const where = turn ? `turn ${turn.turn}/${lastTurn?.turn ?? turn.turn}${player.autoplay ? ' ▶' : ''}` : '';
  return <Header title={<Text bold>{title}</Text>} right={where} />;
}

function EpisodeBody({ episode, player }: { episode: CompletedEpisode | FailedEpisode; player: PlayerState }) {
  const theme = useTheme();
  const turns = turnsOf(episode);
  const position = Math.min(player.position, turns.length - 1);
  const turn = turns[position];
  if (isFailed(episode)) {
    return (
      <Box flexDirection="column" flexGrow={1}>
        <Text color={theme.status.error}>The episode failed: {episode.error}</Text>
        {episode.traceback ? <Text color={theme.muted}>{episode.traceback}</Text> : null}
      </Box>
    );
  }
  if (!turn) return <Text color={theme.muted}>This episode recorded no turns.</Text>;
  const atEnd = player.position >= turns.length - 1;
  return (
    <Box flexDirection="column" flexGrow={1}>
      {player.map ? <MapPane episode={episode} turn={turn} atEnd={atEnd} /> : <ViewPane turns={turns} turn={turn} player={player} />}
      <TurnInfo turn={turn} budget={turnBudget(turns, position, episode.config)} />
      {atEnd ? <OutcomeSummary outcome={episode.outcome} /> : null}
      {atEnd ? <RevealPlaces outcome={episode.outcome} /> : null}
      <ReasoningPane turn={turn} expanded={player.reasoning} />
    </Box>
  );
}

/** The image the model saw beside the turn list (wide), or beside the current turn alone (narrow). */
function ViewPane({ turns, turn, player }: { turns: readonly Turn[]; turn: Turn; player: PlayerState }) {
  const workspace = useWorkspaceState();
  const size = useTerminalSize();
  const cells = imageCells(size, player.imageSize);
  const sha = turn.image_sha256 ?? null;
  const view = workspace?.status === 'ready' ? workspace.value : undefined;
  const bytes = useMemo(() => (sha && view ? view.loadImage(sha) : undefined), [sha, view]);
  // Border (2) and the screen's padding (2) on each pane; the panes are one column apart.
  const sideWidth = size.columns - cells.width - 4 - 4 - 1;
  return (
    <Box flexShrink={0} gap={1}>
      <Panel width={cells.width} height={cells.height}>
        <InlineImage imageKey={sha ?? 'none'} bytes={bytes} width={cells.width} height={cells.height} />
      </Panel>
      {isWide(size) ? (
        <Panel height={cells.height}>
          <TurnList turns={turns} position={player.position} width={sideWidth} height={cells.height} />
        </Panel>
      ) : (
        <TurnDetail turn={turn} width={sideWidth + 2} />
      )}
    </Box>
  );
}

/** The world map with the pins so far; at the end the reveal, fitted to guess and truth. */
function MapPane({ episode, turn, atEnd }: { episode: CompletedEpisode; turn: Turn; atEnd: boolean }) {
  const size = useTerminalSize();
  const pins = (turn.pins ?? []).map(([lat, lon]) => ({ lat, lon }));
  if (atEnd) {
    // The reveal's legend and the places take the rows the world map's borders and more would.
    const rows = size.rows - MAP_CHROME_ROWS - REVEAL_PLACES_ROWS + 2;
    return <RevealMap outcome={episode.outcome} pins={pins} columns={size.columns - 2} rows={rows} />;
  }
  const map = fitMap(size.columns - 4, size.rows - MAP_CHROME_ROWS);
  return (
    <Box flexShrink={0}>
      <Panel width={map.columns} height={map.rows}>
        <WorldMap columns={map.columns} rows={map.rows} pins={pins} />
      </Panel>
    </Box>
  );
}

function ReasoningPane({ turn, expanded }: { turn: Turn; expanded: boolean }) {
  const size = useTerminalSize();
  return (
    <Box flexGrow={1} flexShrink={1} overflow="hidden">
      <Reasoning model={turn.model} turn={turn.turn} expanded={expanded} width={size.columns - 2} />
    </Box>
  );
}
