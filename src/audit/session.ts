/**
 * The state one audit run works in (docs/audit.md, "How a prompt is audited"): the dictionaries'
 * bit tables and their generation, the cache of text scans and the scan's scratch array, the phrase
 * reader, the caches of places of the agent's points and of call arguments, and the tasks compiled
 * for it. `geolab audit` makes one per run; a caller that audits a prompt at a time (the leak guard)
 * may keep one for as long as it likes.
 *
 * A scan belongs to the session that made it and remembers the generation of the session's
 * dictionaries it was made in. A task's dictionaries (identity keys, towns, region, camera) are
 * registered in the session they were compiled in, and the lexicon and the fingerprints' words are
 * added to a session's tables when it first needs them: "dictionaries before scans" is checked
 * against the session a scan and a dictionary share (checkCurrent).
 *
 * What stays module-level is data, the same for every run: the country lexicon, the fingerprint
 * tables, the word-character classes, patterns. It is built lazily, once per process.
 */
import type { LatLon } from '../core/geodesy.js';
import type { CompiledTask } from './detect.js';
import { Memo } from './memo.js';
import { PlaceCaches } from './places.js';
import { makeScan as scan, type TextScan } from './scan.js';
import type { AuditTask } from './types.js';
import { PhraseReader } from './words.js';

/**
 * The first words of a module-level dictionary (the lexicon, the fingerprints' words), added to
 * the tables of each session that uses it: `words` kept wherever they stand, `codes` only where
 * written without small letters or after a label.
 */
export interface SharedWords {
  readonly words: readonly number[];
  readonly codes: readonly number[];
}

/** Texts longer than this are scanned every time: hashing them as cache keys would cost as much. */
const CACHE_MAX_CHARS = 20_000;
const SCANS_MAX = 4_096;

export class AuditSession {
  /**
   * Every hash a dictionary of words holds (the country lexicon, each task's identity keys and
   * towns), as bits: one load says a word is in none. A second table holds the first words of codes
   * (RS, SRB, U.S.), which count only written in capitals or after a label (`cc: rs`, `(rs)`): as
   * plain words ("at", "is", "km", "se") they would be most of a prompt's kept words. Bits are only
   * ever set; each new one starts a new generation, and a cached scan of an older generation is made
   * again (it may lack a word the new dictionary holds).
   */
  private readonly dictionaryBits = new Int32Array(1 << 15);
  private readonly codeBits = new Int32Array(1 << 15);
  private dictionaryGeneration = 0;
  private readonly shared = new Set<SharedWords>();
  private readonly scans = new Memo<string, TextScan>(SCANS_MAX);
  /**
   * The words being kept while one text is scanned, written by index (truncating the array would
   * give its memory back, and every scan would grow it again).
   */
  readonly scratch: number[] = [];
  /** Reads phrases at a scan's words (places.ts): one for the run, its arrays reused. */
  readonly reader = new PhraseReader();
  /** The places of the agent's points: its pins come back in every later prompt of its episode. */
  readonly places = new PlaceCaches();
  /** The points of tool calls' arguments: the same arguments come back in every later prompt. */
  readonly argumentPoints = new Memo<string, LatLon[]>(4_096);
  /** Tasks compiled in this session (their dictionaries are in its tables), by AuditTask object. */
  readonly compiled = new WeakMap<AuditTask, CompiledTask>();

  /** Bumped whenever a dictionary gains a word the tables did not hold. */
  get generation(): number {
    return this.dictionaryGeneration;
  }

  /** Registers a word a dictionary's entries start with (their later words are read from the text). */
  addDictionaryWord(hash: number): void {
    this.setBit(this.dictionaryBits, hash);
  }

  /** Registers the first word of a code, kept only where written without small letters or after a label. */
  addCodeWord(hash: number): void {
    this.setBit(this.codeBits, hash);
  }

  /** Adds a module-level dictionary's words, once per session. */
  addShared(words: SharedWords): void {
    if (this.shared.has(words)) return;
    this.shared.add(words);
    for (const hash of words.words) this.addDictionaryWord(hash);
    for (const hash of words.codes) this.addCodeWord(hash);
  }

  /** Whether some dictionary's words may include one of this hash. */
  holdsWord(hash: number): boolean {
    return hasBit(this.dictionaryBits, hash);
  }

  /** Whether some code may start with a word of this hash. */
  holdsCode(hash: number): boolean {
    return hasBit(this.codeBits, hash);
  }

  /** The scan of a text, made in this session's current generation (cached by text). */
  scanText(text: string): TextScan {
    // A data URL on its own (an image part's url) has nothing to scan after its media type.
    if (text.startsWith('data:')) {
      const comma = text.indexOf(',');
      if (comma > 0 && text.lastIndexOf(';base64', comma) > 0) return this.cached(text.slice(0, comma + 1));
    }
    return text.length > CACHE_MAX_CHARS ? scan(text, this) : this.cached(text);
  }

  private cached(text: string): TextScan {
    let found = this.scans.get(text);
    if (!found || found.generation !== this.dictionaryGeneration) {
      found = scan(text, this);
      this.scans.set(text, found);
    }
    return found;
  }

  private setBit(table: Int32Array, hash: number): void {
    const slot = (hash >>> 5) & 0x7fff;
    const bit = 1 << (hash & 31);
    const bits = table[slot] as number;
    if ((bits & bit) !== 0) return;
    table[slot] = bits | bit;
    this.dictionaryGeneration++;
  }
}

function hasBit(table: Int32Array, hash: number): boolean {
  return ((table[(hash >>> 5) & 0x7fff] as number) & (1 << (hash & 31))) !== 0;
}
