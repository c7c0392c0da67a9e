import { Box, Text, type Key } from 'ink';
import { isFailed, type CompletedEpisode } from '../../core/episode.js';
import { CoordinatePrompt } from '../components/CoordinatePrompt.js';
import { Footer } from '../components/Footer.js';
import { Header } from '../components/Header.js';
import { HelpOverlay } from '../components/HelpOverlay.js';
import { InlineImage } from '../components/InlineImage.js';
import { OutcomeSummary } from '../components/OutcomeSummary.js';
import { Panel } from '../components/Panel.js';
import { Reasoning } from '../components/Reasoning.js';
import { Spinner } from '../components/Spinner.js';
import { TurnDetail } from '../components/TurnDetail.js';
import { TurnInfo } from '../components/TurnInfo.js';
import { TurnList } from '../components/TurnList.js';
import { RevealMap, RevealPlaces, REVEAL_PLACES_ROWS } from '../components/Reveal.js';
import { useNavigation, useNavigationActions, type NavigationActions } from '../contexts/NavigationContext.js';
import { useServices } from '../contexts/ServicesContext.js';
import { useTheme } from '../contexts/ThemeContext.js';
import { useLiveEpisode, type LiveActions } from '../hooks/useLiveEpisode.js';
import { useScreenKeys } from '../hooks/useScreenKeys.js';
import { useTerminalSize } from '../hooks/useTerminalSize.js';
import { isWide, liveImageCells } from '../layout.js';
import { formatCost } from '../format.js';
import { KEYMAP, keyLabel, matches, type Command, type HintItem } from '../keys.js';
import { personMove } from '../live/person.js';
import type { ScreenProps } from '../screens.js';
import { hasReveal, isOver, liveTurnBudget, otherPane, type LivePane, type LiveState } from '../state/live.js';

const PERSON_COMMANDS = (Object.keys(KEYMAP) as Command[]).filter((c) => c.startsWith('person.'));

// Most needed first: a narrow footer leaves out what does not fit from the end (help has them all).
const PERSON_HINTS: HintItem[] = [
  { commands: ['person.panLeft', 'person.panRight'], label: 'pan' },
  { commands: ['person.forward', 'person.backward'], label: 'walk' },
  { commands: ['person.pin'], label: 'pin' },
  { commands: ['person.guess'], label: 'guess' },
  { commands: ['person.zoom'], label: 'zoom' },
  { commands: ['person.map'], label: 'map' },
  { commands: ['live.pane'], label: 'view/map' },
  { commands: ['person.look'], label: 'look' },
  { commands: ['live.help'], label: 'help' },
  { commands: ['live.quit'], label: 'quit' },
];

const MODEL_HINTS: HintItem[] = [
  { commands: ['model.pause'], label: 'pause' },
  { commands: ['model.step'], label: 'next' },
  { commands: ['model.abort'], label: 'abort' },
  { commands: ['live.reasoning'], label: 'reasoning' },
  { commands: ['live.help'], label: 'help' },
  { commands: ['live.quit'], label: 'quit' },
];

/** The same keys while paused, where the pause key resumes. */
const PAUSED_HINTS: HintItem[] = [{ commands: ['model.pause'], label: 'resume' }, ...MODEL_HINTS.slice(1)];

const OVER_HINTS: HintItem[] = [
  { commands: ['live.pane'], label: 'view/reveal' },
  { commands: ['reveal.earlier', 'reveal.later'], label: 'turns' },
  { commands: ['live.reasoning'], label: 'reasoning' },
  { commands: ['live.help'], label: 'help' },
  { commands: ['live.quit'], label: 'leave' },
];

/** Rows the finished status takes beyond its one line: the outcome's two more and the places. */
const REVEAL_STATUS_ROWS = 2 + REVEAL_PLACES_ROWS;

/** Rows besides the map: header, borders, turn info, status, pane caption, prompt, notice, keys. */
const MAP_CHROME_ROWS = 12;

export function LiveScreen({ route }: ScreenProps<'live'>) {
  const { help, notice } = useNavigation();
  const navigation = useNavigationActions();
  const { state: live, actions } = useLiveEpisode(route.source, useServices().runEpisode, navigation.notify);
  // A person's keys wait while the environment plays the last one: each pan turns from where the last left the camera.
  const busy = live.driver === 'person' && (live.phase.kind === 'starting' || live.phase.kind === 'stepping');
  useScreenKeys('live.help', (input, key) => onKey(live, actions, navigation, input, key), { hold: busy });

  const who = route.source.who;
  const task = live.split !== null ? `${live.split}/${live.index}` : 'starting';
  const observation = live.observation;
  return (
    <Box flexDirection="column" paddingX={1} height="100%">
      <Header
        title={<Text bold>{`LIVE · ${who} · ${task} · ${live.turns.length} action${live.turns.length === 1 ? '' : 's'}`}</Text>}
        right={observation ? `steps left ${observation.steps_remaining} · cost ${formatCost(observation.action_cost)}` : ''}
      />
      {help ? (
        <HelpOverlay title={live.driver === 'person' ? 'Play' : 'Watch'} groups={isOver(live) ? ['reveal', 'live'] : [live.driver, 'live']} />
      ) : (
        <Box flexDirection="column" flexGrow={1}>
          {live.reasoning ? (
            <ReasoningPane live={live} />
          ) : live.phase.kind === 'finished' && !isFailed(live.phase.record) && live.pane === 'map' ? (
            <RevealPane record={live.phase.record} />
          ) : (
            <ViewPane live={live} />
          )}
          <PaneCaption live={live} />
          {live.turns.length ? <LiveTurnInfo live={live} /> : null}
          <Status live={live} />
        </Box>
      )}
      {live.prompt ? <CoordinatePrompt prompt={live.prompt} /> : null}
      {live.confirmQuit ? <ConfirmQuit /> : null}
      <Footer notice={notice} hints={isOver(live) ? OVER_HINTS : live.driver === 'person' ? PERSON_HINTS : live.paused ? PAUSED_HINTS : MODEL_HINTS} />
    </Box>
  );
}

function onKey(live: LiveState, actions: LiveActions, navigation: NavigationActions, input: string, key: Key): void {
  if (live.confirmQuit) {
    if (matches('confirm.yes', input, key)) navigation.back();
    else if (matches('confirm.no', input, key)) actions.cancelQuit();
    return;
  }
  if (live.prompt) {
    if (matches('prompt.submit', input, key)) actions.submitPrompt();
    else if (matches('prompt.cancel', input, key)) actions.closePrompt();
    else if (matches('prompt.erase', input, key)) actions.erasePrompt();
    // Printable text only: arrows and other named keys arrive with an empty input.
    else if (input && !key.ctrl && !key.meta) actions.typePrompt(input);
    return;
  }
  if (matches('live.quit', input, key)) return isOver(live) ? navigation.back() : actions.askQuit();
  if (matches('live.pane', input, key)) {
    return otherPane(live) || live.reasoning ? actions.switchPane() : navigation.notify(`No map yet: ${keyLabel('person.pin')} places a pin, which draws one.`);
  }
  if (matches('live.reasoning', input, key)) {
    return live.turns.length ? actions.toggleReasoning() : navigation.notify('No turn yet: the reasoning shows once the first turn is played.');
  }
  if (isOver(live)) {
    if (matches('reveal.earlier', input, key)) actions.review(-1);
    else if (matches('reveal.later', input, key)) actions.review(1);
    return;
  }
  if (live.driver === 'model') {
    if (matches('model.pause', input, key)) actions.togglePause();
    else if (matches('model.step', input, key)) actions.step();
    else if (matches('model.abort', input, key)) actions.abort();
    return;
  }
  const command = PERSON_COMMANDS.find((c) => matches(c, input, key));
  const move = command && personMove(command, live.observation);
  if (!move) return;
  if (move.kind === 'act') actions.act(move.action);
  else if (move.kind === 'prompt') actions.openPrompt(move.purpose);
  else navigation.notify(move.message);
}

/** The terminal size the view pane is drawn in, and its image's cells. */
function useViewCells(live: LiveState) {
  const terminal = useTerminalSize();
  // The pane caption's row always, so the image keeps its size when a map arrives; after the
  // guess, the outcome and the places too.
  const size = { ...terminal, rows: terminal.rows - 1 - (hasReveal(live) ? REVEAL_STATUS_ROWS : 0) };
  return { size, cells: liveImageCells(size) };
}

/** The current view beside the turns so far (wide), or beside the last turn alone (narrow). */
function ViewPane({ live }: { live: LiveState }) {
  const theme = useTheme();
  const { size, cells } = useViewCells(live);
  const sideWidth = size.columns - cells.width - 4 - 4 - 1;
  const position = live.reviewed ?? live.turns.length - 1;
  const last = live.turns[position];
  const image = live.pane === 'map' ? live.map : live.view;
  // Before the first turn, what the environment said at the reset.
  const opening = <Text color={theme.muted}>{live.observation?.feedback ?? ''}</Text>;
  return (
    <Box flexShrink={0} gap={1}>
      <Panel width={cells.width} height={cells.height}>
        <InlineImage imageKey={image?.key ?? 'none'} bytes={image?.bytes} width={cells.width} height={cells.height} />
      </Panel>
      {isWide(size) ? (
        <Panel height={cells.height}>
          {last ? <TurnList turns={live.turns} position={position} width={sideWidth} height={cells.height} /> : opening}
        </Panel>
      ) : last ? (
        <TurnDetail turn={last} width={sideWidth + 2} />
      ) : (
        opening
      )}
    </Box>
  );
}

/** `r`: the reasoning and reply of the turn shown, in full, as the Player shows them, in the view's place. */
function ReasoningPane({ live }: { live: LiveState }) {
  const { size, cells } = useViewCells(live);
  const turn = live.turns[live.reviewed ?? live.turns.length - 1];
  if (!turn) return null;
  // The pane's border (2) and the screen's padding (2).
  const width = size.columns - 4;
  return (
    <Panel height={cells.height}>
      <Box height={cells.height} overflow="hidden" flexDirection="column">
        <Reasoning model={turn.model} turn={turn.turn} expanded width={width} command="live.reasoning" />
      </Box>
    </Panel>
  );
}

function LiveTurnInfo({ live }: { live: LiveState }) {
  const position = live.reviewed ?? live.turns.length - 1;
  return <TurnInfo turn={live.turns[position]!} budget={liveTurnBudget(live, position)} />;
}

/** After the guess: the map fitted to guess and truth, with the pins of the last turn. */
function RevealPane({ record }: { record: CompletedEpisode }) {
  const size = useTerminalSize();
  const pins = (record.turns?.[record.turns.length - 1]?.pins ?? []).map(([lat, lon]) => ({ lat, lon }));
  return <RevealMap outcome={record.outcome} pins={pins} columns={size.columns - 2} rows={size.rows - MAP_CHROME_ROWS - REVEAL_PLACES_ROWS + 2} />;
}

/** Which pane is up and what `m` brings instead, once there are two to choose from; or whose reasoning is up. */
function PaneCaption({ live }: { live: LiveState }) {
  const theme = useTheme();
  const other = otherPane(live);
  const reveal = hasReveal(live);
  const name = (pane: LivePane) => (pane === 'view' ? 'the last view' : reveal ? 'the reveal' : 'the map around the pin');
  const shown = live.turns[live.reviewed ?? live.turns.length - 1];
  if (live.reasoning && shown) {
    return (
      <Text color={theme.muted} wrap="truncate-end">
        {`Showing the reasoning of turn ${shown.turn} · ${keyLabel('live.reasoning')} shows ${name(live.pane)}`}
      </Text>
    );
  }
  if (!other) return null;
  return (
    <Text color={theme.muted} wrap="truncate-end">
      {`Showing ${name(live.pane)} · ${keyLabel('live.pane')} shows ${name(other)}`}
      {isOver(live) ? ` · ${keyLabel('reveal.earlier')} ${keyLabel('reveal.later')} read the turns again` : ' (no step, costs nothing)'}
    </Text>
  );
}

function Status({ live }: { live: LiveState }) {
  const theme = useTheme();
  const phase = live.phase;
  switch (phase.kind) {
    case 'starting':
      return <Spinner label="starting the episode" />;
    case 'deciding':
      if (live.driver === 'person' && live.forced) {
        return <Text color={theme.status.warn}>Last turn: only a guess counts now ({keyLabel('person.guess')}).</Text>;
      }
      if (live.driver === 'person') return <Text color={theme.status.ok}>Your move: turn {phase.turn}.</Text>;
      if (live.held) {
        return (
          <Text color={theme.status.warn}>
            ⏸ paused before turn {phase.turn}: {keyLabel('model.step')} plays one step, {keyLabel('model.pause')} resumes
          </Text>
        );
      }
      return <Spinner label={`${live.paused ? 'finishing' : 'thinking about'} turn ${phase.turn}`} since={phase.since} />;
    case 'stepping':
      return <Spinner label={`playing turn ${phase.turn}`} />;
    case 'finished':
      return isFailed(phase.record) ? (
        <Text color={theme.status.error}>The episode failed: {phase.record.error}</Text>
      ) : (
        <>
          <OutcomeSummary outcome={phase.record.outcome} />
          <RevealPlaces outcome={phase.record.outcome} />
        </>
      );
    case 'aborted':
      return <Text color={theme.status.warn}>Aborted. {keyLabel('live.quit')} leaves.</Text>;
    case 'failed':
      return <Text color={theme.status.error}>The episode stopped: {phase.message}</Text>;
  }
}

function ConfirmQuit() {
  const theme = useTheme();
  return (
    <Text color={theme.status.warn} bold>
      Quit and abandon this episode? {keyLabel('confirm.yes')} quits · {keyLabel('confirm.no')} stays
    </Text>
  );
}
