/**
 * What the Player reads out of a recorded turn besides its action: the model's own text, its tool
 * calls, the request it was sent, and the budget that request told it. Pure, over recorded data of
 * either dialect (geolab's message list, the harness's `prompt` string).
 */
import type { Turn } from '../core/episode.js';
import { isRecord } from '../core/values.js';
import { sentAction, withCallIds } from '../agent/protocols/tools.js';
import { formatCall } from './format.js';

type TurnModel = NonNullable<Turn['model']>;

/**
 * A reply that is nothing but tool-call JSON (`[{"id":"call_1_0","type":"function",...}]`), as some
 * servers and older records put it: those are calls, not text the model wrote.
 */
function callsInReply(reply: string | null | undefined): unknown[] | null {
  const text = reply?.trim();
  if (!text || !(text.startsWith('[') || text.startsWith('{'))) return null;
  try {
    const value: unknown = JSON.parse(text);
    const calls = Array.isArray(value) ? value : [value];
    return calls.length > 0 && calls.every((call) => isRecord(call) && isRecord(call.function) && typeof call.function.name === 'string') ? calls : null;
  } catch {
    return null;
  }
}

/** The model's reasoning and reply text, without tool-call JSON. */
export function modelText(model: TurnModel | null | undefined): string {
  const reply = callsInReply(model?.reply) ? null : model?.reply;
  return [model?.reasoning, reply].filter((t): t is string => Boolean(t?.trim())).join('\n\n');
}

/** The turn's tool calls by name and arguments: `look(heading_deg=90, fov_deg=30)`. */
export function toolCallTexts(model: TurnModel | null | undefined, turn: number): string[] {
  const calls = [...(model?.tool_calls ?? []), ...(model?.tool_calls?.length ? [] : (callsInReply(model?.reply) ?? []))];
  return callTexts(calls, turn);
}

function callTexts(calls: readonly unknown[], turn: number): string[] {
  return withCallIds(calls, turn).map((call) => formatCall(sentAction(call)));
}
