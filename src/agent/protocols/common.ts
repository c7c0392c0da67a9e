/**
 * What both agent protocols share (docs/protocol.md): the harness form of actions, the harness's own budget
 * wording, argument coercion and checks.
 * Pure functions over plain data.
 */
import { parseGuess } from '../../core/parse-guess.js';
import { toNumber } from '../../core/values.js';
import { parseAction, type ParsedAction } from '../../env/actions.js';
import { EnvError, type Action } from '../../env/types.js';
import type { HarnessAction } from '../types.js';

/** `{op: 'look', heading_deg: 90}` -> `{action: 'look', heading_deg: 90}` (the record's form). */
export function toHarnessAction(action: Action): HarnessAction {
  const { op, ...fields } = action;
  return { action: op, ...fields };
}

/** `look(heading_deg=90, fov_deg=60)`: one line for transcripts and headless output. */
export function formatAction(action: HarnessAction): string {
  const { action: name, ...fields } = action;
  const args = Object.entries(fields)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `${key}=${typeof value === 'string' ? JSON.stringify(value) : String(value)}`);
  return `${name}(${args.join(', ')})`;
}

/**
 * The harness's count after a turn, in the protocol's unit ("tool call" or "turn"). At one left the
 * wording is loud on purpose: models trained on this budget learnt to guess when they see it.
 */
export function budgetSentence(left: number, unit: 'tool call' | 'turn'): string {
  if (left <= 0) return `No ${unit}s left.`;
  if (left === 1) return `1 ${unit} left: THIS IS YOUR FINAL ACTION. Guess now, or the episode scores 0.`;
  return `${left} ${unit}s left.`;
}

/** Every value that holds a number-like string becomes that number; the rest is left alone. */
export function coerceNumbers(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(fields).map(([key, value]) => [key, typeof value === 'string' && toNumber(value) !== undefined ? toNumber(value) : value]),
  );
}

export type Checked = { ok: true; action: ParsedAction } | { ok: false; note: string };

/** The environment's own validator, run before anything is sent, so a bad call costs no env step. */
export function checkAction(raw: Record<string, unknown>): Checked {
  try {
    return { ok: true, action: parseAction(raw) };
  } catch (err) {
    if (err instanceof EnvError) return { ok: false, note: err.message };
    throw err;
  }
}

/** Whether a decision at the turn limit holds coordinates the environment can score. */
export function isUsableGuess(action: Action | null | undefined): boolean {
  if (!action || action.op !== 'guess') return false;
  if (action.lat !== undefined && action.lon !== undefined) return true;
  return action.response !== undefined && parseGuess(action.response).ok;
}

