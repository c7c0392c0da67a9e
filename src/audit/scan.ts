/**
 * One pass over a text, independent of any task: its words (for identity keys, places and codes),
 * its coordinates, its hex runs and its budget sentences. Prompts repeat most of their text (the
 * system prompt, the same feedback sentences), so scans are cached by text; what a task makes of a
 * scan is decided by the detectors.
 */
import { OUT_OF_ACTIONS } from '../env/feedback.js';
import { findCoordinates, type FoundPoint } from './coordinates.js';
import { scannableParts } from './text.js';

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

export interface TextScan {
  words: Word[];
  /** Word indices by `lower` and by `folded`. */
  byWord: Map<string, number[]>;
  points: FoundPoint[];
  /** Indices of words of 12 or more hex digits (checksums and their prefixes). */
  hexWords: number[];
  budget: BudgetClaim[];
  /** A task index where a label names it one: `"task_index": 3`, `task index 3`, `taskIdx=3`, `task #3`. */
  taskIndexes: { index: number; start: number; end: number }[];
}

const WORD = /[\p{L}\p{M}\p{N}]+/gu;
/** The same words in plain ASCII text, where a Unicode-aware regex only costs time. */
const ASCII_WORD = /[A-Za-z0-9]+/g;
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
/** The environment's own sentence for a spent budget, as written (lower case "out of actions" is prose). */
const SPENT = new RegExp(OUT_OF_ACTIONS.replace('.', '\\.'), 'g');

function budgetClaims(text: string, offset: number): BudgetClaim[] {
  const claims: BudgetClaim[] = [];
  for (const m of text.matchAll(BUDGET)) {
    const [whole, count, unit, haveCount, haveUnit] = m;
    const n = (count ?? haveCount) as string;
    const turns = /^(tool|turn)/i.test((unit ?? haveUnit) as string);
    claims.push({ unit: turns ? 'turns' : 'steps', left: /^no$/i.test(n) ? 0 : Number(n), start: m.index + offset, end: m.index + offset + whole.length });
  }
  for (const m of text.matchAll(SPENT)) claims.push({ unit: 'steps', left: 0, start: m.index + offset, end: m.index + offset + m[0].length });
  return claims.sort((a, b) => a.start - b.start);
}

const TASK_INDEX = /\btask[\s_-]?(?:index|idx|no\.?|number|#)["']?\s*[:=#]?\s*["']?(\d+)\b|\btask\s*#(\d+)\b/gi;

function taskIndexes(text: string, offset: number): TextScan['taskIndexes'] {
  return [...text.matchAll(TASK_INDEX)].map((m) => ({ index: Number(m[1] ?? m[2]), start: m.index + offset, end: m.index + offset + m[0].length }));
}

function fold(lower: string): string {
  return NON_ASCII.test(lower) ? lower.normalize('NFD').replace(MARKS, '') : lower;
}

function scan(text: string): TextScan {
  const words: Word[] = [];
  const byWord = new Map<string, number[]>();
  const hexWords: number[] = [];
  const points: FoundPoint[] = [];
  const budget: BudgetClaim[] = [];
  const indexes: TextScan['taskIndexes'] = [];
  const index = (key: string, i: number) => {
    const list = byWord.get(key);
    if (list) list.push(i);
    else byWord.set(key, [i]);
  };
  for (const part of scannableParts(text)) {
    // Most texts are plain ASCII: then no word needs its accents folded.
    const ascii = !NON_ASCII.test(part.text);
    const word = ascii ? ASCII_WORD : WORD;
    word.lastIndex = 0;
    for (let m = word.exec(part.text); m !== null; m = word.exec(part.text)) {
      const lower = m[0].toLowerCase();
      const folded = ascii ? lower : fold(lower);
      const i = words.length;
      words.push({ lower, folded, start: m.index + part.offset, end: m.index + part.offset + m[0].length });
      index(lower, i);
      if (folded !== lower) index(folded, i);
      if (lower.length >= 12 && HEX_12.test(lower)) hexWords.push(i);
    }
    points.push(...findCoordinates(part.text, part.offset));
    budget.push(...budgetClaims(part.text, part.offset));
    indexes.push(...taskIndexes(part.text, part.offset));
  }
  return { words, byWord, points, hexWords, budget, taskIndexes: indexes };
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
