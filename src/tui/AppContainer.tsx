/**
 * The one container (docs/tui.md, 'One container'): owns navigation, the workspace and the keyboard, and draws the
 * stack of screens, each with its own state (its module's hook). Only the screen on top shows and
 * takes keys; one covered by another keeps its state (the list's cursor, the form's fields).
 */
import { Box, useApp } from 'ink';
import { memo, Suspense, useEffect, useMemo, useReducer, type ComponentType } from 'react';
import { KeyboardContext } from './contexts/KeyboardContext.js';
import { NavigationActionsContext, NavigationStateContext, ScreenActiveContext, type NavigationActions } from './contexts/NavigationContext.js';
import { useServices } from './contexts/ServicesContext.js';
import { WorkspaceContext } from './contexts/WorkspaceContext.js';
import { useKeys } from './hooks/useKeys.js';
import { useTerminalSize } from './hooks/useTerminalSize.js';
import { useWorkspace } from './hooks/useWorkspace.js';
import { screenOf } from './screens.js';
import { initialNavigation, navigationReducer, type Route } from './state/navigation.js';

export interface AppContainerProps {
  initialRoute: Route;
  /** Told how many keys the app has taken, each time none is left waiting (tests wait on it). */
  onKeysTaken?: (taken: number) => void;
}

export function AppContainer({ initialRoute, onKeysTaken }: AppContainerProps) {
  const services = useServices();
  const { exit } = useApp();
  const size = useTerminalSize();
  const keyboard = useKeys(onKeysTaken);
  const [navigation, navigate] = useReducer(navigationReducer, initialRoute, initialNavigation);
  const workspace = useWorkspace(services.openWorkspace);
  const { stack, help, notice } = navigation;

  useEffect(() => {
    if (!stack.length) exit();
  }, [stack.length, exit]);

  const view = useMemo(() => ({ help, notice }), [help, notice]);
  const actions = useMemo<NavigationActions>(
    () => ({
      open: (route) => navigate({ type: 'open', route }),
      back: () => navigate({ type: 'back' }),
      toggleHelp: () => navigate({ type: 'toggleHelp' }),
      notify: (message) => navigate({ type: 'notice', message }),
    }),
    [],
  );

  if (!stack.length) return null;
  return (
    <NavigationStateContext.Provider value={view}>
      <NavigationActionsContext.Provider value={actions}>
        <WorkspaceContext.Provider value={workspace}>
          <KeyboardContext.Provider value={keyboard}>
            {stack.map(({ key, route }, i) => {
              const active = i === stack.length - 1;
              return (
                <ScreenActiveContext.Provider key={key} value={active}>
                  <StackedScreen route={route} active={active} columns={size.columns} rows={size.rows} />
                </ScreenActiveContext.Provider>
              );
            })}
          </KeyboardContext.Provider>
        </WorkspaceContext.Provider>
      </NavigationActionsContext.Provider>
    </NavigationStateContext.Provider>
  );
}

/** Memoised: the container's own renders (a key handled) redraw no screen; their own state does. */
const StackedScreen = memo(function StackedScreen({ route, active, columns, rows }: { route: Route; active: boolean; columns: number; rows: number }) {
  const Screen = screenOf(route) as ComponentType<{ route: Route }>;
  return (
    // One row short of the terminal: a frame as tall as the screen makes Ink clear it on every redraw.
    <Box display={active ? 'flex' : 'none'} width={columns} height={rows - 1} flexDirection="column">
      <Suspense fallback={null}>
        <Screen route={route} />
      </Suspense>
    </Box>
  );
});
