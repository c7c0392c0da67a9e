/**
 * The newest rollouts of a run's trace file (`<output_dir>/traces/rollouts.jsonl`, the public
 * trainer's layout; src/audit/sources/traces.ts reads the same file for the audit). Only the file's
 * end is read: a long run's traces grow to megabytes. Traces keep no images (only a prefix of their
 * hash), so a rollout is its turns' actions and feedback, not an episode the Player could draw.
 */
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { isRecord } from '../core/values.js';

export interface TraceRollout {
  step: number;
  split: string;
  index: number;
  reward: number | null;
  distanceKm: number | null;
  turnsUsed: number | null;
  turns: { turn: number; action: string; feedback: string }[];
}

/** Bytes read from the end of the file: far more than the rollouts a screen lists. */
const TAIL_BYTES = 512 * 1024;

/** The last `count` readable rollouts, newest first; lines that are no rollout are passed over. */
export function recentRollouts(file: string, count: number): TraceRollout[] {
  if (!existsSync(file)) return [];
  const size = statSync(file).size;
  const start = Math.max(0, size - TAIL_BYTES);
  const buffer = Buffer.alloc(size - start);
  const fd = openSync(file, 'r');
  try {
    readSync(fd, buffer, 0, buffer.length, start);
  } finally {
    closeSync(fd);
  }
  const lines = buffer.toString('utf8').split('\n');
  // Reading from the middle of the file, the first piece is the end of a line.
  if (start > 0) lines.shift();
  const out: TraceRollout[] = [];
  for (let i = lines.length - 1; i >= 0 && out.length < count; i--) {
    const rollout = parseRollout(lines[i] as string);
    if (rollout) out.push(rollout);
  }
  return out;
}

export function parseRollout(line: string): TraceRollout | undefined {
  if (!line.trim()) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!isRecord(value) || !isRecord(value.task) || !Array.isArray(value.turns)) return undefined;
  const outcome = isRecord(value.outcome) ? value.outcome : {};
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  return {
    step: num(value.step) ?? 0,
    split: typeof value.task.split === 'string' ? value.task.split : '?',
    index: num(value.task.index) ?? -1,
    reward: num(outcome.reward),
    distanceKm: num(outcome.distance_km),
    turnsUsed: num(outcome.turns_used),
    turns: value.turns.filter(isRecord).map((t, i) => ({
      turn: num(t.turn) ?? i,
      action: describeAction(t.action),
      feedback: typeof t.feedback === 'string' ? t.feedback : '',
    })),
  };
}

/** `look(heading_deg=90)`: the op and its arguments, as the Player writes a tool call. */
function describeAction(action: unknown): string {
  if (!isRecord(action)) return '?';
  const { op, ...args } = action;
  const list = Object.entries(args).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
  return `${typeof op === 'string' ? op : '?'}(${list.join(', ')})`;
}
