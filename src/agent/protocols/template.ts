/**
 * A user's prompt template (`geolab agent --prompt-file FILE`), written like the public harness's own
 * prompts so the published text runs as it is: Python `str.format` syntax with the harness's two
 * placeholders, `{max_turns}` (turns left, this one included) and `{tools}` (the tools offered,
 * comma-separated), and `{{` / `}}` for a literal brace. Anything else in braces is refused when the
 * file is read, before an episode starts.
 *
 * An episode records the template's declared name as its prompt_version (numbers are comparable
 * within one prompt only): a first line `# prompt_version: NAME`, which is not sent. Without one, the
 * version is `file:` and the first 12 hex digits of the file's sha256.
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { InputError } from '../../core/errors.js';

export const TEMPLATE_PLACEHOLDERS = ['max_turns', 'tools'] as const;
export type TemplateValues = Record<(typeof TEMPLATE_PLACEHOLDERS)[number], string | number>;

export interface PromptTemplate {
  /** Recorded as config.prompt_version. */
  version: string;
  /** The template without its declaration line. */
  text: string;
  file: string;
}

/** A template is a page of text: anything larger is not one. */
const MAX_TEMPLATE_BYTES = 256 * 1024;
const DECLARATION = /^#\s*prompt_version:\s*(\S.*?)\s*$/;
const VERSION_NAME = /^[A-Za-z0-9][A-Za-z0-9._:+-]{0,63}$/;
const HASH_PREFIX_CHARS = 12;

/** Reads and checks a template file; every problem is an InputError naming file:line. */
export function loadPromptTemplate(file: string): PromptTemplate {
  let bytes: Buffer;
  try {
    const info = statSync(file);
    if (!info.isFile()) throw new InputError('not a regular file: expected a prompt template (a text file)', { file });
    if (info.size > MAX_TEMPLATE_BYTES) throw new InputError(`${info.size} bytes: a prompt template must be at most ${MAX_TEMPLATE_BYTES} bytes`, { file });
    bytes = readFileSync(file);
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw new InputError(`cannot read prompt template: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, { file });
  }
  const raw = bytes.toString('utf8').replace(/^\uFEFF/, '');
  const lines = raw.split(/\r?\n/);
  const declared = DECLARATION.exec(lines[0] ?? '');
  let version = `file:${createHash('sha256').update(bytes).digest('hex').slice(0, HASH_PREFIX_CHARS)}`;
  let firstLine = 1;
  if (declared) {
    const name = declared[1] as string;
    if (!VERSION_NAME.test(name)) {
      throw new InputError(`prompt_version "${name}" is not a name: expected letters, digits and . _ : + - (at most 64 characters)`, { file, line: 1 });
    }
    version = name;
    firstLine = 2;
  }
  const body = lines.slice(firstLine - 1);
  body.forEach((line, i) => checkLine(line, file, firstLine + i));
  const text = body.join('\n').trim();
  if (text === '') throw new InputError('the prompt template is empty: expected the prompt text, with {max_turns} and {tools} where the harness fills them in', { file });
  return { version, text, file };
}

/** Python's str.format over the checked template: placeholders filled, doubled braces made single. */
export function fillTemplate(template: PromptTemplate, values: TemplateValues): string {
  return template.text.replace(/\{\{|\}\}|\{([a-z_]+)\}/g, (match, name: string | undefined) =>
    name === undefined ? match[0]! : String(values[name as keyof TemplateValues]),
  );
}

function checkLine(line: string, file: string, lineNo: number): void {
  const expected = `expected ${TEMPLATE_PLACEHOLDERS.map((p) => `{${p}}`).join(' or ')}, or {{ and }} for a literal brace`;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if ((ch === '{' || ch === '}') && line[i + 1] === ch) {
      i++;
      continue;
    }
    if (ch === '}') throw new InputError(`a single "}" at column ${i + 1}: ${expected}`, { file, line: lineNo });
    if (ch !== '{') continue;
    const close = line.indexOf('}', i);
    const name = close < 0 ? null : line.slice(i + 1, close);
    if (name === null) throw new InputError(`a "{" at column ${i + 1} is never closed: ${expected}`, { file, line: lineNo });
    if (!(TEMPLATE_PLACEHOLDERS as readonly string[]).includes(name)) {
      throw new InputError(`unknown placeholder {${name}} at column ${i + 1}: ${expected}`, { file, line: lineNo });
    }
    i = close;
  }
}
