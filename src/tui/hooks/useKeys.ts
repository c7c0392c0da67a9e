/**
 * The app's keyboard: one listener for the app's lifetime, and a queue of the keys it heard. Ink's
 * useInput turns on raw mode, which throws when stdin is not a terminal; the listener is then
 * simply off, so the app can still render.
 */
import { useInput, useStdin, type Key } from 'ink';
import { useCallback, useMemo, useReducer } from 'react';

export interface Press {
  input: string;
  key: Key;
}

/**
 * Keys wait here until the screen on top takes them, one per commit: a key is handed over only
 * after the render of everything the key before it did, so each applies to the state its
 * predecessor produced, whether they came one by one, in one write (a paste, typing faster than
 * a redraw) or while the screen asked to hold them (a person's step with the environment).
 */
export interface KeyQueue {
  readonly pending: readonly Press[];
  /** Keys taken so far: a count that only grows, for whoever waits on the queue to drain. */
  readonly taken: number;
}

export type KeyQueueAction = { type: 'pressed'; presses: readonly Press[] } | { type: 'taken' };

export const EMPTY_KEY_QUEUE: KeyQueue = { pending: [], taken: 0 };

export function keyQueueReducer(queue: KeyQueue, action: KeyQueueAction): KeyQueue {
  switch (action.type) {
    case 'pressed':
      return action.presses.length ? { ...queue, pending: [...queue.pending, ...action.presses] } : queue;
    case 'taken':
      return queue.pending.length ? { pending: queue.pending.slice(1), taken: queue.taken + 1 } : queue;
  }
}

export interface Keyboard {
  /** The oldest key not yet taken. */
  readonly next: Press | undefined;
  /** Removes `next`; the screen handles it in the same batch, so the two render together. */
  take(): void;
}

export function useKeys(): { keyboard: Keyboard; queue: KeyQueue } {
  const { isRawModeSupported } = useStdin();
  const [queue, dispatch] = useReducer(keyQueueReducer, EMPTY_KEY_QUEUE);
  const listener = useCallback((input: string, key: Key) => dispatch({ type: 'pressed', presses: pressesOf(input, key) }), []);
  useInput(listener, { isActive: isRawModeSupported });
  const take = useCallback(() => dispatch({ type: 'taken' }), []);
  const next = queue.pending[0];
  const keyboard = useMemo(() => ({ next, take }), [next, take]);
  return { keyboard, queue };
}

/**
 * The keys of one report of Ink's. Ink hands over escape sequences one by one, but a run of text
 * typed or pasted at once ("47.1\r") as one input: that is one key per character. A lone "\n" is
 * an enter too: the terminal turns enter into one while it is not yet in raw mode (a key pressed
 * the instant the first frame is up), and Ink reports it as text.
 */
export function pressesOf(input: string, key: Key): Press[] {
  const chars = [...input];
  return chars.length > 1 || input === '\n' ? chars.map((char) => pressOf(char, key)) : [{ input, key }];
}

/**
 * One character of a run Ink reported as a single text input, as the key Ink reports when that
 * character comes alone: enter, tab, backspace (DEL is Ink's `delete`) and ctrl+letter are keys,
 * not text.
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
