/**
 * What both agent protocols share (docs/protocol.md): the harness form of actions, the harness's own budget
 * wording, argument coercion, and the points an agent chose itself (which the leak guard lets pass).
 * Pure functions over plain data.
 */
import type { LatLon } from '../../core/geodesy.js';
import { parseGuess } from '../../core/parse-guess.js';
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
 * The environment's budget sentence ("23 actions left."). A harness tells the model one budget only,
 * its own (docs/protocol.md, docs/training.md), so this is cut from every feedback before the model sees it.
 */
const ENV_BUDGET = /\s*\b\d+ actions? left\./g;

export function withoutEnvBudget(feedback: string): string {
  return feedback.replace(ENV_BUDGET, '').trim();
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

/** A number, or a string holding one ("90", " -12.5 "): models quote numbers often enough. */
export function toNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && value.trim() !== '') {
    const parsed = Number(value.trim());
    return Number.isFinite(parsed) ? parsed : undefined;
  }
  return undefined;
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

/** The points an action names: the agent's own, so their echo in feedback is not a leak (docs/audit.md item 2). */
export function pointsOfAction(action: Record<string, unknown> | null | undefined): LatLon[] {
  if (!action) return [];
  const points: LatLon[] = [];
  for (const [latKey, lonKey] of [
    ['lat', 'lon'],
    ['lat_a', 'lon_a'],
    ['lat_b', 'lon_b'],
  ] as const) {
    const lat = toNumber(action[latKey]);
    const lon = toNumber(action[lonKey]);
    if (lat !== undefined && lon !== undefined) points.push({ lat, lon });
  }
  return points;
}
