/**
 * Secrets (API keys, tokens) kept out of everything geolab stores or prints (DESIGN §12). A secret is
 * registered where it is read; from then on `redact` removes it from any text, whole or in part: any
 * run of FRAGMENT_CHARS or more of its characters is replaced, so an error body that a server or a
 * truncation cut in the middle of the key leaks no piece of it either. Redact first, truncate after.
 *
 * The registry is process-wide on purpose: the places that print or write (the recorder, the CLI's
 * output, error lines) redact without being told which keys this process happens to hold.
 */

/** Shorter runs are too common in ordinary text to blank; any longer piece of a key is a leak. */
export const FRAGMENT_CHARS = 8;
export const REDACTED = '[redacted]';

const secrets = new Set<string>();
/** Every FRAGMENT_CHARS-long window of every registered secret; a longer run is a chain of them. */
const windows = new Set<string>();
/** Secrets too short to have windows: only their whole occurrences can be recognised. */
const shortSecrets = new Set<string>();

/** Environment variable names that hold keys by convention (HF_TOKEN, OPENAI_API_KEY, AWS_SECRET_ACCESS_KEY, PGPASSWORD, ...). */
const SECRET_WORD = /TOKEN|SECRET|PASSWORD|PASSWD/i;
/** Shorter words count only whole between underscores: GIT_AUTHOR_NAME and KEYBOARD hold no key. */
const SECRET_PART = /(^|_)(KEY|AUTH|PASS|CREDENTIALS?)(_|$)/i;

export function isSecretName(name: string): boolean {
  return SECRET_WORD.test(name) || SECRET_PART.test(name);
}

/** Registers a secret (an empty or absent value is ignored); returns the value, for reading in one go. */
export function registerSecret<T extends string | undefined>(value: T): T {
  if (!value || secrets.has(value)) return value;
  secrets.add(value);
  if (value.length < FRAGMENT_CHARS) shortSecrets.add(value);
  for (let i = 0; i + FRAGMENT_CHARS <= value.length; i++) windows.add(value.slice(i, i + FRAGMENT_CHARS));
  return value;
}

/** `text` with every registered secret, and every run of FRAGMENT_CHARS or more of one, replaced by [redacted]. */
export function redact(text: string): string {
  if (secrets.size === 0 || text.length === 0) return text;
  const spans: [number, number][] = [];
  const mark = (needle: string) => {
    for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) spans.push([at, at + needle.length]);
  };
  // One native search per window beats looking up every position of the text in a set.
  if (text.length >= FRAGMENT_CHARS) for (const window of windows) mark(window);
  for (const secret of shortSecrets) mark(secret);
  if (spans.length === 0) return text;
  spans.sort((a, b) => a[0] - b[0]);
  let out = '';
  // Spans that overlap or touch become one mark; `end` is where the text not yet copied starts.
  let end = -1;
  for (const [start, stop] of spans) {
    if (start > end) out += (end === -1 ? '' : REDACTED) + text.slice(Math.max(end, 0), start);
    end = Math.max(end, stop);
  }
  return out + REDACTED + text.slice(end);
}

/** A copy of a JSON-like value with every string in it (keys included) redacted. */
export function redactDeep<T>(value: T): T {
  if (secrets.size === 0) return value;
  return walk(value) as T;
}

function walk(value: unknown): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) return value.map(walk);
  if (typeof value === 'object' && value !== null && isPlain(value)) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [redact(key), walk(item)]));
  }
  return value;
}

function isPlain(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}
