/**
 * The reference detector: the audit's text findings worked out the slow, plain way, to check the
 * fast core (detect.ts over scan.ts) against (docs/audit.md, "The reference detector").
 *
 * The fast core hashes words as it reads them, keeps only those some dictionary's bit table holds,
 * reads phrases from the text at those words, decodes a task's towns only when a text names their
 * first word, skips the coordinate pattern on texts its quick test rules out, and caches scans,
 * candidates and places. None of that is here: words are cut by one regular expression, every
 * phrase of the lexicon and every town within 50 km (found by distance over the whole place table)
 * is tried at every word, identity keys are searched as substrings, and nothing is cached.
 *
 * What both share is what a leak is, not how it is found: the lexicon's phrases and the rule for a
 * code (`acceptable`), the patterns of a budget sentence, a task index, a host and a coordinate, the
 * country lookups of a point, and the shape of a finding. Images are left to detect.ts (their
 * classification is no fast path); a prompt's images are ignored here.
 */
import { haversineKm, type LatLon } from '../core/geodesy.js';
import { codedCountryAt, countryAt, CARVED_OUT_OF } from '../geo/locate.js';
import { nearestCity, placeTable } from '../geo/cities.js';
import { coordinatesByPattern } from './coordinates.js';
import { finding, pointsOfObject, unknownTask, type Hit, LEAK_RADIUS_KM, OWN_POINT_TOLERANCE_KM, type AuditOptions } from './detect.js';
import { acceptable, CITY_RADIUS_KM, getStopWords, isLexiconName, lexiconPhrases, nameWords, SHORT_SPELLING, TRUE_TOWN_KM, trueCountry, VANITY_CCTLDS, writtenAsName, type Phrase } from './places.js';
import { townNames } from '../geo/place-names.js';
import { budgetClaims, CHECKSUM_PREFIX_MIN, hostsOf, taskIndexes, type BudgetClaim } from './scan.js';
import { foldWord, isUnspacedName } from './words.js';
import { around, scannableRanges } from './text.js';
import { transcriptActions } from './transcript.js';
import type { AuditMessage, AuditPrompt, AuditTask, Finding, IdentityKind, Severity } from './types.js';

interface Word {
  start: number;
  end: number;
  folded: string;
}

const WORD = /[\p{L}\p{M}\p{N}]+/gu;
const IS_WORD_CHAR = /^[\p{L}\p{M}\p{N}]$/u;
/** Characters other than word characters that may stand between the words of a phrase. */
const PHRASE_GAP_MAX_CHARS = 3;

/** Every word of the text, as the fast scan cuts and folds them. */
function wordsIn(text: string): Word[] {
  return [...text.matchAll(WORD)].map((m) => ({ start: m.index, end: m.index + m[0].length, folded: foldWord(m[0]) }));
}

/** The words that may start a phrase or a key: those outside the base64 payloads of data URLs. */
function startingWords(text: string): Word[] {
  return scannableRanges(text).flatMap(([from, to]) => wordsIn(text.slice(from, to)).map((w) => ({ ...w, start: w.start + from, end: w.end + from })));
}

/** Where `words` are written from word `k` of the text on, each within a few characters of the last; -1 if not. */
function phraseEnd(all: Word[], k: number, words: readonly string[]): number {
  for (let j = 0; j < words.length; j++) {
    const word = all[k + j];
    if (!word || word.folded !== words[j]) return -1;
    if (j > 0 && word.start - (all[k + j - 1] as Word).end > PHRASE_GAP_MAX_CHARS) return -1;
  }
  return (all[k + words.length - 1] as Word).end;
}

/** Findings of one prompt, as auditPrompt (detect.ts) gives them for a prompt without images. */
export function referenceAudit(prompt: AuditPrompt, task: AuditTask | null, options: AuditOptions = {}): Finding[] {
  if (!task) return [unknownTask(prompt)];
  const radiusKm = options.radiusKm ?? LEAK_RADIUS_KM;
  const own = ownPointsOf(prompt);
  const place = task.truth ? trueCountry(task.country, task.truth) : null;
  const towns = task.truth ? townsNear(task.truth) : [];
  const findings: Finding[] = [];
  const claims: { claim: BudgetClaim; message: number; text: number }[] = [];
  prompt.messages.forEach((message, m) => {
    if (message.author === 'model') return;
    message.texts.forEach((text, t) => {
      for (const [from, to] of scannableRanges(text)) for (const claim of budgetClaims(text.slice(from, to), from)) claims.push({ claim, message: m, text: t });
      const hits = [
        ...identityHits(text, task),
        ...pointHits(text, task.truth, radiusKm, own),
        ...(place ? placeHits(text, place, feedbackSpans(message, text, own)) : []),
        ...townHits(text, towns, feedbackSpans(message, text, own)),
      ].sort((a, b) => a.start - b.start);
      for (const hit of hits) findings.push(finding(prompt, m, t, text.slice(hit.start, hit.end), hit, around(text, hit.start, hit.end)));
    });
  });
  // The latest claim of each unit; the unit stated first is reported first.
  const latest = (unit: BudgetClaim['unit']) => claims.filter((c) => c.claim.unit === unit).at(-1);
  const order = claims[0]?.claim.unit === 'steps' ? (['steps', 'turns'] as const) : (['turns', 'steps'] as const);
  for (const unit of order) {
    const found = latest(unit);
    const real = unit === 'turns' ? prompt.budget?.turnsLeft : prompt.budget?.stepsLeft;
    if (!found || real === undefined || real === found.claim.left) continue;
    const text = (prompt.messages[found.message] as AuditMessage).texts[found.text] as string;
    const what = unit === 'turns' ? 'turns (tool calls)' : 'environment steps';
    const { start, end } = found.claim;
    const hit: Hit = { kind: 'budget', start, end, evidence: `says ${found.claim.left} ${what} left; ${real} were left` };
    findings.push(finding(prompt, found.message, found.text, text.slice(start, end), hit, around(text, start, end)));
  }
  return findings;
}

// ---------------------------------------------------------------------------------------------
// Identity keys

/** Keys shorter than this (or numbers under 6 digits) are too likely by chance. */
function distinctive(value: string): boolean {
  return /^\d+$/.test(value) ? value.length >= 6 : value.length >= 4;
}

function isWordChar(text: string, at: number): boolean {
  return at >= 0 && at < text.length && IS_WORD_CHAR.test(text[at] as string);
}

interface IdentityHit extends Hit {
  key: IdentityKind;
}

function identityHits(text: string, task: AuditTask): Hit[] {
  const keyed: IdentityHit[] = [];
  const seen = new Set<string>();
  const starts = startingWords(text);
  for (const { kind, value } of task.identity) {
    if (kind === 'task_index') continue;
    for (const form of new Set([value, encodeURIComponent(value)])) {
      const lower = form.toLowerCase();
      const first = /[\p{L}\p{M}\p{N}]+/u.exec(lower);
      if (!first || !distinctive(form) || seen.has(`${kind}\0${lower}`)) continue;
      seen.add(`${kind}\0${lower}`);
      // Written whole, not inside a longer word, its first word where the scan reads words.
      for (let s = 0; s + lower.length <= text.length; s++) {
        if (text.slice(s, s + lower.length).toLowerCase() !== lower) continue;
        if (isWordChar(text, s - 1) || isWordChar(text, s + lower.length)) continue;
        if (!starts.some((w) => w.start === s + first.index)) continue;
        keyed.push(identityHit(kind, s, s + lower.length, `${kind} ${JSON.stringify(value)}`));
      }
    }
  }
  const hits = [...keyed];
  const checksums = task.identity.filter((k) => k.kind === 'checksum' && /^[0-9a-f]+$/i.test(k.value));
  for (const word of starts) {
    const lower = text.slice(word.start, word.end).toLowerCase();
    if (!/^[0-9a-f]+$/.test(lower) || lower.length < CHECKSUM_PREFIX_MIN) continue;
    for (const { value } of checksums) {
      const sum = value.toLowerCase();
      if (lower === sum || !(sum.startsWith(lower) || lower.startsWith(sum))) continue;
      hits.push(identityHit('checksum', word.start, word.end, `checksum ${value.slice(0, 16)}… (${Math.min(lower.length, sum.length)} of its ${sum.length} hex digits)`));
    }
  }
  const index = task.identity.find((k) => k.kind === 'task_index' && /^\d+$/.test(k.value));
  if (index) {
    for (const [from, to] of scannableRanges(text)) {
      for (const claim of taskIndexes(text.slice(from, to), from)) {
        if (claim.index === Number(index.value)) hits.push(identityHit('task_index', claim.start, claim.end, `task_index ${claim.index}`));
      }
    }
  }
  // One hit per place and kind (a key's plain and URL forms can meet).
  return hits.filter((h, i) => hits.findIndex((o) => o.start === h.start && o.end === h.end && o.key === h.key) === i).map(({ key: _key, ...hit }) => hit);
}

function identityHit(key: IdentityKind, start: number, end: number, evidence: string): IdentityHit {
  return { kind: 'identity', key, start, end, evidence };
}

// ---------------------------------------------------------------------------------------------
// Coordinates

function pointHits(text: string, truth: LatLon | null, radiusKm: number, own: LatLon[]): Hit[] {
  if (!truth) return [];
  const best = new Map<number, { start: number; end: number; lat: number; lon: number; km: number }>();
  for (const [from, to] of scannableRanges(text)) {
    for (const p of coordinatesByPattern(text.slice(from, to), from)) {
      const km = haversineKm(p.lat, p.lon, truth.lat, truth.lon);
      if (km > radiusKm) continue;
      if (own.some((o) => haversineKm(o.lat, o.lon, p.lat, p.lon) <= OWN_POINT_TOLERANCE_KM)) continue;
      const seen = best.get(p.start);
      if (!seen || km < seen.km) best.set(p.start, { start: p.start, end: p.end, lat: p.lat, lon: p.lon, km });
    }
  }
  return [...best.values()].map((p) => ({ kind: 'coordinates', start: p.start, end: p.end, evidence: `${round(p.lat)}, ${round(p.lon)} is ${p.km.toFixed(1)} km from the truth` }));
}

function round(deg: number): number {
  return Math.round(deg * 1e5) / 1e5;
}

// ---------------------------------------------------------------------------------------------
// Countries, subregions, hosts

function placeHits(text: string, place: NonNullable<ReturnType<typeof trueCountry>>, spans: Feedback[]): Hit[] {
  const hits: Hit[] = [];
  const countries: { start: number; end: number; how: string; severity?: Severity }[] = [];
  const subregions: { start: number; end: number }[] = [];
  const all = wordsIn(text);
  const byFirst = new Map<string, Phrase[]>();
  for (const p of lexiconPhrases()) byFirst.set(p.words[0] as string, [...(byFirst.get(p.words[0] as string) ?? []), p]);
  let after = -1;
  for (const word of startingWords(text)) {
    if (word.start < after) continue;
    const k = all.findIndex((w) => w.start === word.start);
    // Longest phrase first (lexiconPhrases keeps that order within a first word).
    const phrase = (byFirst.get(word.folded) ?? []).find((p) => {
        const end = phraseEnd(all, k, p.words);
        return end >= 0 && acceptable(text, word.start, end, p);
      });
    if (!phrase) continue;
    const end = phraseEnd(all, k, phrase.words);
    after = end;
    const country = phrase.meanings.find((m) => m.type === 'country' && m.admin === place.admin);
    if (country?.type === 'country') {
      const how = country.kind === 'code' ? `${end - word.start === 2 ? 'ISO alpha-2' : 'alpha-3'} code` : country.kind;
      countries.push({ start: word.start, end, how });
    } else if (phrase.meanings.some((m) => m.type === 'subregion' && m.name === place.subregion)) {
      subregions.push({ start: word.start, end });
    }
  }
  for (const [from, to] of scannableRanges(text)) {
    for (const h of hostsOf(text.slice(from, to), from)) {
      if (place.ccTlds.includes(h.tld)) countries.push({ start: h.start, end: h.end, how: `ccTLD .${h.tld}`, ...(VANITY_CCTLDS.has(h.tld) ? { severity: 'low' as const } : {}) });
    }
  }
  for (const c of countries) {
    if (!explainedBy(spans, c, (p) => pointIsIn(p, place.admin))) {
      hits.push({ kind: 'country', severity: c.severity, start: c.start, end: c.end, evidence: `the true country (${place.admin}) by its ${c.how}; no agent point lies in it` });
    }
  }
  const inSubregion = (p: LatLon) => codedCountryAt(p.lat, p.lon)?.subregion === place.subregion || countryAt(p.lat, p.lon).subregion === place.subregion;
  for (const s of subregions) {
    if (!explainedBy(spans, s, inSubregion)) hits.push({ kind: 'subregion', start: s.start, end: s.end, evidence: `the true subregion (${place.subregion}); no agent point lies in it` });
  }
  return hits;
}

const CARVED_PARENTS = new Set(Object.values(CARVED_OUT_OF));

/** Whether a point lies in the country: country-coder's answer, unless the country had a part carved out; else the outlines'. */
function pointIsIn(p: LatLon, admin: string): boolean {
  return (!CARVED_PARENTS.has(admin) && codedCountryAt(p.lat, p.lon)?.admin === admin) || countryAt(p.lat, p.lon).country === admin;
}

// ---------------------------------------------------------------------------------------------
// Towns

interface Town {
  name: string;
  words: string[];
  exact: string[] | null;
  /** Its own name is an ordinary word: it counts only written as a name. */
  asName: boolean;
  /** The town nearest the truth, or one within 2 km: always looked for. */
  trueTown: boolean;
  /** Its further spellings, folded, words one space apart (those in scripts without spaces left out). */
  spellings: string[][];
  lat: number;
  lon: number;
  km: number;
}

/**
 * Towns within 50 km of the truth, most populous first, by distance over every place; those whose
 * name never counts left out (too short, a name a more populous town has, a country's name), but
 * for the true towns.
 */
function townsNear(truth: LatLon): Town[] {
  const table = placeTable();
  const ids: number[] = [];
  for (let id = 0; id < table.count; id++) {
    // 50 km is less than half a degree of latitude.
    if (Math.abs((table.lat[id] as number) - truth.lat) > 0.5) continue;
    if (haversineKm(truth.lat, truth.lon, table.lat[id] as number, table.lon[id] as number) <= CITY_RADIUS_KM) ids.push(id);
  }
  ids.sort((a, b) => (table.population[b] as number) - (table.population[a] as number) || a - b);
  const kms = ids.map((id) => haversineKm(truth.lat, truth.lon, table.lat[id] as number, table.lon[id] as number));
  const nearest = kms.indexOf(Math.min(...kms));
  const stop = getStopWords();
  const seen = new Set<string>();
  const towns: Town[] = [];
  ids.forEach((id, c) => {
    const name = table.buf.toString('utf8', table.nameStart[id] as number, table.nameEnd[id] as number);
    const words = nameWords(name);
    const key = words.join(' ');
    const trueTown = c === nearest || (kms[c] as number) <= TRUE_TOWN_KM;
    if (words.length === 0) return;
    if (!trueTown) {
      if (words.join('').length < 3 || seen.has(key) || isLexiconName(key)) return;
      seen.add(key);
    }
    const more = townNames(id, table.count);
    towns.push({
      name,
      words,
      exact: key.length <= 3 ? [...new Set([name, name.normalize('NFD').replace(/\p{M}/gu, '')])] : null,
      asName: more.wordLike || words.every((w) => stop.has(w)),
      trueTown,
      spellings: more.names.filter((n) => !isUnspacedName(n)).map((n) => n.split(' ')),
      lat: table.lat[id] as number,
      lon: table.lon[id] as number,
      km: kms[c] as number,
    });
  });
  return towns;
}

/** Where each town is written: by its name (as a name, if its name is a word) or a further spelling (capitalised or in another script, if short). */
function townHits(text: string, towns: Town[], spans: Feedback[]): Hit[] {
  const all = wordsIn(text);
  const found: { town: Town; start: number; end: number }[] = [];
  for (const word of startingWords(text)) {
    const k = all.findIndex((w) => w.start === word.start);
    const tried: { town: Town; end: number }[] = [];
    for (const town of towns) {
      if (town.words[0] !== word.folded) continue;
      const end = phraseEnd(all, k, town.words);
      if (end < 0 || (town.exact && !town.exact.includes(text.slice(word.start, end)))) continue;
      if (town.asName && !writtenAsName(text, word.start, end, town.trueTown)) continue;
      tried.push({ town, end });
    }
    for (const town of towns) {
      for (const words of town.spellings) {
        if (words[0] !== word.folded) continue;
        const end = phraseEnd(all, k, words);
        if (end < 0) continue;
        const written = text.slice(word.start, end);
        if (words.join('').length <= SHORT_SPELLING && !/^[A-Z]/.test(written) && !/[^\p{ASCII}]/u.test(written)) continue;
        tried.push({ town, end });
      }
    }
    // One mention of a town at a place: its name first, then its spellings in order.
    for (const t of tried) if (!found.some((f) => f.town === t.town && f.start === word.start)) found.push({ town: t.town, start: word.start, end: t.end });
  }
  found.sort((a, b) => towns.indexOf(a.town) - towns.indexOf(b.town) || a.start - b.start);
  const hits: Hit[] = [];
  for (const { town, start, end } of found) {
    const explained = explainedBy(spans, { start, end }, (p) => haversineKm(p.lat, p.lon, town.lat, town.lon) <= CITY_RADIUS_KM || nearestCity(p.lat, normalizeLon(p.lon)).name === town.name);
    if (explained) continue;
    const where = town.trueTown ? 'the town nearest the truth' : 'a place';
    hits.push({ kind: 'city', ...(town.km <= TRUE_TOWN_KM ? { severity: 'high' as const } : {}), start, end, evidence: `${town.name}, ${where} ${town.km.toFixed(1)} km from the truth; no agent point explains it` });
  }
  return hits;
}

function normalizeLon(lon: number): number {
  return lon > 180 ? lon - 360 : lon < -180 ? lon + 360 : lon;
}

// ---------------------------------------------------------------------------------------------
// Feedback: where the agent's points explain a place

/** A span of text answering an action of the agent's, with the points that explain a place inside it. */
interface Feedback {
  start: number;
  end: number;
  points: LatLon[];
}

/**
 * Where a text answers the agent's own actions: the whole of a tool result (its call's points; every
 * agent point for list_pins or a call not known), each transcript line's `-> feedback` (its action's
 * points), and each line holding a coordinate within a kilometre of an agent point (that point).
 */
function feedbackSpans(message: AuditMessage, text: string, own: LatLon[]): Feedback[] {
  const whole = (points: LatLon[]) => [{ start: 0, end: text.length, points: usable(points) }];
  if (message.answers) {
    if (message.answers.name === 'list_pins') return whole(own);
    return message.answers.points.length ? whole(message.answers.points) : [];
  }
  if (message.role === 'tool') return whole(own);
  const spans: Feedback[] = [];
  for (const action of transcriptActions(text)) if (action.feedback && action.points.length) spans.push({ ...action.feedback, points: usable(action.points) });
  for (const [from, to] of scannableRanges(text)) {
    for (const p of coordinatesByPattern(text.slice(from, to), from)) {
      const echoed = own.find((o) => haversineKm(o.lat, o.lon, p.lat, p.lon) <= OWN_POINT_TOLERANCE_KM);
      if (!echoed) continue;
      const newline = text.indexOf('\n', p.end);
      spans.push({ start: text.lastIndexOf('\n', p.start) + 1, end: newline < 0 ? text.length : newline, points: usable([echoed]) });
    }
  }
  return spans;
}

/** Whether a span inside some feedback has one of that feedback's points for which `explains` holds. */
function explainedBy(spans: Feedback[], span: { start: number; end: number }, explains: (p: LatLon) => boolean): boolean {
  return spans.some((f) => span.start >= f.start && span.end <= f.end && f.points.some(explains));
}

// ---------------------------------------------------------------------------------------------
// The agent's own points

/** The points the caller knows, those of a harness transcript's actions, those the model wrote and those of its tool calls' arguments. */
function ownPointsOf(prompt: AuditPrompt): LatLon[] {
  const points: LatLon[] = [...prompt.agentPoints];
  for (const message of prompt.messages) {
    if (message.author !== 'model') {
      for (const text of message.texts) for (const action of transcriptActions(text)) points.push(...action.points);
      continue;
    }
    for (const text of message.texts) for (const [from, to] of scannableRanges(text)) points.push(...coordinatesByPattern(text.slice(from, to), from));
    for (const call of message.toolCalls ?? []) {
      const args = (call as { function?: { arguments?: unknown } } | null)?.function?.arguments ?? call;
      if (typeof args !== 'string') {
        points.push(...pointsOfObject(args));
        continue;
      }
      for (const [from, to] of scannableRanges(args)) points.push(...coordinatesByPattern(args.slice(from, to), from));
      try {
        points.push(...pointsOfObject(JSON.parse(args) as unknown));
      } catch {
        // not JSON: only the text's own coordinates
      }
    }
  }
  return points;
}

/** The points a place can be looked up for. */
function usable(points: LatLon[]): LatLon[] {
  return points.filter((p) => Math.abs(p.lat) <= 90 && Number.isFinite(p.lon));
}
