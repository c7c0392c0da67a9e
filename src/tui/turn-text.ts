/**
 * What the Player reads out of a recorded turn besides its action: the model's own text, its tool
 * calls, the request it was sent, and the budget that request told it. Pure, over recorded data of
 * either dialect (geolab's message list, the harness's `prompt` string).
 */
import type { EpisodeConfig, Turn } from '../core/episode.js';
import { isRecord } from '../core/values.js';
import { sentAction, withCallIds } from '../agent/protocols/tools.js';
import { formatCall, truncate, wrapLines } from './format.js';

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
  return [model?.reasoning, modelProse(model)].filter((t): t is string => Boolean(t?.trim())).join('\n\n');
}

/** The reply's own text (the prose the model wrote), or null when it is empty or only tool-call JSON. */
export function modelProse(model: TurnModel | null | undefined): string | null {
  const reply = model?.reply;
  return reply?.trim() && !callsInReply(reply) ? reply : null;
}

/** The turn's tool calls by name and arguments: `look(heading_deg=90, fov_deg=30)`. */
export function toolCallTexts(model: TurnModel | null | undefined, turn: number): string[] {
  const calls = [...(model?.tool_calls ?? []), ...(model?.tool_calls?.length ? [] : (callsInReply(model?.reply) ?? []))];
  return callTexts(calls, turn);
}

function callTexts(calls: readonly unknown[], turn: number): string[] {
  return withCallIds(calls, turn).map((call) => formatCall(sentAction(call)));
}

export type RequestPart = { kind: 'text'; text: string } | { kind: 'image'; sha256: string | null; mime: string | null };

/** One message of a turn's request as recorded. */
export interface RequestMessage {
  role: string;
  /** The model's own earlier reply (an assistant message) rather than harness or environment text. */
  fromModel: boolean;
  /** The tool a tool result answers. */
  name: string | null;
  parts: RequestPart[];
  toolCalls: string[];
}

/**
 * The request the model was sent on a turn: geolab records every message (`messages`, images by
 * sha256); the harness records the prompt text only (`prompt`). Null when neither is recorded
 * (turn 0, the reset, sends nothing).
 */
export function requestOf(turn: Turn): RequestMessage[] | null {
  const messages = (turn as { messages?: unknown }).messages;
  if (Array.isArray(messages) && messages.length > 0) return messages.filter(isRecord).map((message) => requestMessage(message, turn.turn));
  if (turn.prompt?.trim()) return [{ role: 'user', fromModel: false, name: null, parts: [{ kind: 'text', text: turn.prompt }], toolCalls: [] }];
  return null;
}

function requestMessage(message: Record<string, unknown>, turn: number): RequestMessage {
  const role = typeof message.role === 'string' ? message.role : '?';
  const content = message.content;
  const parts: RequestPart[] =
    typeof content === 'string'
      ? content
        ? [{ kind: 'text', text: content }]
        : []
      : Array.isArray(content)
        ? content.filter(isRecord).map((part): RequestPart => {
            if (part.type === 'text') return { kind: 'text', text: typeof part.text === 'string' ? part.text : '' };
            return { kind: 'image', sha256: typeof part.sha256 === 'string' ? part.sha256 : null, mime: typeof part.mime === 'string' ? part.mime : null };
          })
        : [];
  return {
    role,
    fromModel: role === 'assistant',
    name: typeof message.name === 'string' ? message.name : null,
    parts,
    toolCalls: Array.isArray(message.tool_calls) ? callTexts(message.tool_calls, turn) : [],
  };
}

/**
 * The harness's budget sentences: "11 tool calls left.", "3 turns left, this one included", "You have
 * 12 tool calls", "No tool calls left", "only 2 turn(s) left". The environment's own "N actions
 * left" and "N actions remain" are not among them.
 */
const BUDGET_SENTENCE = /\b(?:(\d+|no) (tool calls?|turns?(?:\(s\))?) left|you have (\d+) (tool calls?|turns?))/gi;

export interface TurnBudget {
  /** The budget the turn's request told the model ("11 tool calls left"), or null when unknown. */
  told: { left: number; unit: 'tool call' | 'turn'; stated: boolean } | null;
  /** The environment's steps remaining at the same moment, before the turn's action. */
  environment: number | null;
}

/**
 * What the model was told it had left when it chose this turn's action: the last budget sentence of
 * the harness's text in the request, else the count the harness keeps (max_turns less the turns
 * before this one). Turn 0 has no request: the budget the opening will state.
 */
export function turnBudget(turns: readonly Turn[], position: number, config: EpisodeConfig | null | undefined): TurnBudget {
  const turn = turns[position];
  if (!turn) return { told: null, environment: null };
  const environment = (position > 0 ? turns[position - 1]?.steps_remaining : turn.steps_remaining) ?? null;
  const stated = statedBudget(requestOf(turn) ?? []);
  if (stated) return { told: stated, environment };
  const maxTurns = config?.max_turns;
  if (maxTurns == null) return { told: null, environment };
  // geolab records its protocol; its tools prompt is named geolab-tools-1. The harness counts turns.
  const tools = config?.protocol === 'tools' || config?.mode === 'tools' || Boolean(config?.prompt_version?.includes('tools'));
  const left = Math.max(0, maxTurns - Math.max(0, turn.turn - 1));
  return { told: { left, unit: tools ? 'tool call' : 'turn', stated: false }, environment };
}

function statedBudget(messages: readonly RequestMessage[]): TurnBudget['told'] {
  const text = messages
    .filter((m) => !m.fromModel)
    .flatMap((m) => m.parts.flatMap((p) => (p.kind === 'text' ? [p.text] : [])))
    .join('\n');
  const last = [...text.matchAll(BUDGET_SENTENCE)].at(-1);
  if (!last) return null;
  const count = last[1] ?? last[3]!;
  const unit = (last[2] ?? last[4]!).toLowerCase().startsWith('tool') ? 'tool call' : 'turn';
  return { left: count.toLowerCase() === 'no' ? 0 : Number(count), unit, stated: true };
}

/** "11 tool calls left", "1 turn left". */
export function formatBudget(told: NonNullable<TurnBudget['told']>): string {
  return `${told.left} ${told.unit}${told.left === 1 ? '' : 's'} left`;
}

/**
 * How a request line is drawn: who wrote it decides the tone, so harness and environment text never
 * passes for the model's own words.
 */
export type RequestLineTone = 'harnessHead' | 'modelHead' | 'harness' | 'model' | 'image';

export interface RequestLine {
  text: string;
  tone: RequestLineTone;
}

/** Marks the model's own earlier replies in the margin, which reads without colour too. */
export const MODEL_MARGIN = '▌ ';

function author(message: RequestMessage): string {
  switch (message.role) {
    case 'assistant':
      return "assistant · the model's own earlier reply";
    case 'tool':
      return `tool result${message.name ? ` (${message.name})` : ''} · environment feedback, worded by the harness`;
    case 'system':
      return 'system · harness instructions';
    default:
      return `${message.role} · harness`;
  }
}

/** Every message of a request as lines `width` columns wide: a heading per message, then its parts. */
export function requestLines(messages: readonly RequestMessage[], width: number): RequestLine[] {
  const lines: RequestLine[] = [];
  messages.forEach((message, i) => {
    const head = `── ${i + 1} ${author(message)} `;
    lines.push({ text: truncate(head.padEnd(width, '─'), width), tone: message.fromModel ? 'modelHead' : 'harnessHead' });
    const margin = message.fromModel ? MODEL_MARGIN : '';
    const tone: RequestLineTone = message.fromModel ? 'model' : 'harness';
    const textWidth = Math.max(10, width - margin.length);
    for (const part of message.parts) {
      if (part.kind === 'image') {
        const sha = part.sha256 ? `${part.sha256.slice(0, 12)}…` : '(not recorded)';
        lines.push({ text: `${margin}[image sha256 ${sha}${part.mime ? ` ${part.mime}` : ''}]`, tone: 'image' });
        continue;
      }
      for (const line of wrapLines(part.text, textWidth)) lines.push({ text: `${margin}${line}`, tone });
    }
    for (const call of message.toolCalls) {
      for (const line of wrapLines(`tool call: ${call}`, textWidth)) lines.push({ text: `${margin}${line}`, tone });
    }
  });
  return lines;
}
