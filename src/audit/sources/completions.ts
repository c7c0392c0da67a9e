/**
 * TRL's completion logs (`completions/completions_*.parquet`, columns `prompt` and `completion`),
 * read a row group at a time with hyparquet. Either column is a list of chat messages or the text
 * the chat template rendered. Rendered text is cut at its ChatML markers (`<|im_start|>role`): the
 * assistant's turns are the model's, everything else the harness's; in a multi-turn rollout the
 * tool results inside the completion (`<tool_response>`) are the environment's too. The agent's
 * points are its tool calls (`<tool_call>` JSON or `<function=...>` parameters). TRL logs no task
 * unless the dataset's columns were kept: `task_id`, or `split` and `index`, are read when present;
 * a row without them is reported as a prompt of unknown task.
 */
import { InputError } from '../../core/errors.js';
import { assertReadableFile } from '../../files.js';
import { checkParquetBounds } from '../../parquet-bounds.js';
import type { AuditMessage, AuditPrompt, TaskRef } from '../types.js';
import type { OnBytes } from './jsonl.js';
import { answered, auditMessages, MessageError, OpenCalls, pointsInModelMessages } from './messages.js';

/** A TaskRef no task has: a row that names none is audited, and reported as of an unknown task, saying why. */
export const NO_TASK: TaskRef = { taskId: '(none: the row has no task_id, or split and index, columns)' };

export async function* readCompletionsFile(file: string, source: string, onBytes?: OnBytes): AsyncGenerator<AuditPrompt> {
  await assertReadableFile(file, 'completions file');
  const [{ asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects }, { compressors }] = await Promise.all([
    import('hyparquet'),
    import('hyparquet-compressors'),
  ]);
  // Absurd metadata is refused before hyparquet parses it (docs/reliability.md, "Parquet metadata").
  await checkParquetBounds(file);
  const buffer = await asyncBufferFromFile(file);
  let metadata;
  try {
    metadata = await parquetMetadataAsync(buffer);
  } catch (err) {
    throw new InputError(`not a parquet file: ${(err as Error).message}`, { file });
  }
  const names = new Set(metadata.schema.map((element) => element.name));
  for (const column of ['prompt', 'completion']) {
    if (!names.has(column)) throw new InputError(`no "${column}" column: expected TRL's completions log (columns prompt, completion)`, { file, field: column });
  }
  const columns = ['prompt', 'completion', 'task_id', 'split', 'index'].filter((name) => names.has(name));
  let rowStart = 0;
  for (const group of metadata.row_groups) {
    const rowEnd = rowStart + Number(group.num_rows);
    let rows;
    try {
      rows = await parquetReadObjects({ file: buffer, metadata, columns, rowStart, rowEnd, compressors });
    } catch (err) {
      throw new InputError(`cannot read rows ${rowStart}-${rowEnd - 1}: ${(err as Error).message}`, { file });
    }
    onBytes?.(Number(group.total_compressed_size ?? group.total_byte_size));
    for (const [i, row] of rows.entries()) {
      const at = rowStart + i;
      try {
        yield rowPrompt(row, at, source);
      } catch (err) {
        if (err instanceof MessageError) throw new InputError(err.message, { file, field: `row ${at}: ${err.field}` });
        throw err;
      }
    }
    rowStart = rowEnd;
  }
}

function rowPrompt(row: Record<string, unknown>, at: number, source: string): AuditPrompt {
  const messages = [...chatOf(row.prompt, 'prompt', 'user'), ...chatOf(row.completion, 'completion', 'assistant')];
  return { source, promptId: `row ${at}`, task: rowTask(row), messages, agentPoints: pointsInModelMessages(messages) };
}

function rowTask(row: Record<string, unknown>): TaskRef {
  if (typeof row.task_id === 'string' && row.task_id !== '') return { taskId: row.task_id };
  const index = typeof row.index === 'bigint' ? Number(row.index) : row.index;
  if (typeof row.split === 'string' && typeof index === 'number' && Number.isInteger(index) && index >= 0) return { split: row.split, index };
  return NO_TASK;
}

/** A column's value as messages: a list of chat messages (or its JSON), else rendered chat text. */
function chatOf(value: unknown, field: string, leadingRole: string): AuditMessage[] {
  if (value === null || value === undefined) return [];
  if (Array.isArray(value)) return auditMessages(value, field, { files: null });
  if (typeof value !== 'string') throw new MessageError(field, 'expected text or a list of chat messages');
  if (value.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(value);
      if (Array.isArray(parsed)) return auditMessages(parsed, field, { files: null });
    } catch {
      // rendered text that happens to start with a bracket
    }
  }
  return renderedChat(value, leadingRole);
}

const TURN_START = /<\|im_start\|>(\w+)\n?/g;
const TURN_END = /<\|im_end\|>\s*$/;
const TOOL_RESPONSE = /<tool_response>([\s\S]*?)(?:<\/tool_response>|$)/g;

/** ChatML text as messages; text before the first marker belongs to `leadingRole`. */
function renderedChat(text: string, leadingRole: string): AuditMessage[] {
  const turns: { role: string; text: string }[] = [];
  let role = leadingRole;
  let from = 0;
  for (const marker of text.matchAll(TURN_START)) {
    turns.push({ role, text: text.slice(from, marker.index) });
    role = marker[1] as string;
    from = marker.index + marker[0].length;
  }
  turns.push({ role, text: text.slice(from) });
  const messages: AuditMessage[] = [];
  const calls = new OpenCalls();
  // A template puts tool results in a user turn, or leaves them inside the assistant's: either way each answers the next open call.
  const results = (body: string) =>
    body.replace(TOOL_RESPONSE, (_, result: string) => {
      const call = calls.answer(undefined);
      messages.push({ author: 'harness', role: 'tool', texts: [result], images: [], ...(call !== undefined ? { answers: answered(call) } : {}) });
      return '';
    });
  for (const turn of turns) {
    const body = turn.text.replace(TURN_END, '');
    if (body.trim() === '') continue;
    if (turn.role !== 'assistant') {
      const rest = results(body);
      if (rest.trim() !== '') messages.push({ author: 'harness', role: turn.role, texts: [rest], images: [] });
      continue;
    }
    const toolCalls = toolCallsIn(body.replace(TOOL_RESPONSE, ''));
    calls.add(toolCalls);
    const own = results(body);
    messages.push({ author: 'model', role: 'assistant', texts: [own], images: [], toolCalls });
  }
  return messages;
}

/** Qwen's tool calls: `<tool_call>{"name", "arguments"}</tool_call>`, or `<function=NAME><parameter=KEY>VALUE</parameter>`. */
function toolCallsIn(text: string): unknown[] {
  const calls: unknown[] = [];
  for (const m of text.matchAll(/<tool_call>\s*(\{[\s\S]*?\})\s*<\/tool_call>/g)) {
    try {
      calls.push(JSON.parse(m[1] as string));
    } catch {
      // a malformed call names no point
    }
  }
  for (const m of text.matchAll(/<function=([\w.-]+)>([\s\S]*?)<\/function>/g)) {
    const args: Record<string, string> = {};
    for (const p of (m[2] as string).matchAll(/<parameter=([\w.-]+)>\s*([\s\S]*?)\s*<\/parameter>/g)) args[p[1] as string] = p[2] as string;
    calls.push({ name: m[1], arguments: args });
  }
  return calls;
}
