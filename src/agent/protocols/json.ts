/**
 * The JSON-action protocol of the public eval harness (docs/protocol.md). Every turn is one stateless
 * request with at most one image: the instructions, the last lines of the transcript, the camera, the
 * turns left (with a warning near the end). The model answers with brief reasoning and one JSON
 * object last; a fenced ```json block wins, otherwise the last `{...}` holding "action".
 *
 * The instructions are geolab's own (`geolab-json-1`, never recorded as the harness's "v2"), or a
 * user's template (--prompt-file), which is sent the way the harness sends its prompts: one user
 * message, the filled template, then the transcript, the camera and the steps left.
 *
 * Pure: request building from the recorded turns, and reply reading.
 */
import type { Turn } from '../../core/episode.js';
import { parseGuess } from '../../core/parse-guess.js';
import { COST_HUNDREDTHS } from '../../env/action-facts.js';
import { COUNTRY_MAX_CHARS, LABEL_MAX_CHARS, type ParsedAction } from '../../env/actions.js';
import type { ImageKind, Op } from '../../env/types.js';
import type { HarnessAction, RecordedMessage, RecordedPart } from '../types.js';
import { extractActionObject } from '../../core/action-object.js';
import { toNumber } from '../../core/values.js';
import { withoutEnvBudget } from '../../env/feedback.js';
import { budgetSentence, checkAction, formatAction, toHarnessAction } from './common.js';
import { fillTemplate, type PromptTemplate } from './template.js';

export const JSON_PROMPT_VERSION = 'geolab-json-1';
/** How much of the transcript each request carries. */
export const TRANSCRIPT_LINES = 8;
/** At this many turns left (this one included) the request warns that running out scores zero. */
export const WARN_AT_TURNS_LEFT = 2;

const cost = (op: Op) => `Costs ${(COST_HUNDREDTHS[op] / 100).toFixed(2)}.`;

/** The system message of every request. No example coordinates: any real place could sit near a truth. */
export const JSON_INSTRUCTIONS = [
  'You are playing GeoGuesser: you stand somewhere on Earth in a street-level panorama and must work out where.',
  'Each turn you take exactly one action. Answer with brief reasoning, then one JSON object last, in a ```json block.',
  'Actions:',
  `- {"action": "look", "heading_deg": H, "fov_deg": F, "pitch_deg": P}: face compass heading H (0 north, 90 east) with field of view F (10 to 120 degrees; smaller zooms in) and tilt P (positive looks up). ${cost('look')}`,
  `- {"action": "zoom", "fov_deg": F}: change only the field of view. ${cost('zoom')}`,
  `- {"action": "move", "direction": "forward" or "backward", "meters": M}: walk along the captured road, up to 500 m. ${cost('move')} Charged even at a dead end.`,
  `- {"action": "pin", "lat": LAT, "lon": LON, "span_deg": S}: drop a pin and see a map around it reaching S degrees to each side (default 7); below about 4 degrees the map shows roads and towns. ${cost('pin')}`,
  '- {"action": "guess", "lat": LAT, "lon": LON}: your final answer in decimal degrees; it ends the episode. Free.',
  'Pins never say whether you are right: a pin only names the place the pin itself is in.',
  'Your score falls with the distance of your guess from the true location, less the cost of your actions.',
  'Every action uses one turn. Running out of turns without a guess scores zero.',
].join('\n');

export interface JsonRequestInput {
  /** Recorded turns so far (turn 0, the reset, says nothing the model needs). */
  history: readonly Turn[];
  turn: number;
  maxTurns: number;
  /** Turns left including this one. */
  turnsLeft: number;
  forced: boolean;
  camera: { heading_deg: number; fov_deg: number; pitch_deg: number };
  /** The latest image and the turn that returned it (0: the starting view). */
  image: { part: RecordedPart; kind: Exclude<ImageKind, 'none'>; turn: number } | null;
  /** A user's template in place of geolab's instructions. */
  template?: PromptTemplate;
  /** The observation's available_tools (the template's `{tools}`). */
  availableTools?: readonly string[];
  /** The environment's steps remaining (the harness tells the model). */
  stepsRemaining?: number;
}

/** The action names the harness's `{tools}` lists: those its JSON actions can be translated from. */
export const HARNESS_ACTION_NAMES: readonly string[] = ['look', 'pan', 'zoom', 'move', 'place_pin', 'pin', 'view_map', 'measure', 'submit_guess', 'guess'];

const FORCED_REQUEST = 'Reply now with your final answer as one JSON object: {"action": "guess", "lat": LAT, "lon": LON}. No other action is allowed.';

export function jsonRequest(input: JsonRequestInput): RecordedMessage[] {
  if (input.template) return templateRequest(input, input.template);
  const lines = transcriptLines(input.history).slice(-TRANSCRIPT_LINES);
  const text = [
    input.forced
      ? `Turn ${input.turn}: you have no turns left.`
      : `Turn ${input.turn} of ${input.maxTurns}: ${input.turnsLeft} turn${input.turnsLeft === 1 ? '' : 's'} left, this one included.`,
    `Camera: heading ${deg(input.camera.heading_deg)}, field of view ${deg(input.camera.fov_deg)}, pitch ${deg(input.camera.pitch_deg)}.`,
    lines.length ? `Transcript (last ${TRANSCRIPT_LINES} turns at most):` : 'Transcript: nothing yet.',
    ...lines.map((line) => `- ${line}`),
    ...(input.image ? [imageCaption(input.image)] : []),
    ...(input.forced
      ? [FORCED_REQUEST]
      : [
          ...(input.turnsLeft <= WARN_AT_TURNS_LEFT
            ? [`WARNING: ${budgetSentence(input.turnsLeft, 'turn')}${input.turnsLeft > 1 ? ' Guess before they run out, or the episode scores zero.' : ''}`]
            : []),
          'Reply with brief reasoning, then one JSON action last.',
        ]),
  ].join('\n');
  return [
    { role: 'system', content: JSON_INSTRUCTIONS },
    { role: 'user', content: input.image ? [{ type: 'text', text }, input.image.part] : text },
  ];
}

/**
 * The harness's request around a user's template: the template filled with the turns left and the
 * tools, the transcript, the camera and the environment's steps left, a warning near the end; one
 * user message with the image.
 */
function templateRequest(input: JsonRequestInput, template: PromptTemplate): RecordedMessage[] {
  const tools = (input.availableTools ?? []).filter((tool) => HARNESS_ACTION_NAMES.includes(tool)).join(', ');
  const turnsLeft = Math.max(1, input.turnsLeft);
  const lines = transcriptLines(input.history).slice(-TRANSCRIPT_LINES);
  const parts = [fillTemplate(template, { max_turns: turnsLeft, tools })];
  if (lines.length) parts.push(`What has happened so far:\n${lines.join('\n')}`);
  const steps = input.stepsRemaining === undefined ? '' : ` ${input.stepsRemaining} actions remain.`;
  parts.push(`You are facing ${input.camera.heading_deg.toFixed(0)} degrees with a ${input.camera.fov_deg.toFixed(0)} degree field of view.${steps}`);
  if (input.forced) parts.push(FORCED_REQUEST);
  else if (turnsLeft <= WARN_AT_TURNS_LEFT) {
    parts.push(`WARNING: only ${turnsLeft} turn(s) left. You must reply with {"action": "guess", "lat": ..., "lon": ...} now, or you score zero. Give your best estimate even if you are unsure.`);
  }
  const text = parts.join('\n\n');
  return [{ role: 'user', content: input.image ? [{ type: 'text', text }, input.image.part] : text }];
}

/** One line per played turn, each feedback without the environment's own budget. */
export function transcriptLines(history: readonly Turn[]): string[] {
  return history
    .filter((turn) => turn.turn > 0)
    .map((turn) => {
      const feedback = withoutEnvBudget(turn.feedback ?? '');
      if (turn.status === 'provider_error') return `Turn ${turn.turn}: no action (the model request failed).`;
      if (!turn.action || turn.status === 'unparseable') return `Turn ${turn.turn}: no valid action - ${feedback}`;
      // What was executed (aliases resolved, numbers clamped), which is what the feedback answers.
      const executed = turn.wire_action ? toHarnessAction(turn.wire_action as ParsedAction) : (turn.action as HarnessAction);
      return `Turn ${turn.turn}: ${formatAction(executed)} -> ${feedback}`;
    });
}

function imageCaption(image: { kind: Exclude<ImageKind, 'none'>; turn: number }): string {
  if (image.turn === 0) return 'The image is your starting view.';
  return `The image is the ${image.kind === 'map' ? 'map' : 'view'} returned by turn ${image.turn}.`;
}

// ---------------------------------------------------------------------------------------------
// Replies

/** `harnessAction`/`sent`: the action object as the model wrote it, recorded as turn.action. */
export type JsonReading = { ok: true; action: ParsedAction; harnessAction: HarnessAction } | { ok: false; note: string; sent?: HarnessAction };

const ACTION_ALIASES: Readonly<Record<string, Op>> = {
  place_pin: 'pin',
  submit_guess: 'guess',
  final_guess: 'guess',
  reverse_geocode: 'view_map',
  turn: 'pan',
  rotate: 'pan',
};

/** Free tools of the MCP surface that make no sense in a stateless transcript. */
const REFUSED: Readonly<Record<string, string>> = {
  list_pins: 'list_pins is not available here: every pin you placed is in the transcript.',
  clear_pins: 'clear_pins is not available here: pins cannot be removed, place a new one instead.',
};

const KNOWN = ['look', 'pan', 'zoom', 'move', 'pin', 'view_map', 'measure', 'guess'] as const satisfies readonly Op[];
type KnownOp = (typeof KNOWN)[number];

/** The smallest map half-width accepted, comfortably above the environment's exclusive minimums. */
const MIN_SPAN_DEG = 0.1;

/** Field -> the names models write it under, and the range it is clamped to. */
const FIELDS = {
  heading_deg: { names: ['heading_deg', 'heading', 'yaw'], min: -3600, max: 3600 },
  pitch_deg: { names: ['pitch_deg', 'pitch', 'tilt'], min: -90, max: 90 },
  fov_deg: { names: ['fov_deg', 'fov', 'field_of_view'], min: 10, max: 120 },
  delta_deg: { names: ['delta_deg', 'delta', 'degrees', 'angle', 'by'], min: -3600, max: 3600 },
  // The environment wants more than 0 m: a metre is the smallest walk worth asking for.
  meters: { names: ['meters', 'metres', 'distance', 'distance_m', 'm'], min: 1, max: 500 },
  lat: { names: ['lat', 'latitude'], min: -90, max: 90 },
  lon: { names: ['lon', 'lng', 'long', 'longitude'], min: -180, max: 180 },
  span_deg: { names: ['span_deg', 'span'], min: MIN_SPAN_DEG, max: 180 },
  lat_a: { names: ['lat_a'], min: -90, max: 90 },
  lon_a: { names: ['lon_a'], min: -180, max: 180 },
  lat_b: { names: ['lat_b'], min: -90, max: 90 },
  lon_b: { names: ['lon_b'], min: -180, max: 180 },
} as const;
type Field = keyof typeof FIELDS;

/** Which fields each op takes: required first, then optional. */
const OP_FIELDS: Readonly<Record<KnownOp, { required: Field[]; optional: Field[] }>> = {
  look: { required: [], optional: ['heading_deg', 'pitch_deg', 'fov_deg'] },
  pan: { required: ['delta_deg'], optional: [] },
  zoom: { required: ['fov_deg'], optional: [] },
  move: { required: [], optional: ['meters'] },
  pin: { required: ['lat', 'lon'], optional: ['span_deg'] },
  view_map: { required: ['lat', 'lon'], optional: ['span_deg'] },
  measure: { required: ['lat_a', 'lon_a', 'lat_b', 'lon_b'], optional: [] },
  guess: { required: ['lat', 'lon'], optional: [] },
};

export const NO_ACTION_FOUND = 'No JSON object with an "action" was found in the reply.';

/** Reads one reply into an action (aliases resolved, numbers clamped), or says why it cannot. */
export function readJsonReply(reply: string, options: { forced: boolean }): JsonReading {
  const object = extractActionObject(reply);
  const reading: JsonReading = object ? actionFromObject(object) : { ok: false, note: NO_ACTION_FOUND };
  if (!options.forced) return reading;
  if (reading.ok && reading.action.op === 'guess') return reading;
  // At the turn limit a reply that only writes coordinates still counts as the guess.
  const guessed = parseGuess(reply);
  if (guessed.ok) {
    const action: ParsedAction = { op: 'guess', lat: guessed.lat, lon: guessed.lon };
    return { ok: true, action, harnessAction: toHarnessAction(action) };
  }
  const sent = reading.ok ? reading.harnessAction : reading.sent;
  return { ok: false, note: reading.ok ? 'Only guess is allowed at the turn limit.' : reading.note, ...(sent ? { sent } : {}) };
}

export function actionFromObject(object: Record<string, unknown>): JsonReading {
  const sent: HarnessAction = { ...object, action: typeof object.action === 'string' ? object.action : JSON.stringify(object.action) };
  const refuse = (note: string): JsonReading => ({ ok: false, note, sent });
  const named = typeof object.action === 'string' ? object.action.trim().toLowerCase() : '';
  if (named in REFUSED) return refuse(REFUSED[named]!);
  const op = ACTION_ALIASES[named] ?? named;
  if (!isKnown(op)) return refuse(`Unknown action ${JSON.stringify(object.action)}: use look, zoom, move, pin or guess.`);
  const raw: Record<string, unknown> = { op };
  for (const field of OP_FIELDS[op].required) {
    const value = fieldValue(object, field);
    if (value !== undefined) raw[field] = value;
    else if (!(op === 'guess' && typeof object.response === 'string')) return refuse(`${op} needs a number for "${field}".`);
  }
  for (const field of OP_FIELDS[op].optional) {
    const value = fieldValue(object, field);
    if (value !== undefined) raw[field] = value;
  }
  if (op === 'move') {
    const direction = directionOf(object.direction);
    if (direction === null) return refuse(`move needs "direction": "forward" or "backward", got ${JSON.stringify(object.direction)}.`);
    raw.direction = direction;
  }
  if (op === 'pin' && typeof object.label === 'string') raw.label = object.label.slice(0, LABEL_MAX_CHARS);
  if (op === 'guess') {
    if (raw.lat === undefined && typeof object.response === 'string') raw.response = object.response;
    if (typeof object.country === 'string') raw.country = object.country.slice(0, COUNTRY_MAX_CHARS);
  }
  const checked = checkAction(raw);
  return checked.ok ? { ok: true, action: checked.action, harnessAction: sent } : refuse(checked.note);
}

function isKnown(op: string): op is KnownOp {
  return (KNOWN as readonly string[]).includes(op);
}

function fieldValue(object: Record<string, unknown>, field: Field): number | undefined {
  const { names, min, max } = FIELDS[field];
  for (const name of names) {
    const value = toNumber(object[name]);
    if (value !== undefined) return Math.min(max, Math.max(min, value));
  }
  return undefined;
}

/** Absent means forward (the environment's default); anything unreadable is refused. */
function directionOf(value: unknown): 'forward' | 'backward' | null {
  if (value === undefined) return 'forward';
  const word = typeof value === 'string' ? value.trim().toLowerCase() : '';
  if (['forward', 'forwards', 'fwd', 'ahead', 'f'].includes(word)) return 'forward';
  if (['backward', 'backwards', 'back', 'reverse', 'b'].includes(word)) return 'backward';
  return null;
}

function deg(value: number): string {
  return `${Number(value.toFixed(1))}°`;
}
