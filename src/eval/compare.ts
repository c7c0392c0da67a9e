/**
 * Two episodes of one task side by side (`geolab episodes compare`, the TUI's Compare screen): their
 * turns aligned by turn number, what each looked at, where each pinned and guessed, what each turn
 * cost, and both outcomes with the reward recomputed on the reference curve (docs/scoring.md) rather than
 * read from the record. Pure: records in, plain data and text lines out.
 */
import { isFailed, type EpisodeRecord, type Turn } from '../core/episode.js';
import { compass8 } from '../core/geodesy.js';
import { UsageError } from '../core/errors.js';
import { referenceReward } from '../core/scoring.js';
import type { ParsedAction } from '../env/actions.js';
import { formatCall, formatKm, formatLatLon, truncate, turnCost } from '../core/format.js';
import { executedAction } from './turn-action.js';

export type Point = [number, number];

/** What one side did on one turn. */
export interface ComparedTurn {
  turn: number;
  status: string;
  /** The action as the model sent it: `look(heading_deg=90)`, `(start)`, `(no action)`. */
  call: string;
  /** What the turn showed, in a few words: `view 90° E, pitch 0°, fov 60°, frame 2`, `map 44.8000, 20.5000 ±7°`. */
  looked: string;
  imageKind: 'view' | 'map' | 'none';
  imageSha256: string | null;
  /** The camera after the turn (null when the record has none). */
  camera: { headingDeg: number; pitchDeg: number; fovDeg: number; frameIndex: number | null } | null;
  /** The pin this turn placed. */
  pin: Point | null;
  /** The guess this turn submitted (its coordinates, when it had usable ones). */
  guess: Point | null;
  /** Feedback without the budget tail ("N actions left."), whitespace collapsed. */
  feedback: string;
  /** What this turn added to the running cost, and the running cost after it. */
  cost: number | null;
  totalCost: number | null;
}

export interface ComparedOutcome {
  /** Null for a failed episode (see `error`). */
  distanceKm: number | null;
  verdict: string | null;
  /** Recomputed from distance and cost: the number boards report. */
  referenceReward: number | null;
  /** The environment's game-curve reward as recorded. */
  gameReward: number | null;
  cost: number | null;
  guess: Point | null;
  truth: Point | null;
  /** The pins standing at the end. */
  pins: Point[];
  countryHit: boolean | null;
  turnsUsed: number | null;
  forcedGuess: boolean;
  error: string | null;
}

export interface ComparedSide {
  episodeId: string;
  model: string | null;
  promptVersion: string | null;
  sample: number;
  outcome: ComparedOutcome;
}

export interface ComparedRow {
  turn: number;
  a: ComparedTurn | null;
  b: ComparedTurn | null;
}

export interface Comparison {
  task: { split: string; index: number; taskId: string | null; country: string | null };
  a: ComparedSide;
  b: ComparedSide;
  /** Every turn number either side played, in order; a side that did not play it has null. */
  rows: ComparedRow[];
}

/** How a record is named in messages: its id, or the file and line it came from. */
export interface LabelledRecord {
  label: string;
  record: EpisodeRecord;
}

/** The task an episode played: its task_id when recorded, else split/index. */
function taskName(record: EpisodeRecord): string {
  const { split, index, task_id: taskId } = record.task;
  return `${split}/${index}${taskId ? ` (${taskId})` : ''}`;
}

/**
 * Null when both played the same task, else why not. Task ids decide when both have one (a task
 * set renumbered keeps them); otherwise split and index.
 */
export function taskMismatch(a: LabelledRecord, b: LabelledRecord): string | null {
  const [ta, tb] = [a.record.task, b.record.task];
  const same = ta.task_id && tb.task_id ? ta.task_id === tb.task_id : ta.split === tb.split && ta.index === tb.index;
  if (same) return null;
  return `the episodes play different tasks: ${a.label} plays ${taskName(a.record)}, ${b.label} plays ${taskName(b.record)}; compare two episodes of one task`;
}

/** Aligns two episodes of one task; a UsageError (exit 2) when the tasks differ. */
export function compareEpisodes(a: LabelledRecord, b: LabelledRecord): Comparison {
  const mismatch = taskMismatch(a, b);
  if (mismatch) throw new UsageError(mismatch);
  const [turnsA, turnsB] = [comparedTurns(a.record), comparedTurns(b.record)];
  const numbers = [...new Set([...turnsA.keys(), ...turnsB.keys()])].sort((x, y) => x - y);
  const task = a.record.task;
  return {
    task: { split: task.split, index: task.index, taskId: task.task_id ?? b.record.task.task_id ?? null, country: task.country ?? b.record.task.country ?? null },
    a: sideOf(a.record),
    b: sideOf(b.record),
    rows: numbers.map((turn) => ({ turn, a: turnsA.get(turn) ?? null, b: turnsB.get(turn) ?? null })),
  };
}

function sideOf(record: EpisodeRecord): ComparedSide {
  return {
    episodeId: record.episode_id,
    model: record.model_name ?? null,
    promptVersion: record.config?.prompt_version ?? null,
    sample: record.task.sample ?? 0,
    outcome: outcomeOf(record),
  };
}

function outcomeOf(record: EpisodeRecord): ComparedOutcome {
  const turns = turnsOf(record);
  const pins = (turns.at(-1)?.pins ?? []).map((p): Point => [p[0], p[1]]);
  if (isFailed(record)) {
    return { distanceKm: null, verdict: null, referenceReward: null, gameReward: null, cost: turns.at(-1)?.action_cost ?? null, guess: null, truth: null, pins, countryHit: null, turnsUsed: null, forcedGuess: false, error: record.error };
  }
  const o = record.outcome;
  const distanceKm = o.distance_km ?? null;
  const cost = o.action_cost ?? 0;
  return {
    distanceKm,
    verdict: o.verdict ?? null,
    // A cost the record got wrong (negative) cannot be scored; the comparison still shows the rest.
    referenceReward: cost >= 0 ? referenceReward(distanceKm, cost) : null,
    gameReward: o.reward ?? null,
    cost,
    guess: o.guess ?? null,
    truth: o.truth ?? null,
    pins,
    countryHit: o.country_hit ?? null,
    turnsUsed: o.turns_used ?? null,
    forcedGuess: o.forced_guess === true,
    error: null,
  };
}

function turnsOf(record: EpisodeRecord): Turn[] {
  return Array.isArray(record.turns) ? (record.turns as Turn[]) : [];
}

function comparedTurns(record: EpisodeRecord): Map<number, ComparedTurn> {
  const turns = turnsOf(record);
  const final = isFailed(record) ? null : record.outcome;
  const byNumber = new Map<number, ComparedTurn>();
  turns.forEach((turn, position) => {
    const read = executedAction(turn);
    const action = read.ok ? read.action : null;
    // A forced guess is read as a guess; its coordinates are the outcome's, when it had usable ones.
    const guess = action?.op === 'guess' && turn.done && final?.guess ? final.guess : null;
    const after = turn.camera_after ?? turn.camera_before ?? null;
    const camera =
      after && typeof after.heading_deg === 'number' && typeof after.pitch_deg === 'number' && typeof after.fov_deg === 'number'
        ? { headingDeg: after.heading_deg, pitchDeg: after.pitch_deg, fovDeg: after.fov_deg, frameIndex: after.frame_index ?? null }
        : null;
    const pin = action?.op === 'pin' ? ([action.lat, action.lon] as Point) : null;
    byNumber.set(turn.turn, {
      turn: turn.turn,
      status: turn.status ?? 'ok',
      call: formatCall(turn.action),
      looked: lookedAt(turn, action, camera, guess),
      imageKind: turn.image_kind ?? 'none',
      imageSha256: turn.image_sha256 ?? null,
      camera,
      pin,
      guess: guess ? [guess[0], guess[1]] : null,
      feedback: shortFeedback(turn.feedback ?? ''),
      cost: turnCost(turns, position),
      totalCost: turn.action_cost ?? null,
    });
  });
  return byNumber;
}

function lookedAt(turn: Turn, action: ParsedAction | null, camera: ComparedTurn['camera'], guess: readonly [number, number] | null): string {
  const view = camera
    ? `view ${round(camera.headingDeg)}° ${compass8(camera.headingDeg)}, pitch ${round(camera.pitchDeg)}°, fov ${round(camera.fovDeg)}°${camera.frameIndex === null ? '' : `, frame ${camera.frameIndex}`}`
    : 'view';
  if (turn.status === 'unparseable' || turn.status === 'provider_error') return `no action (${turn.status})`;
  if (!action) return turn.turn === 0 ? view : 'no action';
  switch (action.op) {
    case 'look':
    case 'pan':
    case 'zoom':
      return view;
    case 'move': {
      const moved = typeof turn.moved_meters === 'number' ? `${Math.round(turn.moved_meters)} m` : '?';
      // A move keeps the camera's direction: where it led is the frame.
      const frame = camera && camera.frameIndex !== null ? ` → frame ${camera.frameIndex}` : '';
      return `move ${action.direction} ${moved}${frame}`;
    }
    case 'pin':
    case 'view_map':
      return `${action.op === 'pin' ? 'pin' : 'map'} ${formatLatLon(action.lat, action.lon)} ±${round(action.span_deg)}°`;
    case 'guess':
      return guess ? `guess ${formatLatLon(guess[0], guess[1])}` : 'guess (no usable coordinates)';
    default:
      return action.op;
  }
}

function round(x: number): number {
  return Math.round(x * 10) / 10;
}

/** The environment's budget tail says nothing the cost column does not. */
function shortFeedback(feedback: string): string {
  return feedback
    .replace(/\s+/g, ' ')
    .replace(/\s*(\d+ actions? left|THIS IS YOUR FINAL ACTION)\.?\s*$/i, '')
    .trim();
}

// ---------------------------------------------------------------------------------------------
// Text

/** The narrowest width the two columns stay readable in. */
const MIN_WIDTH = 60;
/** The turn number's column and the separator between the sides. */
const TURN_COLUMN = 5;
const SEPARATOR = ' │ ';

/** The comparison as plain lines of at most `width` columns (100 by default, the CLI's). */
export function comparisonLines(c: Comparison, width = 100): string[] {
  const w = Math.max(MIN_WIDTH, width);
  const column = Math.floor((w - TURN_COLUMN - SEPARATOR.length) / 2);
  const pair = (left: string, right: string, turn = '') =>
    `${turn.padStart(TURN_COLUMN - 1)} ${fit(left, column)}${SEPARATOR}${fit(right, column)}`.trimEnd();
  const truth = c.a.outcome.truth ?? c.b.outcome.truth;
  const lines = [
    truncate(
      `task ${c.task.split}/${c.task.index}${c.task.taskId ? ` (${c.task.taskId})` : ''}${c.task.country ? ` · ${c.task.country}` : ''}${truth ? ` · truth ${formatLatLon(...truth)}` : ''}`,
      w,
    ),
    pair(`A ${sideTitle(c.a)}`, `B ${sideTitle(c.b)}`, 'turn'),
    '─'.repeat(Math.min(w, TURN_COLUMN + column * 2 + SEPARATOR.length)),
  ];
  for (const row of c.rows) {
    lines.push(pair(turnHead(row.a, column), turnHead(row.b, column), String(row.turn)));
    lines.push(pair(row.a ? `  ${row.a.call}` : '', row.b ? `  ${row.b.call}` : ''));
    lines.push(pair(row.a ? `  ${row.a.feedback}` : '', row.b ? `  ${row.b.feedback}` : ''));
  }
  lines.push('─'.repeat(Math.min(w, TURN_COLUMN + column * 2 + SEPARATOR.length)));
  const [oa, ob] = [outcomeLines(c.a.outcome), outcomeLines(c.b.outcome)];
  for (let i = 0; i < Math.max(oa.length, ob.length); i++) lines.push(pair(oa[i] ?? '', ob[i] ?? '', i === 0 ? 'end' : ''));
  return lines;
}

function sideTitle(side: ComparedSide): string {
  return `${side.episodeId.slice(0, 8)} ${side.model ?? '?'}${side.promptVersion ? `@${side.promptVersion}` : ''}${side.sample ? ` s${side.sample}` : ''}`;
}

/** "view 90° E, pitch 0°, fov 60°   +0.01": what the turn looked at, its cost at the right. */
function turnHead(turn: ComparedTurn | null, column: number): string {
  if (!turn) return '';
  const cost = turn.cost === null ? '' : `+${turn.cost.toFixed(2)}`;
  const room = column - cost.length - 1;
  return `${fit(turn.looked, room)} ${cost}`;
}

function outcomeLines(o: ComparedOutcome): string[] {
  if (o.error !== null) return [`failed: ${o.error}`];
  const where = o.distanceKm === null ? 'no guess' : `${o.verdict ?? '?'}, ${formatKm(o.distanceKm)}`;
  return [
    where + (o.forcedGuess ? ' (forced)' : ''),
    `reference reward ${o.referenceReward === null ? '-' : o.referenceReward.toFixed(4)} · game ${o.gameReward === null ? '-' : o.gameReward.toFixed(4)}`,
    `cost ${(o.cost ?? 0).toFixed(2)} · ${o.turnsUsed ?? '?'} turn${o.turnsUsed === 1 ? '' : 's'} · ${o.pins.length} pin${o.pins.length === 1 ? '' : 's'}${o.countryHit === null ? '' : o.countryHit ? ' · country hit' : ' · country miss'}`,
    o.guess ? `guess ${formatLatLon(o.guess[0], o.guess[1])}` : '',
  ].filter(Boolean);
}

/** Exactly `width` columns of one line: cut with an ellipsis, or padded (its indent kept). */
function fit(text: string, width: number): string {
  return text.length > width ? `${text.slice(0, Math.max(0, width - 1))}…` : text.padEnd(width);
}
