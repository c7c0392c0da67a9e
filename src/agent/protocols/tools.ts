/**
 * The native tool-calling protocol (docs/protocol.md), the one the published adapter was trained with: a
 * growing conversation in which the model calls one tool per reply and each result comes back as a
 * role "tool" message with the feedback text, the image following in a user message (most servers
 * accept images only there).
 *
 * Pure: message building and reply reading over plain data. The model policy (policies/model.ts)
 * owns the conversation, the images and the requests.
 */
import { parseGuess } from '../../core/parse-guess.js';
import { COST_HUNDREDTHS } from '../../env/action-facts.js';
import { toolArguments, type ParsedAction } from '../../env/actions.js';
import type { ImageKind, Op } from '../../env/types.js';
import type { HarnessAction, RecordedMessage, RecordedPart } from '../types.js';
import { withoutEnvBudget } from '../../env/feedback.js';
import { budgetSentence, checkAction, coerceNumbers } from './common.js';
import { fillTemplate, type PromptTemplate } from './template.js';

export const TOOLS_PROMPT_VERSION = 'geolab-tools-1';

/** `trained`: the five tools of the published adapter; `all`: every environment action. */
export type ToolSet = 'trained' | 'all';

export const TOOL_SETS: Readonly<Record<ToolSet, readonly Op[]>> = {
  trained: ['look', 'zoom', 'move', 'pin', 'guess'],
  all: ['look', 'pan', 'zoom', 'move', 'pin', 'view_map', 'measure', 'list_pins', 'clear_pins', 'reverse_geocode', 'guess'],
};

/** The trained `pin` has no span argument: its map is always this wide, as in training. */
export const TRAINED_PIN_SPAN_DEG = 7;

/** An OpenAI-style function tool. */
export interface ToolSpec {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** A tool call as the model sent it (`arguments` is a JSON string by the API, an object from some servers). */
export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string | Record<string, unknown> };
}

const cost = (op: Op) => `costs ${(COST_HUNDREDTHS[op] / 100).toFixed(2)}`;

/** One sentence per tool, with its cost. */
const DESCRIPTIONS: Readonly<Record<Op, string>> = {
  look: `Face a compass heading (0 north, 90 east) with a field of view and a tilt, and see the view; ${cost('look')}.`,
  pan: `Turn by a number of degrees (positive turns right) and see the view; ${cost('pan')}.`,
  zoom: `Set the field of view (10 to 120 degrees; smaller zooms in) and see the view; ${cost('zoom')}.`,
  move: `Walk forward or backward along the captured road (up to 500 m) and see the view there; ${cost('move')}, even at a dead end.`,
  pin: `Drop a pin and see a map around it with the place the pin is in, which never tells you whether you are right; ${cost('pin')}.`,
  view_map: `See a map centred on any point, without placing a pin; ${cost('view_map')}.`,
  measure: `Great-circle distance in km between two points you give; free for the first calls, then ${(COST_HUNDREDTHS.measure / 100).toFixed(2)}.`,
  list_pins: 'List your pins with the place each is in; free.',
  clear_pins: 'Remove all your pins (their cost is not refunded); free.',
  reverse_geocode: 'Name the country and nearest major city of a point you give; free.',
  guess: 'Submit your final latitude and longitude, which ends and scores the episode; free.',
};

/** Arguments each tool offers and requires; absent ops offer every field of their action. */
const TRAINED_ARGUMENTS: Partial<Record<Op, { keep: string[]; required: string[] }>> = {
  look: { keep: ['heading_deg', 'fov_deg', 'pitch_deg'], required: ['heading_deg'] },
  zoom: { keep: ['fov_deg'], required: ['fov_deg'] },
  move: { keep: ['direction', 'meters'], required: ['direction'] },
  pin: { keep: ['lat', 'lon'], required: ['lat', 'lon'] },
  guess: { keep: ['lat', 'lon'], required: ['lat', 'lon'] },
};
/** A tool's guess takes numbers: free text is the JSON protocol's business. */
const ALL_ARGUMENTS: Partial<Record<Op, { keep: string[]; required: string[] }>> = {
  guess: { keep: ['lat', 'lon', 'country'], required: ['lat', 'lon'] },
};

export function toolSpecs(set: ToolSet): ToolSpec[] {
  return TOOL_SETS[set].map((op) => toolSpec(op, set));
}

/** Specs by set and op: built once, as every request sends them. */
const specs = new Map<string, ToolSpec>();

export function toolSpec(op: Op, set: ToolSet): ToolSpec {
  const key = `${set}:${op}`;
  let spec = specs.get(key);
  if (!spec) specs.set(key, (spec = buildToolSpec(op, set)));
  return spec;
}

function buildToolSpec(op: Op, set: ToolSet): ToolSpec {
  const { properties, required } = toolArguments(op);
  const pick = (set === 'trained' ? TRAINED_ARGUMENTS : ALL_ARGUMENTS)[op];
  const parameters = {
    type: 'object',
    properties: pick ? Object.fromEntries(pick.keep.map((key) => [key, properties[key]])) : properties,
    required: pick ? pick.required : required,
  };
  return { type: 'function', function: { name: op, description: DESCRIPTIONS[op], parameters } };
}

// ---------------------------------------------------------------------------------------------
// Messages

export interface OpeningInput {
  tools: ToolSet;
  maxTurns: number;
  camera: { heading_deg: number; fov_deg: number; pitch_deg: number };
  image: RecordedPart | null;
  /** A user's template in place of geolab's instruction, filled with the budget and the tool names. */
  template?: PromptTemplate;
}

/**
 * The first user message. The environment's own opening prompt is not forwarded: it names the MCP
 * tools and the environment's budget, and the model must hear of one budget only.
 */
export function openingMessage({ tools, maxTurns, camera, image, template }: OpeningInput): RecordedMessage {
  const text = template ? fillTemplate(template, { max_turns: maxTurns, tools: TOOL_SETS[tools].join(', ') }) : geolabOpening(tools, maxTurns, camera);
  return { role: 'user', content: image ? [{ type: 'text', text }, image] : text };
}

function geolabOpening(tools: ToolSet, maxTurns: number, camera: OpeningInput['camera']): string {
  return [
    'You are standing somewhere on Earth in a street-level panorama. Work out where you are.',
    `The image is your view: heading ${deg(camera.heading_deg)} (0 is true north), field of view ${deg(camera.fov_deg)}, pitch ${deg(camera.pitch_deg)}.`,
    'Tools (call exactly one per reply):',
    ...TOOL_SETS[tools].map((op) => `- ${op}: ${DESCRIPTIONS[op]}`),
    'A pin tells you only which place the pin itself is in: it never says whether you are right.',
    'Your score falls with the distance of your guess from the true location, less the cost of your actions.',
    `You have ${maxTurns} tool calls. The episode scores 0 unless you call guess before they run out.`,
  ].join('\n');
}

/** Sent once at the turn limit, with `guess` as the only tool. */
export function forcedGuessMessage(): RecordedMessage {
  return {
    role: 'user',
    content: 'You have no tool calls left. Call guess now with your best latitude and longitude; it is the only tool left.',
  };
}

export const GUESS_SUBMITTED = 'Guess submitted. The episode is over.';
export const ONE_CALL_AT_A_TIME = 'Not executed: only the first tool call of a reply is executed. Call one tool at a time.';

/**
 * The text of an executed call's result: the feedback with the environment's budget replaced by the
 * harness's count. A guess's feedback (verdict, truth, score) is replaced by a neutral line, so the
 * truth never enters the context.
 */
export function toolResultText(op: Op, feedback: string, callsLeft: number): string {
  if (op === 'guess') return GUESS_SUBMITTED;
  return `${withoutEnvBudget(feedback)} ${budgetSentence(callsLeft, 'tool call')}`;
}

export interface ExecutedCall {
  call: ToolCall;
  op: Op;
  feedback: string;
  callsLeft: number;
  /** The image the environment returned, already prepared for the model. */
  image: { part: RecordedPart; kind: Exclude<ImageKind, 'none'> } | null;
  /** Answers to the calls of the same reply that were not executed. */
  extras: RecordedMessage[];
}

/**
 * What follows an executed call: its tool message, the answers to the reply's other calls (every call
 * must be answered before the next user message), then the image in a user message.
 */
export function executedCallMessages({ call, op, feedback, callsLeft, image, extras }: ExecutedCall): RecordedMessage[] {
  const messages: RecordedMessage[] = [toolMessage(call, toolResultText(op, feedback, callsLeft)), ...extras];
  if (image) {
    const caption = image.kind === 'map' ? `The map from ${call.function.name}:` : `The view after ${call.function.name}:`;
    messages.push({ role: 'user', content: [{ type: 'text', text: caption }, image.part] });
  }
  return messages;
}

/** The assistant message as it goes back into the conversation (its reasoning is not replayed). */
export function assistantMessage(content: string, calls: readonly ToolCall[]): RecordedMessage {
  return calls.length ? { role: 'assistant', content, tool_calls: [...calls] } : { role: 'assistant', content };
}

// ---------------------------------------------------------------------------------------------
// Replies

export type ToolReading =
  /** The first call, ready to execute; `extras` answer the reply's other calls. */
  | { kind: 'action'; action: ParsedAction; call: ToolCall | null; extras: RecordedMessage[] }
  /** Nothing to execute: `replies` answer every call (or nudge a reply that called none). */
  | { kind: 'unusable'; note: string; replies: RecordedMessage[] };

export interface ReadOptions {
  tools: ToolSet;
  /** At the turn limit only `guess` is allowed, and coordinates in plain text are accepted too. */
  forced: boolean;
  /** The harness's count after this turn, stated in every answer. */
  callsLeft: number;
}

/** Reads a reply's tool calls: the first is executed, the others are answered with an error. */
export function readToolReply(content: string, calls: readonly ToolCall[], options: ReadOptions): ToolReading {
  const budget = budgetSentence(options.callsLeft, 'tool call');
  const [first, ...rest] = calls;
  const extras = rest.map((call) => toolMessage(call, ONE_CALL_AT_A_TIME));
  if (!first) {
    if (options.forced) {
      const guessed = parseGuess(content);
      if (guessed.ok) return { kind: 'action', action: { op: 'guess', lat: guessed.lat, lon: guessed.lon }, call: null, extras: [] };
    }
    const note = 'The reply called no tool.';
    return { kind: 'unusable', note, replies: [{ role: 'user', content: `${note} Call exactly one tool per reply. ${budget}` }] };
  }
  const refuse = (note: string): ToolReading => ({
    kind: 'unusable',
    note,
    replies: [toolMessage(first, `Error: ${note} ${budget}`), ...extras],
  });
  const allowed: readonly Op[] = options.forced ? ['guess'] : TOOL_SETS[options.tools];
  const name = first.function.name;
  if (!(allowed as readonly string[]).includes(name)) {
    return refuse(
      options.forced
        ? `${JSON.stringify(name)} is not available now: only guess is.`
        : `There is no tool named ${JSON.stringify(name)}. The tools are ${allowed.join(', ')}.`,
    );
  }
  const args = readArguments(first.function.arguments);
  if (!args.ok) return refuse(`The arguments of ${name} are not a JSON object (${args.note}). Call ${name} again with valid arguments.`);
  const raw: Record<string, unknown> = { ...coerceNumbers(args.value), op: name };
  if (name === 'pin' && options.tools === 'trained') raw.span_deg = TRAINED_PIN_SPAN_DEG;
  const checked = checkAction(raw);
  if (!checked.ok) return refuse(`${checked.note}.`);
  return { kind: 'action', action: checked.action, call: first, extras };
}

/**
 * A call in harness form as the model sent it (turn.action): `{"action": name, ...arguments}`, the
 * arguments as written (kept as `arguments` when they are not a JSON object).
 */
export function sentAction(call: ToolCall): HarnessAction {
  const args = readArguments(call.function.arguments);
  return args.ok ? { ...args.value, action: call.function.name } : { action: call.function.name, arguments: call.function.arguments };
}

/** Gives every call an id (some servers omit them) so each can be answered. */
export function withCallIds(calls: readonly unknown[], turn: number): ToolCall[] {
  return calls.flatMap((raw, i) => {
    const call = raw as { id?: unknown; function?: { name?: unknown; arguments?: unknown } };
    if (typeof call?.function?.name !== 'string') return [];
    const args = call.function.arguments;
    return [
      {
        id: typeof call.id === 'string' && call.id ? call.id : `call_${turn}_${i}`,
        type: 'function' as const,
        function: {
          name: call.function.name,
          arguments: typeof args === 'object' && args !== null ? (args as Record<string, unknown>) : String(args ?? ''),
        },
      },
    ];
  });
}

function readArguments(raw: string | Record<string, unknown>): { ok: true; value: Record<string, unknown> } | { ok: false; note: string } {
  if (typeof raw !== 'string') return { ok: true, value: raw };
  if (raw.trim() === '') return { ok: true, value: {} };
  try {
    const value: unknown = JSON.parse(raw);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return { ok: true, value: value as Record<string, unknown> };
    return { ok: false, note: `got ${Array.isArray(value) ? 'an array' : typeof value}` };
  } catch (err) {
    return { ok: false, note: (err as Error).message };
  }
}

function toolMessage(call: ToolCall, content: string): RecordedMessage {
  return { role: 'tool', tool_call_id: call.id, name: call.function.name, content };
}

function deg(value: number): string {
  return `${Number(value.toFixed(1))}°`;
}
