/**
 * A screen's keys, with the help overlay handled once for all screens: while it is open, its own
 * key or esc closes it and every other key is swallowed (nothing happens behind the overlay).
 * A screen passes no help command while a prompt takes the keys, so that `?` can be typed.
 */
import type { Key } from 'ink';
import { useKeyHandler } from '../contexts/KeyboardContext.js';
import { useNavigation, useNavigationActions, useScreenActive } from '../contexts/NavigationContext.js';
import { matches, type Command } from '../keys.js';

export interface ScreenKeyOptions {
  /** Keys wait while set: the screen is busy with what the last key started. */
  hold?: boolean;
}

export function useScreenKeys(helpCommand: Command | null, handler: (input: string, key: Key) => void, { hold }: ScreenKeyOptions = {}): void {
  const { help } = useNavigation();
  const { toggleHelp } = useNavigationActions();
  const active = useScreenActive();
  useKeyHandler(
    (input, key) => {
      const isHelp = helpCommand !== null && matches(helpCommand, input, key);
      if (help) {
        if (isHelp || key.escape) toggleHelp();
        return;
      }
      if (isHelp) return toggleHelp();
      handler(input, key);
    },
    { active, hold },
  );
}
