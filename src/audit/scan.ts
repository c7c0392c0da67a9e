/**
 * One pass over a text, independent of any task: its words (for identity keys, places and codes),
 * its coordinates, its hex runs and its budget sentences. Prompts repeat most of their text (the
 * system prompt, the same feedback sentences), so scans are cached by text in the AuditSession that
 * made them (session.ts), whose dictionaries pick the words a scan keeps; what a task makes of a
 * scan is decided by the detectors.
 */
import { OUT_OF_ACTIONS } from '../env/feedback.js';
import { findCoordinates, type FoundPoint } from './coordinates.js';
import type { AuditSession } from './session.js';
import { scannableRanges, withItem } from './text.js';
import { asciiLower, FNV_OFFSET, foldLower, hashStep, isAsciiWordChar, isUnspacedCodePoint, isWordCodePoint, wordHash } from './words.js';

export type BudgetUnit = 'turns' | 'steps';

export interface BudgetClaim {
  unit: BudgetUnit;
  left: number;
  start: number;
  end: number;
}

/**
 * A text's notable words (word i spans start(i)..end(i)): those whose hash some
 * dictionary of words of its session held when the text was scanned (see AuditSession). Most words of a
 * prompt are in none, and scans are cached, so whatever they hold lives long: no string or object
 * per word, and none at all for the others. A detector keys its dictionary (lexicon, identity keys,
 * towns) by the hash and asks for a word's strings (`folded`, `lowerAt`) only when it holds it.
 */
export interface TextScan {
  /** The session whose dictionaries its words were picked by. */
  readonly session: AuditSession;
  /** The session's generation of dictionaries its words were picked in (see AuditSession). */
  readonly generation: number;
  readonly count: number;
  start(i: number): number;
  end(i: number): number;
  /** wordHash of the word's folded form. */
  hash(i: number): number;
  /** Lower case without accents ("nis" for "Niš"). */
  folded(i: number): string;
  /** Lower case, as written otherwise (accents kept): the folded word unless the word has accents. */
  lowerAt(i: number): string;
  readonly points: readonly FoundPoint[];
  /** Words of 12 or more hex digits (checksums and their prefixes), lower case. */
  readonly hexWords: readonly { lower: string; start: number; end: number }[];
  readonly budget: readonly BudgetClaim[];
  /** A task index where a label names it one: `"task_index": 3`, `task index 3`, `taskIdx=3`, `task #3`. */
  readonly taskIndexes: readonly { index: number; start: number; end: number }[];
  /** Host names of URLs (and `www.` hosts) that end in a two-letter (country code) top-level domain, lower case. */
  readonly hosts: readonly { tld: string; start: number; end: number }[];
  /** Words with letters of a script written without spaces (CJK, Thai...): start, end, start, end... (see isUnspacedCodePoint). */
  readonly unspaced: readonly number[];
  /**
   * What a detector made of this scan, kept with it under the detector's key (a task's candidates,
   * the country mentions): undefined until `keep` stores it. Kept on the scan rather than in weak
   * maps keyed by it: weak maps of thousands of entries make every garbage collection slower.
   */
  kept(key: object): unknown;
  keep(key: object, value: unknown): void;
}

/**
 * For a detector about to look a scan's words up in its dictionary, registered in `session`: throws
 * when the scan was made by another session (its words were picked by other dictionaries), or when
 * a dictionary gained a word after the scan was made (the scan may lack it). Either is a
 * programming error, never a clean result.
 */
export function checkCurrent(scan: TextScan, session: AuditSession): void {
  if (scan.session !== session) throw new Error('audit: a text scanned by one session was looked up in the dictionaries of another');
  if (scan.generation !== session.generation) throw new Error('audit: a text was scanned before a dictionary of words it is looked up in was made');
}

/**
 * Whether the text before `start` may label a code: a ":" or "=" (then spaces and a quote at most),
 * or an opening bracket. What places.ts's `labelled` then checks in full.
 */
function mayBeLabelled(text: string, start: number): boolean {
  let k = start - 1;
  const open = text.charCodeAt(k);
  if (open === 0x28 || open === 0x5b) return true;
  if (open === 0x22 || open === 0x27) k--;
  while (k >= 0 && isSpace(text.charCodeAt(k))) k--;
  const mark = text.charCodeAt(k);
  return mark === 0x3a || mark === 0x3d;
}

/** Whether `/\s/` matches the character with this code (ECMAScript's white space and line terminators). */
function isSpace(c: number): boolean {
  if (c < 128) return c === 32 || (c >= 9 && c <= 13);
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

const NONE: readonly never[] = Object.freeze([]);

/** Checksum prefixes shorter than this are too likely to occur by chance (12 hex: 1 in 2.8e14). */
export const CHECKSUM_PREFIX_MIN = 12;
/** ASCII hex digits, by char code. */
const HEX_CHAR = Uint8Array.from({ length: 128 }, (_, c) => (/[0-9A-Fa-f]/.test(String.fromCharCode(c)) ? 1 : 0));

// A word's hex digits and small letters are looked at only for the few words that need them
// (12 characters or more; a code's first word), not while every character is read.
function allHex(text: string, from: number, to: number): boolean {
  for (let k = from; k < to; k++) {
    const c = text.charCodeAt(k);
    if (c >= 128 || HEX_CHAR[c] === 0) return false;
  }
  return true;
}

function hasSmallLetter(text: string, from: number, to: number): boolean {
  for (let k = from; k < to; k++) {
    const c = text.charCodeAt(k);
    if (c >= 97 && c <= 122) return true;
  }
  return false;
}

/**
 * The budget a harness or the environment states: "8 tool calls left.", "3 turns left, this one
 * included", "only 2 turn(s) left", "No tool calls left", "You have 12 actions.", "5 actions remain.",
 * "Out of actions.". Turns and tool calls count the model's turns, actions and steps the environment's.
 */
const BUDGET =
  /\b(?:(?:only\s+)?(\d+|no)\s+(tool\s+calls?|turns?(?:\(s\))?|actions?|steps?)\s+(?:left|remain(?:ing)?)\b|you\s+have\s+(\d+|no)\s+(tool\s+calls?|turns?|actions?|steps?)\b(?!\s+(?:left|remain)))/gi;
/** Every BUDGET sentence has one of these words: most texts are ruled out without running it. */
const BUDGET_WORD = /left|remain|have/i;
/** The environment's own sentence for a spent budget, as written (lower case "out of actions" is prose). */
const SPENT = new RegExp(OUT_OF_ACTIONS.replace('.', '\\.'), 'g');

export function budgetClaims(text: string, offset: number): readonly BudgetClaim[] {
  let claims: BudgetClaim[] | undefined;
  if (BUDGET_WORD.test(text)) {
    BUDGET.lastIndex = 0;
    for (let m = BUDGET.exec(text); m !== null; m = BUDGET.exec(text)) {
      const n = (m[1] ?? m[3]) as string;
      // Tool calls and turns count turns; actions and steps count steps. The count is digits or "no".
      const turns = (((m[2] ?? m[4]) as string).charCodeAt(0) | 32) === 116;
      claims = withItem(claims, { unit: turns ? 'turns' : 'steps', left: (n.charCodeAt(0) | 32) === 110 ? 0 : Number(n), start: m.index + offset, end: m.index + offset + m[0].length });
    }
  }
  if (text.includes(OUT_OF_ACTIONS)) {
    for (const m of text.matchAll(SPENT)) claims = withItem(claims, { unit: 'steps', left: 0, start: m.index + offset, end: m.index + offset + m[0].length });
  }
  return claims ? claims.sort((a, b) => a.start - b.start) : NONE;
}

const TASK_INDEX = /\btask[\s_-]?(?:index|idx|no\.?|number|#)["']?\s*[:=#]?\s*["']?(\d+)\b|\btask\s*#(\d+)\b/gi;
const TASK_WORD = /task/i;

export function taskIndexes(text: string, offset: number): TextScan['taskIndexes'] {
  if (!TASK_WORD.test(text)) return NONE;
  const found = [...text.matchAll(TASK_INDEX)].map((m) => ({ index: Number(m[1] ?? m[2]), start: m.index + offset, end: m.index + offset + m[0].length }));
  return found.length ? found : NONE;
}

/**
 * A host after a URL's scheme (and user info) or starting with `www.`, whose last label has two
 * letters: `https://tiles.example.rs/...`, `www.posta.rs`. Not a file name (`main.rs`, `notes.md`):
 * only hosts of URLs and www. names count.
 */
const HOST = /(?:\b[a-z][a-z0-9+.-]*:\/\/(?:[^\s/?#@"']*@)?|(?<![\w.-])(?=www\.))((?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+([a-z]{2}))(?![a-z0-9-]|\.[a-z0-9])/gi;

export function hostsOf(text: string, offset: number): TextScan['hosts'] {
  if (!text.includes('://') && !/www\./i.test(text)) return NONE;
  const found = [...text.matchAll(HOST)].map((m) => {
    const start = m.index + m[0].length - (m[1] as string).length + offset;
    return { tld: (m[2] as string).toLowerCase(), start, end: start + (m[1] as string).length };
  });
  return found.length ? found : NONE;
}

/** Keys kept per scan: a text shared by every task's prompts (a system prompt) keeps the latest ones. */
const KEPT_MAX = 64;

class Scan implements TextScan {
  // Most scans keep two values (the mentions and one task's candidates): those in fields, the rest
  // (a text shared by many tasks' prompts) in `more`, keys and values alternating.
  private key0: object | undefined;
  private value0: unknown;
  private key1: object | undefined;
  private value1: unknown;
  private more: unknown[] | undefined;

  constructor(
    private readonly text: string,
    readonly session: AuditSession,
    /** The session's generation of dictionaries the words were picked in. */
    readonly generation: number,
    /** Three numbers a word: start, end, hash. */
    private readonly columns: readonly number[],
    /** Words with letters beyond ASCII: their lower case and folded forms, made while scanning. */
    private readonly nonAscii: ReadonlyMap<number, { lower: string; folded: string }> | null,
    readonly points: readonly FoundPoint[],
    readonly hexWords: TextScan['hexWords'],
    readonly budget: readonly BudgetClaim[],
    readonly taskIndexes: TextScan['taskIndexes'],
    readonly hosts: TextScan['hosts'],
    readonly unspaced: readonly number[],
  ) {}

  get count(): number {
    return this.columns.length / 3;
  }

  start(i: number): number {
    return this.columns[i * 3] as number;
  }

  end(i: number): number {
    return this.columns[i * 3 + 1] as number;
  }

  hash(i: number): number {
    return this.columns[i * 3 + 2] as number;
  }

  folded(i: number): string {
    // Made when asked for: a word is asked for only when a dictionary holds its hash.
    return this.nonAscii?.get(i)?.folded ?? this.text.slice(this.start(i), this.end(i)).toLowerCase();
  }

  lowerAt(i: number): string {
    return this.nonAscii?.get(i)?.lower ?? this.folded(i);
  }

  kept(key: object): unknown {
    if (this.key0 === key) return this.value0;
    if (this.key1 === key) return this.value1;
    const more = this.more;
    if (more) for (let k = 0; k < more.length; k += 2) if (more[k] === key) return more[k + 1];
    return undefined;
  }

  keep(key: object, value: unknown): void {
    if (this.key0 === undefined) {
      this.key0 = key;
      this.value0 = value;
    } else if (this.key1 === undefined) {
      this.key1 = key;
      this.value1 = value;
    } else if (!this.more || this.more.length >= 2 * KEPT_MAX) {
      this.more = [key, value];
    } else {
      this.more.push(key, value);
    }
  }
}

/**
 * Scans a text with the session's dictionaries: the words kept are those a dictionary registered in
 * the session holds. Callers go through AuditSession.scanText, which caches scans.
 */
export function makeScan(text: string, session: AuditSession): TextScan {
  const scratch = session.scratch;
  let kept = 0;
  let nonAsciiWords: Map<number, { lower: string; folded: string }> | null = null;
  let hexWords: { lower: string; start: number; end: number }[] | undefined;
  let points: readonly FoundPoint[] = NONE;
  let budget: readonly BudgetClaim[] = NONE;
  let indexes: TextScan['taskIndexes'] = NONE;
  let hosts: TextScan['hosts'] = NONE;
  let unspacedRuns: number[] | undefined;
  // Most texts hold no data URL: one range, the whole text, without making one.
  const ranges = text.includes(';base64,') ? scannableRanges(text) : null;
  const parts = ranges ? ranges.length : 1;
  for (let r = 0; r < parts; r++) {
    const from = ranges ? (ranges[r] as [number, number])[0] : 0;
    const to = ranges ? (ranges[r] as [number, number])[1] : text.length;
    let digits = 0;
    let start = -1;
    let nonAscii = false;
    let unspaced = false;
    let hash = FNV_OFFSET;
    // One pass over the characters: words are maximal runs of letters, marks and digits, hashed as read.
    for (let i = from; i <= to; ) {
      let width = 1;
      let isWord = false;
      let c = 0;
      if (i < to) {
        c = text.charCodeAt(i);
        if (c < 128) {
          isWord = isAsciiWordChar(c);
          if (c >= 48 && c <= 57) digits++;
        } else {
          let cp = c;
          if (c >= 0xd800 && c <= 0xdbff && i + 1 < to) {
            const low = text.charCodeAt(i + 1);
            if (low >= 0xdc00 && low <= 0xdfff) {
              cp = (c - 0xd800) * 0x400 + (low - 0xdc00) + 0x10000;
              width = 2;
            }
          }
          isWord = isWordCodePoint(cp);
          // Set before a new word's start is known: reset where each word ends.
          if (isWord && !unspaced && isUnspacedCodePoint(cp)) unspaced = true;
        }
      }
      if (isWord) {
        if (start < 0) {
          start = i;
          nonAscii = false;
          hash = FNV_OFFSET;
        }
        if (c < 128) {
          hash = hashStep(hash, asciiLower(c));
        } else {
          nonAscii = true;
        }
      } else if (start >= 0) {
        let lower: string | undefined;
        let folded: string | undefined;
        if (nonAscii) {
          lower = text.slice(start, i).toLowerCase();
          folded = foldLower(lower);
          hash = wordHash(folded);
        } else if (i - start >= CHECKSUM_PREFIX_MIN && allHex(text, start, i)) {
          hexWords = withItem(hexWords, { lower: text.slice(start, i).toLowerCase(), start, end: i });
        }
        // A word with letters beyond ASCII may be written in capitals: kept when it is a code's.
        if (session.holdsWord(hash) || (session.holdsCode(hash) && (nonAscii || !hasSmallLetter(text, start, i) || mayBeLabelled(text, start)))) {
          if (lower !== undefined && folded !== undefined) (nonAsciiWords ??= new Map()).set(kept, { lower, folded });
          const at = kept * 3;
          scratch[at] = start;
          scratch[at + 1] = i;
          scratch[at + 2] = hash;
          kept++;
        }
        if (unspaced) {
          (unspacedRuns ??= []).push(start, i);
          unspaced = false;
        }
        start = -1;
      }
      i += width;
    }
    // The whole text needs no substring for the pattern detectors; a pair of coordinates has two numbers.
    const part = parts === 1 ? text : text.slice(from, to);
    if (digits >= 2) points = joined(points, findCoordinates(part, from));
    budget = joined(budget, budgetClaims(part, from));
    indexes = joined(indexes, taskIndexes(part, from));
    hosts = joined(hosts, hostsOf(part, from));
  }
  return new Scan(
    text,
    session,
    session.generation,
    // One exactly sized array of small integers (typed arrays this small cost the garbage collector more).
    kept ? scratch.slice(0, kept * 3) : NONE,
    nonAsciiWords,
    points,
    hexWords ?? NONE,
    budget,
    indexes,
    hosts,
    unspacedRuns ?? NONE,
  );
}

/** What the parts of a text found, together (most texts have one part and most finds are empty). */
function joined<T>(so: readonly T[], more: readonly T[]): readonly T[] {
  return more.length === 0 ? so : so.length === 0 ? more : [...so, ...more];
}

