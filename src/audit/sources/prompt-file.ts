/**
 * Prompt files: JSONL, one model request per line, `{"id", "task_id" | "split" + "index",
 * "messages": [OpenAI chat messages]}`, images as data URLs, URLs or paths (relative to the file).
 * The agent's points are those of the request's own assistant messages (its tool calls and actions).
 */
import { InputError } from '../../core/errors.js';
import type { ByteRange } from '../../files.js';
import { isRecord } from '../../core/values.js';
import type { AuditPrompt, TaskRef } from '../types.js';
import { atLine, jsonLines, type OnBytes, type OnInvalid } from './jsonl.js';
import { auditMessages, ImageFiles, MessageError, pointsInModelMessages, type ImageSources } from './messages.js';

/**
 * The prompts of a file, one per line (or of the lines of `range`, numbered within it); returns how
 * many lines were read. A bad line (not JSON, or not a prompt) stops the read with its file:line and
 * field; with `onInvalid` it is reported there and skipped (`--skip-invalid`). That an id names one
 * line only is the run's to check (src/audit/run.ts), which sees every range of the file.
 */
export async function* readPromptFile(file: string, source: string, onBytes?: OnBytes, onInvalid?: OnInvalid, range?: ByteRange): AsyncGenerator<AuditPrompt, number> {
  let files: ImageFiles | undefined;
  const lines = jsonLines(file, 'prompt file', onBytes, { inlineImages: true, ...(onInvalid ? { onInvalid } : {}), ...(range ? { range } : {}) });
  for (;;) {
    const next = await lines.next();
    if (next.done) return next.value;
    const { line, value, images } = next.value;
    files ??= ImageFiles.besides(file);
    let prompt: AuditPrompt;
    try {
      prompt = atLine(file, line, () => promptOf(value, source, line, { files: files as ImageFiles, ...(images ? { inline: images } : {}) }));
    } catch (err) {
      if (!onInvalid || !(err instanceof InputError)) throw err;
      onInvalid(err);
      continue;
    }
    yield prompt;
  }
}

function promptOf(value: unknown, source: string, line: number, sources: ImageSources): AuditPrompt {
  if (!isRecord(value)) throw new MessageError('(line)', 'expected a JSON object {"id", "task_id" | "split"+"index", "messages"}');
  const { id } = value;
  if (!(typeof id === 'string' && id !== '') && !(typeof id === 'number' && Number.isFinite(id))) {
    throw new MessageError('id', 'expected a non-empty string (or a number) naming the prompt');
  }
  const messages = auditMessages(value.messages, 'messages', sources);
  return { source, promptId: String(id), line, task: taskRefOf(value), messages, agentPoints: pointsInModelMessages(messages) };
}

/** `task_id`, else `split` and `index`: how a line (or a parquet row) names its task. */
export function taskRefOf(value: Record<string, unknown>): TaskRef {
  if (typeof value.task_id === 'string' && value.task_id !== '') return { taskId: value.task_id };
  if (value.task_id !== undefined && value.task_id !== null) throw new MessageError('task_id', 'expected a non-empty string');
  const { split, index } = value;
  if (typeof split !== 'string' || split === '') throw new MessageError('split', 'expected "task_id", or "split" and "index" naming the task');
  if (typeof index !== 'number' || !Number.isInteger(index) || index < 0) throw new MessageError('index', 'expected a task index (an integer >= 0) with "split"');
  return { split, index };
}
