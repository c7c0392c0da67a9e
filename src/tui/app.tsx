/** The thin root (STYLE.md 1): providers around the one container, which picks the screen. */
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
}

export function App({ services, initialRoute, theme }: AppProps) {
  return (
    <ThemeContext.Provider value={theme}>
      <ServicesContext.Provider value={services}>
        <AppContainer initialRoute={initialRoute} />
      </ServicesContext.Provider>
    </ThemeContext.Provider>
  );
}
