/**
 * The one container (STYLE.md 1): owns navigation, the workspace reads, the Player's stepper and the
 * running live episode; hands their state and actions to the screens through two contexts.
 */
import { Box, useApp } from 'ink';
import { useCallback, useEffect, useMemo, useReducer } from 'react';
import { KeyboardContext } from './contexts/KeyboardContext.js';
import { useServices } from './contexts/ServicesContext.js';
import { UIActionsContext, UIStateContext, type UIActions, type UIState } from './contexts/UIContext.js';
import { useKeys } from './hooks/useKeys.js';
import { useLiveEpisode } from './hooks/useLiveEpisode.js';
import { usePlayback } from './hooks/usePlayback.js';
import { useTerminalSize } from './hooks/useTerminalSize.js';
import { useWatchForm } from './hooks/useWatchForm.js';
import { useEpisodeList, useHomeSummary, useWorkspace } from './hooks/useWorkspace.js';
import { EpisodesScreen, EPISODES_CHROME_ROWS } from './screens/EpisodesScreen.js';
import { HomeScreen } from './screens/HomeScreen.js';
import { LiveScreen } from './screens/LiveScreen.js';
import { PlayerScreen } from './screens/PlayerScreen.js';
import { WatchScreen } from './screens/WatchScreen.js';
import { currentRoute, initialNavigation, navigationReducer, type Route } from './state/navigation.js';

export interface AppContainerProps {
  initialRoute: Route;
  /** Told how many keys the app has taken, each time none is left waiting (tests wait on it). */
  onKeysTaken?: (taken: number) => void;
}

export function AppContainer({ initialRoute, onKeysTaken }: AppContainerProps) {
  const services = useServices();
  const { exit } = useApp();
  const size = useTerminalSize();
  const { keyboard, queue } = useKeys();
  const [navigation, navigate] = useReducer(navigationReducer, initialRoute, initialNavigation);
  const route = currentRoute(navigation);

  const workspace = useWorkspace(services.openWorkspace);
  const home = useHomeSummary(workspace, route?.screen === 'home' ? route : null);
  const episodes = useEpisodeList(workspace, route?.screen === 'episodes' ? route : null, size.rows - EPISODES_CHROME_ROWS);
  const playback = usePlayback(workspace, route?.screen === 'player' ? route.episodeId : null);
  const notify = useCallback((message: string | null) => navigate({ type: 'notice', message }), []);
  const live = useLiveEpisode(route?.screen === 'live' ? route.source : null, services.runEpisode, notify);
  const watchForm = useWatchForm(services.watch, route?.screen === 'watch', (source, notice) => {
    navigate({ type: 'open', route: { screen: 'live', source } });
    if (notice) notify(notice);
  });

  useEffect(() => {
    if (!route) exit();
  }, [route, exit]);
  useEffect(() => {
    if (!queue.pending.length) onKeysTaken?.(queue.taken);
  }, [queue, onKeysTaken]);

  const { newPlay, watch } = services;
  const actions = useMemo<UIActions>(
    () => ({
      open: (next) => navigate({ type: 'open', route: next }),
      back: () => navigate({ type: 'back' }),
      toggleHelp: () => navigate({ type: 'toggleHelp' }),
      notify,
      player: playback.dispatch,
      episodes: episodes.actions,
      live: live.actions,
      play: newPlay && (() => navigate({ type: 'open', route: { screen: 'live', source: newPlay() } })),
      watchForm: watchForm.actions,
      watch: watch && (() => navigate({ type: 'open', route: { screen: 'watch' } })),
    }),
    [notify, playback.dispatch, episodes.actions, live.actions, watchForm.actions, newPlay, watch],
  );

  if (!route) return null;
  const state: UIState = {
    route,
    help: navigation.help,
    notice: navigation.notice,
    workspace,
    home,
    episodes: episodes.state,
    episode: playback.episode,
    player: playback.player,
    live: live.state,
    watchForm: watchForm.state,
  };
  return (
    <UIStateContext.Provider value={state}>
      <UIActionsContext.Provider value={actions}>
        <KeyboardContext.Provider value={keyboard}>
          {/* One row short of the terminal: a frame as tall as the screen makes Ink clear it on every redraw. */}
          <Box width={size.columns} height={size.rows - 1} flexDirection="column">
            <Screen route={route} />
          </Box>
        </KeyboardContext.Provider>
      </UIActionsContext.Provider>
    </UIStateContext.Provider>
  );
}

function Screen({ route }: { route: Route }) {
  switch (route.screen) {
    case 'home':
      return <HomeScreen />;
    case 'episodes':
      return <EpisodesScreen />;
    case 'player':
      return <PlayerScreen />;
    case 'live':
      return <LiveScreen />;
    case 'watch':
      return <WatchScreen />;
  }
}
