/**
 * The transcript lines a stateless JSON-action prompt carries (docs/audit.md, "Prompt shapes and
 * baselines"): the agent's earlier actions, each with the environment's answer. Two spellings:
 *
 * - the public eval harness: `turn 3: {'action': 'pin', 'lat': 43.3, 'lon': 21.9} -> feedback`
 *   (the action as a Python dict, or JSON), the lines after "What has happened so far:", the last
 *   running to the blank line that closes the transcript;
 * - geolab's JSON protocol: `Turn 3: pin(lat=43.3, lon=21.9, span_deg=2) -> feedback`, one line each
 *   (with a `- ` bullet in geolab's own request).
 *
 * The points of those actions are the agent's own, as tool call arguments are; the text after ` -> `
 * is the feedback that answers that action, the only text a pin's point explains a place in.
 */
import type { LatLon } from '../core/geodesy.js';
import { pointsOfAction } from '../env/action-facts.js';

/** One action of the transcript and, when it was executed, where its feedback stands in the text. */
export interface TranscriptAction {
  /** The action's name as written (`pin`, `view_map`, `measure`, ...). */
  name: string;
  points: LatLon[];
  /** The span of its feedback; absent for an action that was not executed (`invalid action {...}`). */
  feedback?: { start: number; end: number };
}

const LINE_START = /(?:^|\n)(- )?turn \d+: /gi;
/** Where a harness feedback ends: the next transcript line, or a blank line. */
const FEEDBACK_END = /\n(?=(?:- )?turn \d+: )|\n[ \t]*\n/gi;
const ARROW = ' -> ';
const INVALID = 'invalid action ';
const CALL_NAME = /^[A-Za-z_][\w.-]*(?=\()/;
const NAME_IN_DICT = /["']?action["']?\s*[:=]\s*["']([A-Za-z_][\w.-]*)["']/;
/** A coordinate key and its number, in a dict (`'lat': 43.3`, `"lat": "43.3"`) or a call (`lat=43.3`). */
const COORDINATE = /["']?\b(lat|lon|lng|latitude|longitude|lat_a|lon_a|lat_b|lon_b)["']?\s*[:=]\s*["']?(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)/g;
const KEY_NAMES: Readonly<Record<string, string>> = { latitude: 'lat', longitude: 'lon', lng: 'lon' };

/** Cheap test before any regular expression: every transcript line holds "urn " and ": ". */
function mayHoldTranscript(text: string): boolean {
  return text.includes('urn ') && text.includes(': ');
}

/** The transcript actions in a text, in order (none when it holds no transcript line). */
export function transcriptActions(text: string): TranscriptAction[] {
  if (!mayHoldTranscript(text)) return [];
  const actions: TranscriptAction[] = [];
  for (const line of text.matchAll(LINE_START)) {
    const bulleted = line[1] !== undefined;
    let at = (line.index ?? 0) + line[0].length;
    const invalid = text.startsWith(INVALID, at);
    if (invalid) at += INVALID.length;
    const open = text[at];
    let name: string | undefined;
    let close: number;
    if (open === '{') {
      close = closing(text, at, '{', '}');
      if (close < 0) continue;
      name = NAME_IN_DICT.exec(text.slice(at, close + 1))?.[1];
    } else {
      name = CALL_NAME.exec(text.slice(at, at + 64))?.[0];
      if (!name) continue;
      at += name.length;
      close = closing(text, at, '(', ')');
      if (close < 0) continue;
    }
    const action: TranscriptAction = { name: name ?? '', points: pointsOf(text.slice(at, close + 1)) };
    if (!invalid && text.startsWith(ARROW, close + 1)) {
      const start = close + 1 + ARROW.length;
      action.feedback = { start, end: bulleted ? lineEnd(text, start) : feedbackEnd(text, start) };
    }
    actions.push(action);
  }
  return actions;
}

/** The index of the bracket closing the one at `from`, skipping quoted strings; -1 when it never closes. */
function closing(text: string, from: number, open: string, close: string): number {
  let depth = 0;
  let quote = '';
  for (let i = from; i < text.length; i++) {
    const c = text[i] as string;
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = '';
      else if (c === '\n') return -1;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === open) depth++;
    else if (c === close && --depth === 0) return i;
    else if (c === '\n') return -1;
  }
  return -1;
}

function lineEnd(text: string, from: number): number {
  const end = text.indexOf('\n', from);
  return end < 0 ? text.length : end;
}

function feedbackEnd(text: string, from: number): number {
  FEEDBACK_END.lastIndex = from;
  const found = FEEDBACK_END.exec(text);
  return found ? found.index : text.length;
}

function pointsOf(written: string): LatLon[] {
  const fields: Record<string, number> = {};
  for (const [, key, value] of written.matchAll(COORDINATE)) {
    const name = KEY_NAMES[key as string] ?? (key as string);
    if (!(name in fields)) fields[name] = Number(value);
  }
  return pointsOfAction(fields);
}
