/**
 * The app's keyboard: one listener for the app's lifetime, and a queue of the keys it heard. Ink's
 * useInput turns on raw mode, which throws when stdin is not a terminal; the listener is then
 * simply off, so the app can still render.
 */
import { useInput, useStdin, type Key } from 'ink';
import { useCallback, useEffect, useMemo, useReducer, useRef } from 'react';

export interface Press {
  input: string;
  key: Key;
}

/**
 * Keys wait here while a key before them is in flight: handed to the screen on top, with the
 * render of what it did not yet committed. Each key is handed over only after that render, so
 * each applies to the state its predecessor produced, whether they came one by one, in one write
 * (a paste, typing faster than a redraw) or while the screen asked to hold them (a person's step
 * with the environment). A key alone is handled at once: one render per key.
 */
export interface Keyboard {
  /** The screen on top hands over its handler after each of its commits; null: none takes keys. */
  register(taker: KeyTaker | null): void;
  /** Hands over waiting keys, if the screen takes them now (it stopped holding them). */
  pump(): void;
}

export interface KeyTaker {
  handle(input: string, key: Key): void;
  hold: boolean;
}

export function useKeys(onKeysTaken?: (taken: number) => void): Keyboard {
  const { isRawModeSupported } = useStdin();
  // Bumped with every key handled, in the same batch as what the key did: its commit is the signal.
  const [taken, bump] = useReducer((n: number) => n + 1, 0);
  const queue = useRef<Press[]>([]);
  const taker = useRef<KeyTaker | null>(null);
  const inFlight = useRef(false);
  const pump = useCallback(() => {
    const current = taker.current;
    if (inFlight.current || !current || current.hold) return;
    const press = queue.current.shift();
    if (!press) return;
    inFlight.current = true;
    current.handle(press.input, press.key);
    bump();
  }, []);
  const listener = useCallback(
    (input: string, key: Key) => {
      queue.current.push(...pressesOf(input, key));
      pump();
    },
    [pump],
  );
  useInput(listener, { isActive: isRawModeSupported });
  useEffect(() => {
    inFlight.current = false;
    pump();
    if (!inFlight.current && !queue.current.length) onKeysTaken?.(taken);
  }, [taken, pump, onKeysTaken]);
  return useMemo(() => ({ register: (next) => void (taker.current = next), pump }), [pump]);
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
