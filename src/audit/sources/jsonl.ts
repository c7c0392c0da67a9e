/** The JSON lines of an input file, parsed one at a time; a bad line is an InputError naming file:line. */
import { InputError } from '../../core/errors.js';
import { assertReadableFile, textLines } from '../../files.js';
import { MessageError } from './messages.js';

export interface JsonLine {
  line: number;
  value: unknown;
}

/** Counts what a reader has consumed, for the progress line's rate and ETA. */
export type OnBytes = (bytes: number) => void;

export async function* jsonLines(file: string, what: string, onBytes?: OnBytes): AsyncGenerator<JsonLine> {
  await assertReadableFile(file, what);
  for await (const { line, text } of textLines(file)) {
    onBytes?.(text.length + 1);
    if (text.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw new InputError(`not valid JSON: ${(err as Error).message}`, { file, line });
    }
    yield { line, value };
  }
}

/** Runs `read` on one line's value, turning a MessageError into an InputError naming file:line and field. */
export function atLine<T>(file: string, line: number, read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof MessageError) throw new InputError(err.message, { file, line, field: err.field });
    throw err;
  }
}
