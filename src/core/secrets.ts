/**
 * Secrets (API keys, tokens) kept out of everything geolab stores or prints (docs/secrets.md). A
 * secret is registered where it is read; from then on `redact` removes it from any text.
 *
 * A key of FRAGMENT_CHARS or more characters is removed whole or in part: any run of FRAGMENT_CHARS
 * or more of its characters is replaced, so an error body that a server or a truncation cut in the
 * middle of the key leaks no piece of it either. Redact first, truncate after. The key is looked for
 * as it is and as it reads inside a JSON string (once and twice escaped), for a key holding `"` or
 * `\` that an error body echoes.
 *
 * A shorter key (`x`, common with a local vLLM) looks like ordinary text: blanking it wherever it
 * occurs would mangle every record (`task.inde[redacted]`). It is replaced only where it stands
 * whole: a string that is the key and nothing else, the value of a header or field named like a key
 * (`Authorization: Bearer x`, `"api_key": "x"`) and a JSON member whose value is the key. Free text
 * that mentions it keeps it; the first such key registered is announced once (`onShortSecret`).
 *
 * The registry is process-wide on purpose: the places that print or write (the recorder, the CLI's
 * output, error lines) redact without being told which keys this process happens to hold.
 */

/** Shorter runs are too common in ordinary text to blank; any longer piece of a key is a leak. */
export const FRAGMENT_CHARS = 8;
export const REDACTED = '[redacted]';

const secrets = new Set<string>();
/** Every FRAGMENT_CHARS-long window of every form of every long secret; a longer run is a chain of them. */
const windows = new Set<string>();
/** Every form of every short secret: only where one stands whole can it be recognised. */
const shortForms = new Set<string>();
/** Patterns finding a short secret's form where it stands whole; group `k` is the key itself. */
let shortPatterns: RegExp[] = [];

type ShortSecretListener = (source: string | undefined) => void;
let shortListener: ShortSecretListener | null = null;
/** The first short secret registered, told to the listener once (null: none yet, or told). */
let pendingShort: { source: string | undefined } | null = null;
let shortTold = false;

/** Environment variable names that hold keys by convention (HF_TOKEN, OPENAI_API_KEY, AWS_SECRET_ACCESS_KEY, PGPASSWORD, ...). */
const SECRET_WORD = /TOKEN|SECRET|PASSWORD|PASSWD/i;
/** Shorter words count only whole between underscores: GIT_AUTHOR_NAME and KEYBOARD hold no key. */
const SECRET_PART = /(^|_)(KEY|AUTH|PASS|CREDENTIALS?)(_|$)/i;

export function isSecretName(name: string): boolean {
  return SECRET_WORD.test(name) || SECRET_PART.test(name);
}

/**
 * Registers a secret (an empty or absent value is ignored); returns the value, for reading in one go.
 * `source` says where it came from (`$OPENAI_API_KEY`), for the notice about a short key.
 */
export function registerSecret<T extends string | undefined>(value: T, source?: string): T {
  if (!value || secrets.has(value)) return value;
  secrets.add(value);
  const forms = formsOf(value);
  if (value.length < FRAGMENT_CHARS) {
    for (const form of forms) shortForms.add(form);
    shortPatterns = [...shortForms].flatMap(patternsOf);
    if (!shortTold && pendingShort === null) {
      pendingShort = { source };
      tellShort();
    }
  } else {
    for (const form of forms) for (let i = 0; i + FRAGMENT_CHARS <= form.length; i++) windows.add(form.slice(i, i + FRAGMENT_CHARS));
  }
  return value;
}

/**
 * Who says, once per process, that a short key cannot be scrubbed from free text (the CLI, on
 * stderr). A short key registered before the listener is told to it at once.
 */
export function onShortSecret(listener: ShortSecretListener | null): void {
  shortListener = listener;
  tellShort();
}

/** What the notice says, for whoever prints it. */
export function shortSecretNotice(source: string | undefined): string {
  const which = source ? `the key in ${source}` : 'a key';
  return (
    `${which} is shorter than ${FRAGMENT_CHARS} characters, too short to tell from ordinary text: ` +
    `it is kept out of records and output where it stands whole (an Authorization header, a field holding only the key), ` +
    `but cannot be scrubbed from free text`
  );
}

function tellShort(): void {
  if (shortListener === null || pendingShort === null) return;
  const { source } = pendingShort;
  pendingShort = null;
  shortTold = true;
  shortListener(source);
}

/** The key as it is, and as it reads inside a JSON string once and twice (an echoed request body quoted in an error). */
function formsOf(value: string): string[] {
  const once = JSON.stringify(value).slice(1, -1);
  const twice = JSON.stringify(once).slice(1, -1);
  return [...new Set([value, once, twice])];
}

/** A character that could go on a token: a match must not stop in the middle of a longer word. */
const TOKEN_CHAR = String.raw`[A-Za-z0-9._~+/=\\-]`;

function patternsOf(form: string): RegExp[] {
  const escaped = form.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const key = `(?<k>${escaped})(?!${TOKEN_CHAR})`;
  // Bounded name words: an unbounded one would search a long unbroken text (a base64 string) in quadratic time.
  return [
    // A scheme and the key: `Bearer x`, `Basic x`, `OAuth x` (an echoed Authorization header).
    new RegExp(String.raw`\b(?:Bearer|Basic|OAuth|Token)\s+${key}`, 'dgi'),
    // A header or field named like a key: `x-api-key: x`, `"api_key": "x"`, `token=x`, `authorization: x`.
    new RegExp(String.raw`(?:auth\w{0,16}|key|token|secret|passw\w{0,4})["']?\s*[:=]\s*["']?${key}`, 'dgi'),
    // A JSON (or Python) member whose whole value is the key.
    new RegExp(String.raw`:\s*(?<q>["'])(?<k>${escaped})\k<q>`, 'dg'),
  ];
}

/** `text` with every registered secret, and every run of FRAGMENT_CHARS or more of a long one, replaced by [redacted]. */
export function redact(text: string): string {
  if (secrets.size === 0 || text.length === 0) return text;
  if (shortForms.has(text)) return REDACTED;
  const spans: [number, number][] = [];
  const mark = (needle: string) => {
    for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) spans.push([at, at + needle.length]);
  };
  // One native search per window beats looking up every position of the text in a set.
  if (text.length >= FRAGMENT_CHARS) for (const window of windows) mark(window);
  for (const pattern of shortPatterns) {
    pattern.lastIndex = 0;
    for (const match of text.matchAll(pattern)) {
      const at = match.indices?.groups?.k;
      // The names match in any case; the key only as it is.
      if (at && shortForms.has(match.groups!.k!)) spans.push([at[0], at[1]]);
    }
  }
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

/**
 * A copy of a JSON-like value with every string in it redacted: values as `redact` does, keys only
 * of long secrets' pieces (a key is a field's name, not a value that could be a short key).
 */
export function redactDeep<T>(value: T): T {
  if (secrets.size === 0) return value;
  return walk(value) as T;
}

function walk(value: unknown): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) return value.map(walk);
  if (typeof value === 'object' && value !== null && isPlain(value)) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [redactKey(key), walk(item)]));
  }
  return value;
}

/** A member's name: pieces of long secrets only (a short key is recognised by where it stands, and a name stands nowhere). */
function redactKey(key: string): string {
  if (windows.size === 0 || key.length < FRAGMENT_CHARS) return key;
  let found = false;
  for (const window of windows) if (key.includes(window)) found = true;
  return found ? redact(key) : key;
}

function isPlain(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}
