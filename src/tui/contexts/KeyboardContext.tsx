/**
 * One keyboard listener for the whole app, owned by the container; the screen on top hands it its
 * handler while rendering. A listener per screen would subscribe in an effect, after the first
 * frame, and drop keys typed right after a screen change (Home's enter, then enter again at once).
 */
import { createContext, useContext, type RefObject } from 'react';
import type { Key } from 'ink';

export type KeyHandler = (input: string, key: Key) => void;

export const KeyboardContext = createContext<RefObject<KeyHandler | undefined> | undefined>(undefined);

/** Makes `handler` the one that receives keys, from this render on. */
export function useKeyHandler(handler: KeyHandler): void {
  const current = useContext(KeyboardContext);
  if (!current) throw new Error('useKeyHandler must be used inside the AppContainer');
  current.current = handler;
}
