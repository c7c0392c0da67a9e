/**
 * One keyboard for the whole app, owned by the container; the screen on top takes its keys. A
 * listener per screen would subscribe after the screen's first frame and drop keys typed right
 * after a screen change (Home's enter, then enter again at once): queued, they wait for it instead.
 */
import { createContext, useContext, useEffect, useEffectEvent, useLayoutEffect } from 'react';
import type { Key } from 'ink';
import type { Keyboard } from '../hooks/useKeys.js';

export type KeyHandler = (input: string, key: Key) => void;

export const KeyboardContext = createContext<Keyboard | undefined>(undefined);

export interface KeyHandlerOptions {
  /** Only the screen on top takes keys; one covered by another leaves them queued. */
  active: boolean;
  /** Leaves keys queued while set (busy with what the last key started), handing them over after. */
  hold?: boolean;
}

/**
 * Makes `handler` the one that takes keys while `active`, from this commit on: each key after the
 * render of what the one before did, so the handler always sees the state its predecessor produced.
 */
export function useKeyHandler(handler: KeyHandler, { active, hold = false }: KeyHandlerOptions): void {
  const keyboard = useContext(KeyboardContext);
  if (!keyboard) throw new Error('useKeyHandler must be used inside the AppContainer');
  const { register, pump } = keyboard;
  const handle = useEffectEvent(handler);
  useLayoutEffect(() => {
    if (!active) return;
    register({ handle, hold });
    return () => register(null);
  });
  // Keys that waited for this screen (opened by one of them) or for it to stop holding them.
  useEffect(() => {
    if (active && !hold) pump();
  }, [active, hold, pump]);
}
