/**
 * The app's keyboard listener. Ink's useInput turns on raw mode, which throws when stdin is not a
 * terminal; the listener is then simply off, so the app can still render.
 */
import { useInput, useStdin, type Key } from 'ink';
import { useMemo, useRef, type RefObject } from 'react';
import type { KeyHandler } from '../contexts/KeyboardContext.js';

/** Turns of the event loop a key's render is awaited (React's task comes within two). */
const RENDER_TURNS = 4;

export interface Press {
  input: string;
  key: Key;
}

/**
 * Listens once for the app's lifetime and calls whichever handler the ref holds at each key.
 * Keys that arrive together (a paste, several keys in one write, or typing faster than a redraw)
 * are queued and played one at a time, each after the render of the one before, so that "?q"
 * closes the help and then quits, an enter typed behind "47.1, 10.2" comes after the last digit,
 * and an enter behind two down arrows opens the item they moved to.
 *
 * Ink hands over the keys of one read one after the other, and React renders the state a key set
 * only in a task it schedules (from a microtask, so after an immediate queued by the key itself):
 * a screen's handler would see none of the state the keys before it set. A key that renders hands
 * over a new handler, and React's task runs within the next turns of the event loop; a key that
 * changes nothing renders nothing, so after a few turns the next key goes anyway.
 */
export function useKeys(): RefObject<KeyHandler | undefined> {
  const { isRawModeSupported } = useStdin();
  const handler = useRef<KeyHandler | undefined>(undefined);
  const listener = useMemo(() => {
    const pending: Press[] = [];
    /** A key was played and the render it causes is awaited: keys arriving now wait their turn. */
    let settling = false;
    const play = () => {
      const press = pending.shift();
      settling = press !== undefined;
      if (!press) return;
      const before = handler.current;
      before?.(press.input, press.key);
      let turns = 0;
      const next = () => (handler.current !== before || ++turns >= RENDER_TURNS ? play() : setImmediate(next));
      setImmediate(next);
    };
    return (input: string, key: Key) => {
      const chars = [...input];
      // A lone "\n" is an enter too: the terminal turns enter into one while it is not yet in raw
      // mode (a key pressed the instant the first frame is up), and Ink reports it as text.
      pending.push(...(chars.length > 1 || input === '\n' ? chars.map((char) => pressOf(char, key)) : [{ input, key }]));
      if (!settling) play();
    };
  }, []);
  useInput(listener, { isActive: isRawModeSupported });
  return handler;
}

/**
 * One character of a run Ink reported as a single text input ("47.1\r" typed or pasted at once),
 * as the key Ink reports when that character comes alone: enter, tab, backspace (DEL is Ink's
 * `delete`) and ctrl+letter are keys, not text.
 */
export function pressOf(char: string, key: Key): Press {
  const plain: Key = { ...key, return: false, tab: false, backspace: false, delete: false, ctrl: false };
  const code = char.charCodeAt(0);
  if (char === '\r' || char === '\n') return { input: '', key: { ...plain, return: true } };
  if (char === '\t') return { input: '', key: { ...plain, tab: true } };
  if (char === '\x7f') return { input: '', key: { ...plain, delete: true } };
  if (char === '\b') return { input: '', key: { ...plain, backspace: true } };
  if (code >= 1 && code <= 26) return { input: String.fromCharCode(code + 96), key: { ...plain, ctrl: true } };
  return { input: char, key: plain };
}
