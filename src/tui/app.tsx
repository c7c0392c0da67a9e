/** The thin root (docs/tui.md, 'One container'): providers around the one container, which picks the screen. */
import { AppContainer } from './AppContainer.js';
import { ServicesContext } from './contexts/ServicesContext.js';
import { ThemeContext } from './contexts/ThemeContext.js';
import type { TuiServices } from './services.js';
import type { Route } from './state/navigation.js';
import type { Theme } from './theme.js';

export interface AppProps {
  services: TuiServices;
  initialRoute: Route;
  theme: Theme;
  /** Told how many keys the app has taken, each time none is left waiting (tests wait on it). */
  onKeysTaken?: (taken: number) => void;
}

export function App({ services, initialRoute, theme, onKeysTaken }: AppProps) {
  return (
    <ThemeContext.Provider value={theme}>
      <ServicesContext.Provider value={services}>
        <AppContainer initialRoute={initialRoute} onKeysTaken={onKeysTaken} />
      </ServicesContext.Provider>
    </ThemeContext.Provider>
  );
}
