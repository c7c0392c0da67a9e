/**
 * The trainer's per-rollout traces (`<output>/traces/rollouts.jsonl`, docs/training.md): one line per
 * rollout, `{run, step, model, task: {split, index}, outcome: {max_turns, ...}, turns: [{turn, action:
 * {op, ...}, feedback, pins, steps_remaining, ...}]}`. Each turn's feedback is what the model read
 * after that turn's action, so it is one prompt; the action that turn took is the agent's own, as are
 * all before it. The trainer cuts the environment's "N actions left" before the model sees the
 * feedback and tells its own count instead (about max_turns - turn), so the audit does the same.
 * Images are not kept in traces (only a prefix of their hash).
 */
import type { LatLon } from '../../core/geodesy.js';
import { isRecord } from '../../core/values.js';
import { pointsOfAction } from '../../env/action-facts.js';
import { withoutEnvBudget } from '../../env/feedback.js';
import type { AuditPrompt } from '../types.js';
import { atLine, jsonLines, type OnBytes } from './jsonl.js';
import { MessageError } from './messages.js';

export async function* readTraceFile(file: string, source: string, onBytes?: OnBytes): AsyncGenerator<AuditPrompt> {
  for await (const { line, value } of jsonLines(file, 'trace file', onBytes)) {
    yield* atLine(file, line, () => rolloutPrompts(value, source, line));
  }
}

function rolloutPrompts(value: unknown, source: string, line: number): AuditPrompt[] {
  if (!isRecord(value)) throw new MessageError('(line)', 'expected a rollout object {"task", "turns", ...}');
  const { task, turns, outcome } = value;
  if (!isRecord(task)) throw new MessageError('task', 'expected {"split", "index"}');
  const { split, index } = task;
  if (typeof split !== 'string' || split === '') throw new MessageError('task.split', 'expected the split name');
  if (typeof index !== 'number' || !Number.isInteger(index) || index < 0) throw new MessageError('task.index', 'expected a task index (an integer >= 0)');
  if (!Array.isArray(turns)) throw new MessageError('turns', 'expected a list of turns');
  const maxTurns = isRecord(outcome) && typeof outcome.max_turns === 'number' ? outcome.max_turns : undefined;
  const episodeId = `${typeof value.run === 'string' ? value.run : 'rollout'}@${line}`;
  const agentPoints: LatLon[] = [];
  const prompts: AuditPrompt[] = [];
  turns.forEach((turn, i) => {
    if (!isRecord(turn)) throw new MessageError(`turns[${i}]`, 'expected a turn object {"turn", "action", "feedback", ...}');
    const number = typeof turn.turn === 'number' && Number.isInteger(turn.turn) ? turn.turn : i;
    const action = isRecord(turn.action) ? turn.action : null;
    const points = pointsOfAction(action);
    agentPoints.push(...points, ...pinsOf(turn.pins, `turns[${i}].pins`));
    if (turn.feedback === null || turn.feedback === undefined) return;
    if (typeof turn.feedback !== 'string') throw new MessageError(`turns[${i}].feedback`, 'expected a string');
    prompts.push({
      source,
      promptId: `${line}#${number}`,
      line,
      episodeId,
      turn: number,
      task: { split, index },
      // The feedback answers this turn's action.
      messages: [{ author: 'harness', role: 'tool', texts: [withoutEnvBudget(turn.feedback)], images: [], answers: { name: typeof action?.op === 'string' ? action.op : '', points } }],
      agentPoints: [...agentPoints],
      ...(maxTurns !== undefined ? { budget: { turnsLeft: Math.max(0, maxTurns - number) } } : {}),
    });
  });
  return prompts;
}

function pinsOf(value: unknown, field: string): LatLon[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new MessageError(field, 'expected a list of [lat, lon] pairs');
  return value.map((pin, i) => {
    if (!Array.isArray(pin) || typeof pin[0] !== 'number' || typeof pin[1] !== 'number') throw new MessageError(`${field}[${i}]`, 'expected [lat, lon]');
    return { lat: pin[0], lon: pin[1] };
  });
}
