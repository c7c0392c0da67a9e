import { createContext, useContext } from 'react';
import type { Theme } from '../theme.js';

export const ThemeContext = createContext<Theme | undefined>(undefined);

export function useTheme(): Theme {
  const theme = useContext(ThemeContext);
  if (!theme) throw new Error('useTheme must be used inside <ThemeContext.Provider>');
  return theme;
}
