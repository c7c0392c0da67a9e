/**
 * Identity keys of a task in a scanned text (docs/audit.md): task_id, sequence_id, image ids,
 * the contributor's username and id, checksums and their 12+ hex prefixes, also inside URLs, file
 * names and image paths, and task_index where a label says it is one ("task_index": 3). Keys are
 * matched as whole words (a key is never part of a longer word), ignoring case: each word of the
 * scan is looked up once among the keys' first words.
 */
import { CHECKSUM_PREFIX_MIN, checkCurrent, type TextScan } from './scan.js';
import type { AuditSession } from './session.js';
import { firstWord, foldWord, isWordUnit, wordHash } from './words.js';
import type { AuditTask, IdentityKind } from './types.js';

export interface IdentityKey {
  kind: IdentityKind;
  value: string;
  lower: string;
  /** The key's first word (as the scan splits words) and its offset in the key. */
  first: string;
  firstAt: number;
}

export interface IdentityMatcher {
  keys: IdentityKey[];
  /** Indices into `keys` by the wordHash of their folded first word. */
  byFirst: Map<number, number[]>;
  checksums: { value: string; lower: string }[];
  taskIndex: number | null;
  /** The session whose dictionaries the keys' first words are registered in. */
  session: AuditSession;
}

export interface IdentityHit {
  kind: IdentityKind;
  value: string;
  start: number;
  end: number;
  evidence: string;
}

/**
 * Keys too short to be told from ordinary text are skipped: a creator id "0" would match every
 * zero. Real ids (Mapillary's 15-digit numbers, 22-character sequence ids) are far longer.
 */
function distinctive(value: string): boolean {
  return /^\d+$/.test(value) ? value.length >= 6 : value.length >= 4;
}

export function compileIdentity(identity: AuditTask['identity'], session: AuditSession): IdentityMatcher {
  const keys: IdentityKey[] = [];
  const checksums: IdentityMatcher['checksums'] = [];
  let taskIndex: number | null = null;
  const seen = new Set<string>();
  for (const { kind, value } of identity) {
    if (kind === 'task_index') {
      if (/^\d+$/.test(value)) taskIndex = Number(value);
      continue;
    }
    if (kind === 'checksum' && /^[0-9a-f]+$/i.test(value)) checksums.push({ value, lower: value.toLowerCase() });
    // A key as written, and as a URL writes it (a username with spaces or accents).
    for (const form of new Set([value, encodeURIComponent(value)])) {
      const lower = form.toLowerCase();
      const first = firstWord(lower);
      if (!first || !distinctive(form) || seen.has(`${kind}\0${lower}`)) continue;
      seen.add(`${kind}\0${lower}`);
      keys.push({ kind, value, lower, first: first.word, firstAt: first.index });
    }
  }
  const byFirst = new Map<number, number[]>();
  keys.forEach((key, k) => {
    const hash = wordHash(foldWord(key.first));
    session.addDictionaryWord(hash);
    const list = byFirst.get(hash);
    if (list) list.push(k);
    else byFirst.set(hash, [k]);
  });
  return { keys, byFirst, checksums, taskIndex, session };
}

const NO_HITS: readonly IdentityHit[] = Object.freeze([]);

export function findIdentity(text: string, scan: TextScan, matcher: IdentityMatcher): readonly IdentityHit[] {
  checkCurrent(scan, matcher.session);
  // Most texts hold no word any key starts with, no long hex word and no task index.
  if (!scan.hexWords.length && !scan.taskIndexes.length && !anyKeyStart(scan, matcher)) return NO_HITS;
  const keyed: { key: number; hit: IdentityHit }[] = [];
  for (let i = 0; i < scan.count; i++) {
    const candidates = matcher.byFirst.get(scan.hash(i));
    if (!candidates) continue;
    // A key's first word is found under the word's accented or its plain spelling.
    const lower = scan.lowerAt(i);
    const folded = scan.folded(i);
    for (let c = 0; c < candidates.length; c++) {
      const k = candidates[c] as number;
      const first = (matcher.keys[k] as IdentityKey).first;
      if (first === lower || first === folded) keyAt(text, scan, i, k, matcher, keyed);
    }
  }
  // Key by key, each in text order, as the hits of one key are reported together.
  const hits: IdentityHit[] = keyed.length > 1 ? keyed.sort((a, b) => a.key - b.key).map((h) => h.hit) : keyed.map((h) => h.hit);
  for (const { lower, start, end } of scan.hexWords) {
    for (const sum of matcher.checksums) {
      if (lower === sum.lower || !(sum.lower.startsWith(lower) || lower.startsWith(sum.lower))) continue;
      if (lower.length < CHECKSUM_PREFIX_MIN) continue;
      hits.push({
        kind: 'checksum',
        value: sum.value,
        start,
        end,
        evidence: `checksum ${sum.value.slice(0, 16)}… (${Math.min(lower.length, sum.lower.length)} of its ${sum.lower.length} hex digits)`,
      });
    }
  }
  if (matcher.taskIndex !== null) {
    for (const claim of scan.taskIndexes) {
      if (claim.index === matcher.taskIndex) hits.push({ kind: 'task_index', value: String(claim.index), start: claim.start, end: claim.end, evidence: `task_index ${claim.index}` });
    }
  }
  return hits.length > 1 ? dedupe(hits) : hits;
}

function anyKeyStart(scan: TextScan, matcher: IdentityMatcher): boolean {
  for (let i = 0; i < scan.count; i++) if (matcher.byFirst.has(scan.hash(i))) return true;
  return false;
}

/** Key `k` at word `i` when the whole key is written there, bounded by non-word characters. */
function keyAt(text: string, scan: TextScan, i: number, k: number, matcher: IdentityMatcher, out: { key: number; hit: IdentityHit }[]): void {
  const key = matcher.keys[k] as IdentityKey;
  const start = scan.start(i) - key.firstAt;
  const end = start + key.lower.length;
  if (start < 0 || end > text.length) return;
  if (key.firstAt > 0 && isWordUnit(text, start - 1)) return;
  if (isWordUnit(text, end)) return;
  if (text.slice(start, end).toLowerCase() !== key.lower) return;
  out.push({ key: k, hit: { kind: key.kind, value: key.value, start, end, evidence: `${key.kind} ${JSON.stringify(key.value)}` } });
}

/** A key found twice at one place (its plain and URL forms agree) is one hit. */
function dedupe(hits: IdentityHit[]): IdentityHit[] {
  const seen = new Set<string>();
  return hits.filter((h) => {
    const at = `${h.start}:${h.end}:${h.kind}`;
    if (seen.has(at)) return false;
    seen.add(at);
    return true;
  });
}
