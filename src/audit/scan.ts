/**
 * One pass over a text, independent of any task: its words (for identity keys, places and codes),
 * its coordinates, its hex runs and its budget sentences. Prompts repeat most of their text (the
 * system prompt, the same feedback sentences), so scans are cached by text; what a task makes of a
 * scan is decided by the detectors.
 */
import { OUT_OF_ACTIONS } from '../env/feedback.js';
import { findCoordinates, type FoundPoint } from './coordinates.js';
import { scannableRanges } from './text.js';

export interface Word {
  /** Lower case, as written otherwise (accents kept). */
  lower: string;
  /** Lower case without accents ("nis" for "Niš"). */
  folded: string;
  start: number;
  end: number;
}

export type BudgetUnit = 'turns' | 'steps';

export interface BudgetClaim {
  unit: BudgetUnit;
  left: number;
  start: number;
  end: number;
}

/**
 * A text's words as columns (word i spans starts[i]..ends[i]), not objects: scans are cached, so
 * whatever they hold lives long and every object in them costs the garbage collector twice. A
 * detector looks the words up in its own dictionary (lexicon, identity keys, towns) by `folded` and
 * `lowerAt`, one map lookup per word.
 */
export interface TextScan {
  readonly count: number;
  readonly starts: Int32Array;
  readonly ends: Int32Array;
  /** Lower case without accents ("nis" for "Niš"). */
  readonly folded: readonly string[];
  /** Lower case, as written otherwise (accents kept): the folded word unless the word has accents. */
  lowerAt(i: number): string;
  /** The words as objects (for tests and tools; the detectors read the columns). */
  readonly words: readonly Word[];
  readonly points: readonly FoundPoint[];
  /** Indices of words of 12 or more hex digits (checksums and their prefixes). */
  readonly hexWords: readonly number[];
  readonly budget: readonly BudgetClaim[];
  /** A task index where a label names it one: `"task_index": 3`, `task index 3`, `taskIdx=3`, `task #3`. */
  readonly taskIndexes: readonly { index: number; start: number; end: number }[];
  /** Host names of URLs (and `www.` hosts) that end in a two-letter (country code) top-level domain, lower case. */
  readonly hosts: readonly { tld: string; start: number; end: number }[];
}

const NONE: readonly never[] = Object.freeze([]);

/** Word characters as `[\p{L}\p{M}\p{N}]` has them; ASCII by table, the rest by the regex, remembered. */
const WORD_CHAR = /^[\p{L}\p{M}\p{N}]$/u;
const ASCII_WORD_CHAR = Uint8Array.from({ length: 128 }, (_, c) => (/[A-Za-z0-9]/.test(String.fromCharCode(c)) ? 1 : 0));
/** 0 not classified yet, 1 a word character, 2 not. */
const BMP_CLASS = new Uint8Array(0x10000);
const astralClass = new Map<number, boolean>();

function isWordCodePoint(cp: number): boolean {
  if (cp < 0x10000) {
    let c = BMP_CLASS[cp] as number;
    if (c === 0) {
      c = WORD_CHAR.test(String.fromCharCode(cp)) ? 1 : 2;
      BMP_CLASS[cp] = c;
    }
    return c === 1;
  }
  let word = astralClass.get(cp);
  if (word === undefined) {
    word = WORD_CHAR.test(String.fromCodePoint(cp));
    astralClass.set(cp, word);
  }
  return word;
}

const NON_ASCII = /[^\p{ASCII}]/u;
const MARKS = /\p{M}/gu;
const HEX_12 = /^[0-9a-f]{12,}$/;

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

function budgetClaims(text: string, offset: number): BudgetClaim[] {
  const claims: BudgetClaim[] = [];
  if (BUDGET_WORD.test(text)) {
    BUDGET.lastIndex = 0;
    for (let m = BUDGET.exec(text); m !== null; m = BUDGET.exec(text)) {
      const [whole, count, unit, haveCount, haveUnit] = m;
      const n = (count ?? haveCount) as string;
      const turns = /^(tool|turn)/i.test((unit ?? haveUnit) as string);
      claims.push({ unit: turns ? 'turns' : 'steps', left: /^no$/i.test(n) ? 0 : Number(n), start: m.index + offset, end: m.index + offset + whole.length });
    }
  }
  if (text.includes(OUT_OF_ACTIONS)) {
    for (const m of text.matchAll(SPENT)) claims.push({ unit: 'steps', left: 0, start: m.index + offset, end: m.index + offset + m[0].length });
  }
  return claims.sort((a, b) => a.start - b.start);
}

const TASK_INDEX = /\btask[\s_-]?(?:index|idx|no\.?|number|#)["']?\s*[:=#]?\s*["']?(\d+)\b|\btask\s*#(\d+)\b/gi;
const TASK_WORD = /task/i;

function taskIndexes(text: string, offset: number): TextScan['taskIndexes'] {
  if (!TASK_WORD.test(text)) return NONE;
  return [...text.matchAll(TASK_INDEX)].map((m) => ({ index: Number(m[1] ?? m[2]), start: m.index + offset, end: m.index + offset + m[0].length }));
}

/**
 * A host after a URL's scheme (and user info) or starting with `www.`, whose last label has two
 * letters: `https://tiles.example.rs/...`, `www.posta.rs`. Not a file name (`main.rs`, `notes.md`):
 * only hosts of URLs and www. names count.
 */
const HOST = /(?:\b[a-z][a-z0-9+.-]*:\/\/(?:[^\s/?#@"']*@)?|(?<![\w.-])(?=www\.))((?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+([a-z]{2}))(?![a-z0-9-]|\.[a-z0-9])/gi;

function hostsOf(text: string, offset: number): TextScan['hosts'] {
  if (!text.includes('://') && !/www\./i.test(text)) return NONE;
  return [...text.matchAll(HOST)].map((m) => {
    const start = m.index + m[0].length - (m[1] as string).length + offset;
    return { tld: (m[2] as string).toLowerCase(), start, end: start + (m[1] as string).length };
  });
}

function fold(lower: string): string {
  return NON_ASCII.test(lower) ? lower.normalize('NFD').replace(MARKS, '') : lower;
}

/** Word bounds of the text being scanned, grown as needed and copied out at the end (one scan at a time). */
let scratchStarts = new Int32Array(1024);
let scratchEnds = new Int32Array(1024);

class Scan implements TextScan {
  private objects: Word[] | undefined;

  constructor(
    readonly count: number,
    readonly starts: Int32Array,
    readonly ends: Int32Array,
    readonly folded: readonly string[],
    /** Only where a word's lower case keeps accents its folded form drops. */
    private readonly accented: ReadonlyMap<number, string> | null,
    readonly points: readonly FoundPoint[],
    readonly hexWords: readonly number[],
    readonly budget: readonly BudgetClaim[],
    readonly taskIndexes: TextScan['taskIndexes'],
    readonly hosts: TextScan['hosts'],
  ) {}

  lowerAt(i: number): string {
    return this.accented?.get(i) ?? (this.folded[i] as string);
  }

  get words(): readonly Word[] {
    this.objects ??= Array.from({ length: this.count }, (_, i) => ({ lower: this.lowerAt(i), folded: this.folded[i] as string, start: this.starts[i] as number, end: this.ends[i] as number }));
    return this.objects;
  }
}

function scan(text: string): TextScan {
  const folded: string[] = [];
  let accented: Map<number, string> | null = null;
  let hexWords: number[] | null = null;
  let points: FoundPoint[] | null = null;
  let budget: BudgetClaim[] | null = null;
  let indexes: { index: number; start: number; end: number }[] | null = null;
  let hosts: { tld: string; start: number; end: number }[] | null = null;
  let n = 0;
  const ranges = scannableRanges(text);
  for (const [from, to] of ranges) {
    let digits = 0;
    let start = -1;
    let nonAscii = false;
    // One pass over the characters: words are maximal runs of letters, marks and digits.
    for (let i = from; i <= to; ) {
      let width = 1;
      let isWord = false;
      if (i < to) {
        const c = text.charCodeAt(i);
        if (c < 128) {
          isWord = ASCII_WORD_CHAR[c] === 1;
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
          if (isWord) nonAscii = true;
        }
      }
      if (isWord) {
        if (start < 0) start = i;
      } else if (start >= 0) {
        const lower = text.slice(start, i).toLowerCase();
        const plain = nonAscii ? fold(lower) : lower;
        if (n === scratchStarts.length) {
          scratchStarts = grow(scratchStarts);
          scratchEnds = grow(scratchEnds);
        }
        scratchStarts[n] = start;
        scratchEnds[n] = i;
        folded.push(plain);
        if (plain !== lower) (accented ??= new Map()).set(n, lower);
        if (lower.length >= 12 && HEX_12.test(lower)) (hexWords ??= []).push(n);
        n++;
        start = -1;
        nonAscii = false;
      }
      i += width;
    }
    if (ranges.length === 1) {
      // The whole text: no substring to make for the pattern detectors.
      points = digits >= 2 ? findCoordinates(text) : null;
      budget = budgetClaims(text, 0);
      indexes = [...taskIndexes(text, 0)];
      hosts = [...hostsOf(text, 0)];
      continue;
    }
    const part = text.slice(from, to);
    // A pair of coordinates has two numbers.
    if (digits >= 2) (points ??= []).push(...findCoordinates(part, from));
    (budget ??= []).push(...budgetClaims(part, from));
    (indexes ??= []).push(...taskIndexes(part, from));
    (hosts ??= []).push(...hostsOf(part, from));
  }
  return new Scan(
    n,
    scratchStarts.slice(0, n),
    scratchEnds.slice(0, n),
    folded,
    accented,
    points?.length ? points : NONE,
    hexWords ?? NONE,
    budget?.length ? budget : NONE,
    indexes?.length ? indexes : NONE,
    hosts?.length ? hosts : NONE,
  );
}

function grow(a: Int32Array): Int32Array<ArrayBuffer> {
  const b = new Int32Array(a.length * 2);
  b.set(a);
  return b;
}

/** Texts longer than this are scanned every time: hashing them as cache keys would cost as much. */
const CACHE_MAX_CHARS = 20_000;
const CACHE_MAX_ENTRIES = 4_096;
const cache = new Map<string, TextScan>();

export function scanText(text: string): TextScan {
  // A data URL on its own (an image part's url) has nothing to scan after its media type.
  if (text.startsWith('data:')) {
    const comma = text.indexOf(',');
    if (comma > 0 && text.lastIndexOf(';base64', comma) > 0) return cached(text.slice(0, comma + 1));
  }
  return text.length > CACHE_MAX_CHARS ? scan(text) : cached(text);
}

/** Forgets every scan (a benchmark's cold pass; memory is bounded without it). */
export function clearScanCache(): void {
  cache.clear();
}

function cached(text: string): TextScan {
  let found = cache.get(text);
  if (!found) {
    if (cache.size >= CACHE_MAX_ENTRIES) cache.clear();
    found = scan(text);
    cache.set(text, found);
  }
  return found;
}
