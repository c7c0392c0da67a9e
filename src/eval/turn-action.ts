/**
 * The action the environment executed on a recorded turn, defaults filled in: geolab's
 * `wire_action`, else the harness's `action` read as a wire action (the harness's own records keep
 * no other). Read by the comparison and the replay alike.
 */
import type { Turn } from '../core/episode.js';
import { isRecord } from '../core/values.js';
import { parseAction, type ParsedAction } from '../env/actions.js';

export type TurnAction = { ok: true; action: ParsedAction } | { ok: false; reason: string };

export function executedAction(turn: Turn): TurnAction {
  // Such a turn executed nothing, whatever it recorded as sent (geolab keeps a refused wire action).
  if (turn.status === 'unparseable' || turn.status === 'provider_error') return { ok: false, reason: `the turn executed no action (${turn.status})` };
  let raw: unknown = turn.wire_action;
  if (!isRecord(raw)) {
    const harness = turn.action;
    if (!harness || harness.action === 'reset') return { ok: false, reason: 'the turn recorded no action' };
    const { action: op, ...fields } = harness;
    raw = { ...fields, op: op === 'forced_guess' ? 'guess' : op };
  }
  try {
    return { ok: true, action: parseAction(raw) };
  } catch (err) {
    return { ok: false, reason: `the recorded action cannot be executed: ${(err as Error).message}` };
  }
}
