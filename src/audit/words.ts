/**
 * What a word is, for the whole fast path of the audit (docs/audit.md, "How a prompt is audited"):
 * a maximal run of letters, marks and digits (`[\p{L}\p{M}\p{N}]+`, by code point); how a word is
 * folded for comparison (lower case, accents removed, other scripts transliterated); and the hash
 * dictionaries of words are keyed by. The scan (scan.ts) cuts a text's words with these, and so do
 * the detectors that read a phrase's later words from the text, cut a name or a key into words, or
 * check where a key ends. The reference detector (reference.ts) keeps its own definitions on
 * purpose: it is the independent check of this one.
 *
 * The classification tables below are module-level: they remember facts of Unicode (whether a code
 * point is a word character), the same for every run, not state of one.
 */
import anyAscii from 'any-ascii';
import type { TextScan } from './scan.js';

// ---------------------------------------------------------------------------------------------
// Word characters

/** Word characters as `[\p{L}\p{M}\p{N}]` has them; ASCII by table, the rest by the regex, remembered. */
const WORD_CHAR = /^[\p{L}\p{M}\p{N}]$/u;
const ASCII_WORD_CHAR = Uint8Array.from({ length: 128 }, (_, c) => (/[A-Za-z0-9]/.test(String.fromCharCode(c)) ? 1 : 0));
/** 0 not classified yet, 1 a word character, 2 not. */
const BMP_CLASS = new Uint8Array(0x10000);
const ASTRAL_CLASS = new Map<number, boolean>();

/** Whether an ASCII code (below 128) is a word character. */
export function isAsciiWordChar(c: number): boolean {
  return ASCII_WORD_CHAR[c] === 1;
}

/** Whether a code point is a word character (a lone surrogate never is). */
export function isWordCodePoint(cp: number): boolean {
  if (cp < 0x10000) {
    let c = BMP_CLASS[cp] as number;
    if (c === 0) {
      c = WORD_CHAR.test(String.fromCharCode(cp)) ? 1 : 2;
      BMP_CLASS[cp] = c;
    }
    return c === 1;
  }
  let word = ASTRAL_CLASS.get(cp);
  if (word === undefined) {
    word = WORD_CHAR.test(String.fromCodePoint(cp));
    ASTRAL_CLASS.set(cp, word);
  }
  return word;
}

/** How many UTF-16 units the word character at `i` takes (1 or 2), or 0 if it is no word character. */
export function wordCharWidth(text: string, i: number): number {
  if (i >= text.length) return 0;
  const c = text.charCodeAt(i);
  if (c < 128) return ASCII_WORD_CHAR[c] === 1 ? 1 : 0;
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
    const low = text.charCodeAt(i + 1);
    if (low >= 0xdc00 && low <= 0xdfff) return isWordCodePoint((c - 0xd800) * 0x400 + (low - 0xdc00) + 0x10000) ? 2 : 0;
  }
  return isWordCodePoint(c) ? 1 : 0;
}

/**
 * Whether the UTF-16 unit at `i` is a word character on its own (out of range: no). Half of a
 * surrogate pair never is: a key's boundaries are checked unit by unit (identity.ts), as the
 * reference detector checks them.
 */
export function isWordUnit(text: string, i: number): boolean {
  return i >= 0 && i < text.length && isWordCodePoint(text.charCodeAt(i));
}

// ---------------------------------------------------------------------------------------------
// Cutting words

/**
 * Where the word after `from` (where a word ends) starts, if no more than `maxGap` other characters
 * stand between; else -1. The later words of a phrase are read so, from the text: the scan keeps
 * only the words a phrase can start with.
 */
export function wordStartAfter(text: string, from: number, maxGap: number): number {
  let start = from;
  while (start < text.length && start - from <= maxGap && wordCharWidth(text, start) === 0) start++;
  return start >= text.length || start - from > maxGap ? -1 : start;
}

/** Where the word starting at `start` ends. */
export function wordEnd(text: string, start: number): number {
  let end = start;
  for (let width = wordCharWidth(text, end); width > 0; width = wordCharWidth(text, end)) end += width;
  return end;
}

/** The first word of a text and where it starts, or null if it has none. */
export function firstWord(text: string): { word: string; index: number } | null {
  const start = wordStartAfter(text, 0, Infinity);
  return start < 0 ? null : { word: text.slice(start, wordEnd(text, start)), index: start };
}

/** The words of a text, as written. */
export function words(text: string): string[] {
  const found: string[] = [];
  for (let start = wordStartAfter(text, 0, Infinity); start >= 0; ) {
    const end = wordEnd(text, start);
    found.push(text.slice(start, end));
    start = wordStartAfter(text, end, Infinity);
  }
  return found;
}

// ---------------------------------------------------------------------------------------------
// Folding and hashing

const NON_ASCII = /[^\p{ASCII}]/u;
const MARKS = /\p{M}/gu;
const NOT_ASCII_WORD = /[^a-z0-9]+/g;

/**
 * A word as the audit compares it: lower case ASCII letters and digits, accents removed ("nis" for
 * "Niš") and other scripts transliterated ("lviv" for "Львів", "athina" for "Αθήνα"), so a name
 * meets its transliteration. See `foldLower`.
 */
export function foldWord(word: string): string {
  return foldLower(word.toLowerCase());
}

/**
 * A lower-case word in ASCII: most words are ASCII already; Latin letters with accents lose them
 * (NFD, marks removed); what is still beyond ASCII (Cyrillic, Greek, Arabic, ł, ß...) is transliterated
 * by any-ascii, and what that writes besides letters and digits (the apostrophe of "L'viv") is dropped.
 */
export function foldLower(lower: string): string {
  if (!NON_ASCII.test(lower)) return lower;
  const stripped = lower.normalize('NFD').replace(MARKS, '');
  if (!NON_ASCII.test(stripped)) return stripped;
  return anyAscii(lower).toLowerCase().replace(NOT_ASCII_WORD, '');
}

/**
 * Whether text[start..end) folds to `folded` (see foldWord), without making a string when the word
 * is ASCII. Folding keeps an ASCII character where it is, so an ASCII prefix that differs decides.
 */
export function sameWord(text: string, start: number, end: number, folded: string): boolean {
  for (let k = start; k < end; k++) {
    const c = text.charCodeAt(k);
    if (c >= 128) return foldWord(text.slice(start, end)) === folded;
    if (asciiLower(c) !== folded.charCodeAt(k - start)) return false;
  }
  return end - start === folded.length;
}

/**
 * FNV-1a's constants, with every step kept to 30 bits: a small integer, which V8 never boxes (a
 * 32-bit hash in the scan's loop became a heap number per character).
 */
const SMI_MASK = 0x3fffffff;
export const FNV_OFFSET = 0x811c9dc5 & SMI_MASK;
const FNV_PRIME = 0x01000193;

/**
 * The hash dictionaries of words are keyed by: FNV-1a over the UTF-16 units of a folded word (lower
 * case, accents removed; see `foldWord`). The scan computes the same value from the characters as
 * it reads them, so an ASCII word never becomes a string unless a dictionary holds its hash.
 */
export function wordHash(folded: string): number {
  let h = FNV_OFFSET;
  for (let i = 0; i < folded.length; i++) h = hashStep(h, folded.charCodeAt(i));
  return h;
}

/** wordHash of text[start, end), a folded word inside a longer string: no string made. */
export function foldedWordHash(text: string, start: number, end: number): number {
  let h = FNV_OFFSET;
  for (let i = start; i < end; i++) h = hashStep(h, text.charCodeAt(i));
  return h;
}

/** wordHash of an ASCII word given as bytes [start, end) (letters in either case): no string made. */
export function asciiWordHash(bytes: Uint8Array, start: number, end: number): number {
  let h = FNV_OFFSET;
  for (let i = start; i < end; i++) h = hashStep(h, asciiLower(bytes[i] as number));
  return h;
}

/** One step of wordHash: the hash so far and the next UTF-16 unit of the folded word. */
export function hashStep(h: number, unit: number): number {
  return Math.imul(h ^ unit, FNV_PRIME) & SMI_MASK;
}

/** An ASCII character's lower case (any other code as it is). */
export function asciiLower(c: number): number {
  return c >= 65 && c <= 90 ? c + 32 : c;
}

// ---------------------------------------------------------------------------------------------
// Scripts without spaces

/**
 * Scripts written without spaces between words (Han, kana, Hangul, Thai, Lao, Khmer, Myanmar): a run
 * of them is one "word" to the scan, so names in them are looked for as substrings of such runs
 * (`TextScan.unspaced`). Hangul has spaces, but its particles stick to the name ("리비우에서").
 */
export function isUnspacedCodePoint(cp: number): boolean {
  if (cp < 0x1000) return cp >= 0x0e00 && cp <= 0x0eff;
  return (
    cp <= 0x109f ||
    (cp >= 0x1780 && cp <= 0x17ff) ||
    (cp >= 0x3040 && cp <= 0x30ff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0xac00 && cp <= 0xd7af) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0x20000 && cp <= 0x2ffff)
  );
}

/** Whether a name is written in a script without spaces (see isUnspacedCodePoint). */
export function isUnspacedName(name: string): boolean {
  for (const ch of name) if (isUnspacedCodePoint(ch.codePointAt(0) as number)) return true;
  return false;
}

// ---------------------------------------------------------------------------------------------
// Phrases

/** Characters other than word characters that may stand between the words of a phrase. */
export const PHRASE_GAP_MAX_CHARS = 3;

/**
 * Reads phrases at one word of a text: a word starts every phrase of its dictionary list, so the
 * first word is compared once per spelling and the words after it are read from the text once,
 * however many phrases are tried there ("the" starts eleven). Its arrays are reused from word to
 * word: a run holds one (its AuditSession's).
 */
export class PhraseReader {
  private text = '';
  /** [start, end) of the word (k = 0) and of the words read after it, at 2k and 2k + 1. */
  private readonly bounds: number[] = [];
  private read = 0;
  /** No further word within reach of the last one read. */
  private ended = false;
  private checkedFirst: string | undefined;
  private firstMatches = false;

  /** `maxGap`: how many other characters may stand between two words of a phrase. */
  constructor(private readonly maxGap = PHRASE_GAP_MAX_CHARS) {}

  /** Starts at the scan's word i. */
  at(text: string, scan: TextScan, i: number): void {
    this.text = text;
    this.bounds[0] = scan.start(i);
    this.bounds[1] = scan.end(i);
    this.read = 1;
    this.ended = false;
    this.checkedFirst = undefined;
  }

  /**
   * Where the phrase of these folded words ends if the word starts it and the text's next words
   * spell the rest (each after a few characters at most), else -1. Hashes can collide: the words decide.
   */
  end(words: readonly string[]): number {
    const first = words[0] as string;
    if (first !== this.checkedFirst) {
      this.checkedFirst = first;
      this.firstMatches = sameWord(this.text, this.bounds[0] as number, this.bounds[1] as number, first);
    }
    if (!this.firstMatches) return -1;
    for (let k = 1; k < words.length; k++) {
      if (!this.has(k) || !sameWord(this.text, this.bounds[2 * k] as number, this.bounds[2 * k + 1] as number, words[k] as string)) return -1;
    }
    return this.bounds[2 * words.length - 1] as number;
  }

  private has(k: number): boolean {
    while (this.read <= k && !this.ended) {
      const start = wordStartAfter(this.text, this.bounds[2 * this.read - 1] as number, this.maxGap);
      if (start < 0) this.ended = true;
      else {
        this.bounds[2 * this.read] = start;
        this.bounds[2 * this.read + 1] = wordEnd(this.text, start);
        this.read++;
      }
    }
    return k < this.read;
  }
}
