/**
 * The training config as a file: read with every problem placed at its file:line and field, paths
 * resolved against the file's own folder (a config moved with its run keeps working), and written
 * atomically with every default spelled out, so what the trainer runs is what the file says.
 */
import { dirname, isAbsolute, resolve } from 'node:path';
import { EXIT, GeolabError, InputError, formatWhere } from '../core/errors.js';
import { jsonErrorOffset, lineAtOffset } from '../core/json-text.js';
import { readRegularFile, writeFileAtomic } from '../files.js';
import { TrainConfigSchema, parseTrainConfig, type ConfigProblem, type TrainConfig } from './config.js';

/** The name `train init` gives the config inside a run folder. */
export const CONFIG_FILE = 'config.json';

export interface LocatedProblem extends ConfigProblem {
  /** Line of the field's key in the file (of its nearest enclosing key when the field is absent). */
  line?: number;
}

export type ConfigRead = { ok: true; config: TrainConfig; file: string } | { ok: false; file: string; problems: LocatedProblem[] };

/**
 * Reads and validates a config file. A file that cannot be read at all is an InputError (exit 2);
 * JSON or schema problems come back as values, so pre-flight can report them as failed checks.
 */
const MAX_CONFIG_BYTES = 4 * 2 ** 20;

export async function readTrainConfigFile(path: string): Promise<ConfigRead> {
  const file = resolve(path);
  let text: string;
  try {
    // A config is a few KB: a FIFO, a device or a huge file is refused, never read (docs/reliability.md).
    text = readRegularFile(path, MAX_CONFIG_BYTES, 'the training config').toString('utf8').replace(/^\uFEFF/, '');
  } catch (err) {
    if (err instanceof InputError && err.message.endsWith('a directory, not a regular file')) {
      throw new InputError(`cannot read the training config: a folder, expected a ${CONFIG_FILE} file`, { file: path });
    }
    throw err;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, file, problems: [{ field: '(root)', message: `not valid JSON: ${(err as Error).message}`, line: lineAtOffset(text, jsonErrorOffset(text)) }] };
  }
  const lines = keyLines(text);
  const placed = (p: ConfigProblem): LocatedProblem => ({ ...p, line: lineOfField(lines, p.field) });
  // The schema's own issues first: they carry unknown keys one by one, which parseTrainConfig folds.
  const schema = TrainConfigSchema.safeParse(value);
  if (!schema.success) {
    const problems = schema.error.issues.flatMap((issue) => {
      const at = issue.path.map(String);
      if (issue.code === 'unrecognized_keys') {
        return issue.keys.map((key) => placed({ field: [...at, key].join('.'), message: `unknown field: expected one of ${knownKeys(at).join(', ')}` }));
      }
      return [placed({ field: at.join('.') || '(root)', message: issue.message })];
    });
    return { ok: false, file, problems };
  }
  const parsed = parseTrainConfig(value);
  if ('problems' in parsed) return { ok: false, file, problems: parsed.problems.map(placed) };
  return { ok: true, config: resolveConfigPaths(parsed.config, dirname(file)), file };
}

/** readTrainConfigFile for commands that need a usable config: problems are one InputError (exit 2). */
export async function loadTrainConfig(path: string): Promise<{ config: TrainConfig; file: string }> {
  const read = await readTrainConfigFile(path);
  if (!read.ok) throw new GeolabError(formatProblems(read.file, read.problems).join('\n'), EXIT.usage);
  return read;
}

/** One line per problem: `file:line: field F: message`. */
export function formatProblems(file: string, problems: readonly LocatedProblem[]): string[] {
  return problems.map((p) => formatWhere({ file, line: p.line, field: p.field === '(root)' ? undefined : p.field }) + p.message);
}

/**
 * The config with output_dir, env.panos, the files of env.tasks (`SPLIT=FILE`) and a python given
 * as a path (`venv/bin/python`, not a bare `python3` looked up on PATH) made absolute against
 * `baseDir` (the config file's folder).
 */
export function resolveConfigPaths(config: TrainConfig, baseDir: string): TrainConfig {
  const abs = (p: string) => (isAbsolute(p) ? p : resolve(baseDir, p));
  return {
    ...config,
    output_dir: abs(config.output_dir),
    python: config.python.includes('/') ? abs(config.python) : config.python,
    env: {
      ...config.env,
      panos: config.env.panos === undefined ? undefined : abs(config.env.panos),
      tasks: config.env.tasks.map((spec) => {
        const at = spec.indexOf('=');
        return at > 0 ? `${spec.slice(0, at)}=${abs(spec.slice(at + 1))}` : abs(spec);
      }),
    },
  };
}

/** Writes the config (every default spelled out) atomically: no reader ever sees half a file. */
export function writeTrainConfig(file: string, config: TrainConfig): void {
  writeFileAtomic(file, JSON.stringify(config, null, 2) + '\n');
}

function knownKeys(path: readonly string[]): string[] {
  let shape: unknown = TrainConfigSchema;
  for (const key of path) shape = (unwrap(shape) as { shape?: Record<string, unknown> }).shape?.[key];
  return Object.keys((unwrap(shape) as { shape?: Record<string, unknown> }).shape ?? {});
}

/** Through zod's default/prefault/optional wrappers to the object inside. */
function unwrap(schema: unknown): unknown {
  let at = schema as { def?: { innerType?: unknown } } | undefined;
  while (at?.def?.innerType) at = at.def.innerType as typeof at;
  return at;
}

/** The line of a field, or of the nearest enclosing key present in the file. */
function lineOfField(lines: ReadonlyMap<string, number>, field: string): number | undefined {
  const parts = field === '(root)' ? [] : field.split('.');
  for (let n = parts.length; n > 0; n--) {
    const line = lines.get(parts.slice(0, n).join('.'));
    if (line !== undefined) return line;
  }
  return undefined;
}

/**
 * Where each key of a valid JSON text is: its dotted path (array elements by index, as zod names
 * them) to the line the key (or element) starts on. The first occurrence wins for a repeated key.
 */
export function keyLines(text: string): Map<string, number> {
  const out = new Map<string, number>();
  const stack: { path: string[]; array: boolean; index: number; key: string | undefined }[] = [];
  let line = 1;
  const here = () => stack[stack.length - 1];
  const pathOfValue = (): string[] | undefined => {
    const top = here();
    if (!top) return [];
    if (top.array) return [...top.path, String(top.index)];
    return top.key === undefined ? undefined : [...top.path, top.key];
  };
  const startValue = () => {
    const top = here();
    const path = pathOfValue();
    if (top?.array && path) {
      const name = path.join('.');
      if (!out.has(name)) out.set(name, line);
    }
    return path ?? [];
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\n') line++;
    else if (c === '{' || c === '[') stack.push({ path: startValue(), array: c === '[', index: 0, key: undefined });
    else if (c === '}' || c === ']') stack.pop();
    else if (c === ',') {
      const top = here();
      if (top?.array) top.index++;
      else if (top) top.key = undefined;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < text.length && text[j] !== '"'; j++) if (text[j] === '\\') j++;
      const top = here();
      // A string in an object where no key was read yet is a key.
      if (top && !top.array && top.key === undefined) {
        top.key = JSON.parse(text.slice(i, j + 1)) as string;
        const name = [...top.path, top.key].join('.');
        if (!out.has(name)) out.set(name, line);
      } else startValue();
      i = j;
    } else if (c !== ' ' && c !== '\t' && c !== '\r' && c !== ':') {
      // A number, true, false or null: only an array element needs placing.
      if (here()?.array) startValue();
      while (i + 1 < text.length && !',]}\n \t\r'.includes(text[i + 1] as string)) i++;
    }
  }
  return out;
}
