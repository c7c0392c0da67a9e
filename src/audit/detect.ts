/**
 * The detector core (docs/audit.md): one definition of a leak, used by `geolab audit`, the TUI's Audit
 * screen and the runner's leak guard. Pure over plain data: an AuditPrompt and its AuditTask in,
 * Findings out.
 *
 * Only harness-authored messages are searched; the model's own messages (and tool calls) are where
 * the agent's points come from, so their echo in feedback is not a leak. Each text is scanned once
 * (scan.ts, cached by text in the AuditSession, session.ts); a task's keys, places and truth are
 * compiled once per AuditTask object and session (keep one object per task, and one session per run,
 * to profit).
 */
import { createHash } from 'node:crypto';
import { haversineKm, type LatLon } from '../core/geodesy.js';
import { toNumber } from '../core/values.js';
import { codedCountryAt } from '../geo/locate.js';
import { countryByAdmin } from '../geo/countries.js';
import { compileIdentity, findIdentity, type IdentityMatcher } from './identity.js';
import {
  AgentPlaces,
  CITY_RADIUS_KM,
  cityMentions,
  loadLexicon,
  placeMentions,
  RegionDictionary,
  type RegionMention,
  regionsNear,
  TRUE_TOWN_KM,
  trueCountry,
  VANITY_CCTLDS,
  type NearbyCity,
  type PlaceMention,
  TownDictionary,
  type TrueCountry,
} from './places.js';
import { imageTags, metadataSegments, readImageTags } from './images.js';
import { CaptureDictionary } from './capture.js';
import { fingerprintHits, fingerprintsIn, loadFingerprints } from './fingerprints.js';
import type { FoundPoint } from './coordinates.js';
import type { BudgetClaim, TextScan } from './scan.js';
import { AuditSession } from './session.js';
import { around, withItem } from './text.js';
import { decodeText, type DecodedText } from './decode.js';
import { transcriptActions } from './transcript.js';
import type { AuditImage, AuditMessage, AuditPrompt, AuditTask, Explanation, Finding, FindingKind, Mention, Severity } from './types.js';

/** The default radius within which coordinates leak (`--radius-km`; docs/audit.md). */
export const LEAK_RADIUS_KM = 25;
/** Feedback echoes an agent's point at four decimals (about 11 m); a kilometre covers that with room. */
export const OWN_POINT_TOLERANCE_KM = 1;

export interface AuditOptions {
  /** Coordinates closer than this to the truth are a leak (default 25 km). */
  radiusKm?: number;
  /** Told of every mention the agent's own points explain (not called when absent: no cost). */
  onExplained?: (explanation: Explanation) => void;
  /**
   * The session whose dictionaries, caches and compiled tasks the audit uses (session.ts). Auditing
   * many prompts, pass one: without it each prompt gets a session of its own, and its task is
   * compiled and its texts scanned anew.
   */
  session?: AuditSession;
}

const SEVERITY: Record<FindingKind, Severity> = {
  identity: 'high',
  coordinates: 'high',
  image_metadata: 'high',
  country: 'medium',
  city: 'medium',
  subregion: 'low',
  fingerprint: 'medium',
  capture_metadata: 'medium',
  region: 'medium',
  budget: 'low',
  unknown_task: 'high',
  template: 'low',
};

/** Stable across runs: sha256 of (kind, source, prompt id, span text), 16 hex digits. */
export function findingId(kind: FindingKind, source: string, promptId: string, text: string): string {
  return createHash('sha256').update(`${kind}\0${source}\0${promptId}\0${text}`).digest('hex').slice(0, 16);
}

/** What a detector reports; auditPrompt adds where (prompt, message, text) and the id. */
export interface Hit {
  kind: FindingKind;
  severity?: Severity;
  start: number;
  end: number;
  evidence: string;
}

/**
 * What one text holds for one task before the agent's points are considered: identity hits (final),
 * points with their distance to the truth, and mentions of the task's country, subregion and towns.
 * Cached per task and text scan, so a text repeated across a task's prompts is looked at once.
 */
interface Candidates {
  identity: readonly Hit[];
  points: readonly { start: number; end: number; lat: number; lon: number; km: number }[];
  countries: readonly { start: number; end: number; how: string; severity?: Severity }[];
  subregions: readonly { start: number; end: number }[];
  regions: readonly RegionMention[];
  cities: readonly { city: NearbyCity; start: number; end: number }[];
  /** Country fingerprints and capture metadata (final: no agent point explains them). */
  marks: readonly Hit[];
}

const EMPTY: readonly never[] = Object.freeze([]);
const NONE: Candidates = Object.freeze({ identity: EMPTY, points: EMPTY, countries: EMPTY, subregions: EMPTY, regions: EMPTY, cities: EMPTY, marks: EMPTY });

/**
 * What a task's detectors need, built when the task is first audited in a session and kept by the
 * session with the AuditTask object. Its dictionaries of words (identity keys, towns, the lexicon)
 * are registered in the session here, before any text is scanned for the task: a scan keeps only
 * the words some dictionary of its session holds.
 */
export class CompiledTask {
  readonly identity: IdentityMatcher;
  readonly nearbyTowns: TownDictionary;
  readonly capture: CaptureDictionary;
  /** The truth's admin-1 region and district (those of its nearest town in the task's country). */
  readonly region: RegionDictionary;
  private country: TrueCountry | null | undefined;
  /** The key candidates are kept under on each scan; a new one when the radius changes. */
  private candidatesKey = {};
  /** The radius the kept candidates were found with. */
  private radiusKm = LEAK_RADIUS_KM;

  constructor(
    private readonly task: AuditTask,
    readonly session: AuditSession,
  ) {
    this.identity = compileIdentity(task.identity, session);
    loadLexicon(session);
    loadFingerprints(session);
    this.nearbyTowns = new TownDictionary(task.truth, session);
    this.capture = new CaptureDictionary(task.capture, session);
    const iso2 = task.country ? (countryByAdmin(task.country)?.iso2 ?? null) : null;
    this.region = new RegionDictionary(task.truth ? regionsNear(task.truth, iso2, this.nearbyTowns.placeIds) : [], session);
  }

  /** The true country and its subregion (null in open water or without a truth). */
  get place(): TrueCountry | null {
    if (this.country === undefined) this.country = this.task.truth ? trueCountry(this.task.country, this.task.truth) : null;
    return this.country;
  }

  candidatesIn(text: string, scan: TextScan, radiusKm: number): Candidates {
    if (radiusKm !== this.radiusKm) {
      this.candidatesKey = {};
      this.radiusKm = radiusKm;
    }
    let found = scan.kept(this.candidatesKey) as Candidates | undefined;
    if (!found) {
      found = this.find(text, scan);
      scan.keep(this.candidatesKey, found);
    }
    return found;
  }

  /** Arrays are made only for what is found: this runs for every text a task's prompts hold. */
  private find(text: string, scan: TextScan): Candidates {
    const capture = this.capture.hits(text, scan);
    const prints = fingerprintsIn(text, scan);
    // Most texts hold nothing any detector looks at.
    if (scan.count === 0 && !scan.points.length && !scan.hexWords.length && !scan.taskIndexes.length && !scan.hosts.length && !scan.unspaced.length && !capture.length && !prints.length) return NONE;
    const identityHits = findIdentity(text, scan, this.identity);
    const identity: readonly Hit[] = identityHits.length ? identityHits.map((h) => ({ kind: 'identity', start: h.start, end: h.end, evidence: h.evidence })) : EMPTY;
    const truth = this.task.truth;
    if (!truth) return identity.length || capture.length ? { ...NONE, identity, marks: capture } : NONE;
    let points: Candidates['points'][number][] | undefined;
    for (let i = 0; i < scan.points.length; i++) {
      const p = scan.points[i] as FoundPoint;
      const km = haversineKm(p.lat, p.lon, truth.lat, truth.lon);
      if (km <= this.radiusKm) points = withItem(points, { start: p.start, end: p.end, lat: p.lat, lon: p.lon, km });
    }
    let countries: Candidates['countries'][number][] | undefined;
    let subregions: Candidates['subregions'][number][] | undefined;
    const mentions = placeMentions(text, scan);
    const place = mentions.length ? this.place : null;
    for (let i = 0; place && i < mentions.length; i++) {
      const mention = mentions[i] as PlaceMention;
      const country = mention.meanings.find((m) => m.type === 'country' && m.admin === place.admin);
      if (country?.type === 'country') {
        const how = country.kind === 'code' ? `${mention.end - mention.start === 2 ? 'ISO alpha-2' : 'alpha-3'} code` : country.kind;
        countries = withItem(countries, { start: mention.start, end: mention.end, how });
      } else if (mention.meanings.some((m) => m.type === 'subregion' && m.name === place.subregion)) {
        subregions = withItem(subregions, { start: mention.start, end: mention.end });
      }
    }
    const host = scan.hosts.length ? this.place : null;
    for (let i = 0; host && i < scan.hosts.length; i++) {
      const h = scan.hosts[i] as TextScan['hosts'][number];
      if (host.ccTlds.includes(h.tld)) countries = withItem(countries, { start: h.start, end: h.end, how: `ccTLD .${h.tld}`, ...(VANITY_CCTLDS.has(h.tld) ? { severity: 'low' as const } : {}) });
    }
    const cities = cityMentions(text, scan, this.nearbyTowns);
    const fingerprints = prints.length && this.place ? fingerprintHits(prints, this.place.admin, countries ?? EMPTY, mentions) : EMPTY;
    const marks = fingerprints.length ? [...capture, ...fingerprints] : capture;
    // A region named as its town is ("Lviv") is that town's finding.
    const named = this.region.mentions(text, scan);
    const regions = cities.length ? named.filter((r) => !cities.some((c) => c.start === r.start && c.end === r.end)) : named;
    if (!identity.length && !points && !countries && !subregions && !regions.length && !cities.length && !marks.length) return NONE;
    return { identity, points: points ?? EMPTY, countries: countries ?? EMPTY, subregions: subregions ?? EMPTY, regions, cities, marks };
  }
}

function compile(task: AuditTask, session: AuditSession): CompiledTask {
  let found = session.compiled.get(task);
  if (!found) {
    found = new CompiledTask(task, session);
    session.compiled.set(task, found);
  }
  return found;
}

/** Text that answers the agent's own action, with the places of that action's points. */
interface Feedback {
  start: number;
  end: number;
  places: AgentPlaces;
}

const NO_FEEDBACK: readonly Feedback[] = Object.freeze([]);

/** Tools whose answer names the places of every pin the agent holds, not of a point of its own call. */
const LISTS_PINS = new Set(['list_pins']);

/**
 * The agent's own points and places, and the feedback that answers them, worked out only when a text
 * has something they might explain.
 */
class Agent {
  private points: LatLon[] | undefined;
  private located: AgentPlaces | undefined;
  private feedback: Map<number, readonly Feedback[]> | undefined;

  constructor(
    private readonly prompt: AuditPrompt,
    private readonly session: AuditSession,
  ) {}

  get own(): LatLon[] {
    this.points ??= ownPoints(this.prompt, this.session);
    return this.points;
  }

  get places(): AgentPlaces {
    this.located ??= new AgentPlaces(this.own, this.session.places);
    return this.located;
  }

  /**
   * Where text `t` of message `m` answers one of the agent's own actions, the only places a pin's
   * point explains a place in: a tool result answering a call with points (any of the agent's points
   * for `list_pins` or a call the reader could not tell), the `-> feedback` of a
   * transcript line, and a line that echoes one of the agent's points ("Pin 2 at 44.81, 20.45 -
   * Serbia"). A country in a system prompt or in any other text is never explained by a pin.
   */
  feedbackIn(m: number, t: number): readonly Feedback[] {
    if (m < 0) return NO_FEEDBACK;
    const key = m * 0x10000 + t;
    let found = this.feedback?.get(key);
    if (!found) {
      found = this.findFeedback(this.prompt.messages[m] as AuditMessage, t);
      (this.feedback ??= new Map()).set(key, found);
    }
    return found;
  }

  private findFeedback(message: AuditMessage, t: number): readonly Feedback[] {
    const text = message.texts[t] as string;
    const answers = message.answers;
    // A tool result whose call the reader could not tell (a history cut before it) answers one of the agent's points.
    if (message.role === 'tool' && !answers) return [{ start: 0, end: text.length, places: this.places }];
    if (answers) {
      if (LISTS_PINS.has(answers.name)) return [{ start: 0, end: text.length, places: this.places }];
      return answers.points.length ? [{ start: 0, end: text.length, places: new AgentPlaces(answers.points, this.session.places) }] : NO_FEEDBACK;
    }
    let found: Feedback[] | undefined;
    for (const action of transcriptActions(text)) {
      if (action.feedback && action.points.length) found = withItem(found, { ...action.feedback, places: new AgentPlaces(action.points, this.session.places) });
    }
    // The echoes of the agent's points, as written or encoded (in the text's own offsets).
    const scan = this.session.scanText(text);
    const decoded = decodedOf(text, scan);
    const echoes = decoded ? [...scan.points, ...this.session.scanText(decoded.text).points.map((p) => ({ ...p, ...inOriginal(decoded, p) }))] : scan.points;
    for (let i = 0; i < echoes.length; i++) {
      const p = echoes[i] as FoundPoint;
      const own = this.own.find((o) => haversineKm(o.lat, o.lon, p.lat, p.lon) <= OWN_POINT_TOLERANCE_KM);
      if (own) found = withItem(found, { start: text.lastIndexOf('\n', p.start) + 1, end: lineEnd(text, p.end), places: new AgentPlaces([own], this.session.places) });
    }
    return found ?? NO_FEEDBACK;
  }
}

function lineEnd(text: string, from: number): number {
  const end = text.indexOf('\n', from);
  return end < 0 ? text.length : end;
}

/** The prompt of an agent without points, for what none of its points can explain (an image's tags). */
const NO_PROMPT: AuditPrompt = { source: '', promptId: '', task: { taskId: '' }, messages: [], agentPoints: [] };

/** The one finding of a prompt whose task is not known. */
export function unknownTask(prompt: AuditPrompt): Finding {
  const ref = 'taskId' in prompt.task ? `task_id ${JSON.stringify(prompt.task.taskId)}` : `${prompt.task.split} index ${prompt.task.index}`;
  return finding(prompt, -1, undefined, '', { kind: 'unknown_task', start: 0, end: 0, evidence: `no task found for ${ref}` }, '');
}

/**
 * Findings of one prompt. A prompt whose task is unknown gets one `unknown_task` finding: nothing
 * can be said about it, and saying nothing would pass it as clean.
 */
export function auditPrompt(prompt: AuditPrompt, task: AuditTask | null, options: AuditOptions = {}): Finding[] {
  if (!task) return [unknownTask(prompt)];
  const radiusKm = options.radiusKm ?? LEAK_RADIUS_KM;
  const session = options.session ?? new AuditSession();
  const compiledTask = compile(task, session);
  const agent = new Agent(prompt, session);
  const findings: Finding[] = [];
  // The latest budget sentence of each unit (its message and text), in the order the units were first stated.
  let turns: BudgetClaim | undefined;
  let turnsMessage = 0;
  let turnsText = 0;
  let steps: BudgetClaim | undefined;
  let stepsMessage = 0;
  let stepsText = 0;
  let stepsFirst = false;
  // Indexed loops: this runs for every text of every prompt, and iterators are garbage.
  const messages = prompt.messages;
  for (let m = 0; m < messages.length; m++) {
    const message = messages[m] as AuditMessage;
    if (message.author === 'model') continue;
    const texts = message.texts;
    for (let t = 0; t < texts.length; t++) {
      const text = texts[t] as string;
      const scan = session.scanText(text);
      for (let c = 0; c < scan.budget.length; c++) {
        const claim = scan.budget[c] as BudgetClaim;
        if (!turns && !steps) stepsFirst = claim.unit === 'steps';
        if (claim.unit === 'turns') {
          turns = claim;
          turnsMessage = m;
          turnsText = t;
        } else {
          steps = claim;
          stepsMessage = m;
          stepsText = t;
        }
      }
      const candidates = compiledTask.candidatesIn(text, scan, radiusKm);
      const decoded = decodedOf(text, scan);
      if (candidates === NONE && !decoded) continue;
      const explain = options.onExplained && ((note: Note) => options.onExplained?.(explanation(prompt, m, t, text, note)));
      const hits = decoded ? withDecoded(candidates, decoded, compiledTask, agent, m, t, radiusKm, explain) : unexplained(candidates, agent, m, t, compiledTask, explain);
      for (let h = 0; h < hits.length; h++) {
        const hit = hits[h] as Hit;
        findings.push(finding(prompt, m, t, text.slice(hit.start, hit.end), hit, around(text, hit.start, hit.end)));
      }
    }
    for (let i = 0; i < message.images.length; i++) {
      const image = message.images[i] as AuditImage;
      const hits = imageHits(image, compiledTask, task.truth, radiusKm);
      for (let h = 0; h < hits.length; h++) findings.push(finding(prompt, m, undefined, (hits[h] as ImageHit).text, { ...(hits[h] as ImageHit), start: 0, end: 0 }, image.ref));
    }
  }
  const turnsFinding = budgetFinding(prompt, turns, turnsMessage, turnsText);
  const stepsFinding = budgetFinding(prompt, steps, stepsMessage, stepsText);
  if (stepsFirst && stepsFinding) findings.push(stepsFinding);
  if (turnsFinding) findings.push(turnsFinding);
  if (!stepsFirst && stepsFinding) findings.push(stepsFinding);
  return findings;
}

// ---------------------------------------------------------------------------------------------
// Encodings

/** The key a text's decoded copy is kept under on its scan (null: the text holds nothing encoded). */
const DECODED_KEY = {};

/** A text's percent- or entity-decoded copy (decode.ts), worked out once per scan of the text. */
function decodedOf(text: string, scan: TextScan): DecodedText | null {
  let decoded = scan.kept(DECODED_KEY) as DecodedText | null | undefined;
  if (decoded === undefined) {
    decoded = decodeText(text);
    scan.keep(DECODED_KEY, decoded);
  }
  return decoded;
}

/**
 * The hits of a text that holds encoded characters: its own, and those of its decoded copy in the
 * text's offsets with the decoded words in the evidence. What the text itself shows (as a hit or
 * explained) is not reported again from the copy.
 */
function withDecoded(candidates: Candidates, decoded: DecodedText, task: CompiledTask, agent: Agent, m: number, t: number, radiusKm: number, explain?: (note: Note) => void): Hit[] {
  const seen: { kind: FindingKind; start: number; end: number }[] = [];
  const hear = (note: Note) => {
    seen.push(note);
    explain?.(note);
  };
  const hits = candidates === NONE ? [] : unexplained(candidates, agent, m, t, task, hear);
  const more = task.candidatesIn(decoded.text, task.session.scanText(decoded.text), radiusKm);
  if (more === NONE) return hits;
  seen.push(...hits);
  const covered = (kind: FindingKind, at: { start: number; end: number }) => seen.some((s) => s.kind === kind && s.start < at.end && at.start < s.end);
  // The copy's candidates in the text's own offsets, so that the feedback they stand in is the text's.
  const written = new Map<string, string>();
  const moved = <T extends { start: number; end: number }>(list: readonly T[]): T[] =>
    list.map((c) => {
      const at = inOriginal(decoded, c);
      written.set(`${at.start}:${at.end}`, decoded.text.slice(c.start, c.end));
      return { ...c, ...at };
    });
  const inText: Candidates = {
    identity: moved(more.identity),
    points: moved(more.points),
    countries: moved(more.countries),
    subregions: moved(more.subregions),
    regions: moved(more.regions),
    cities: moved(more.cities),
    marks: moved(more.marks),
  };
  const hearDecoded = (note: Note) => {
    if (!covered(note.kind, note)) explain?.(note);
  };
  for (const hit of unexplained(inText, agent, m, t, task, hearDecoded)) {
    if (!covered(hit.kind, hit)) hits.push({ ...hit, evidence: `${hit.evidence} (decoded: ${JSON.stringify(written.get(`${hit.start}:${hit.end}`))})` });
  }
  return hits.sort((a, b) => a.start - b.start);
}

/** A span of a decoded copy in its original text's offsets. */
function inOriginal(decoded: DecodedText, span: { start: number; end: number }): { start: number; end: number } {
  return { start: decoded.origin[span.start] as number, end: decoded.origin[span.end] as number };
}

/** A candidate an agent point explains, and how. */
interface Note {
  kind: Explanation['kind'];
  start: number;
  end: number;
  evidence: string;
}

/**
 * The candidates of text `t` of message `m` the agent's own points do not explain, as hits; `explain`
 * hears of the others. Coordinates are explained by any of the agent's points they echo; a place only
 * inside feedback that answers an action of the agent's whose point lies there.
 */
function unexplained(candidates: Candidates, agent: Agent, m: number, t: number, task: CompiledTask, explain?: (note: Note) => void): Hit[] {
  const hits: Hit[] = [...candidates.identity, ...candidates.marks];
  if (candidates.points.length) hits.push(...pointHits(candidates.points, agent, explain));
  const place = task.place;
  const hasPlaces = candidates.cities.length > 0 || candidates.regions.length > 0 || (place !== null && (candidates.countries.length > 0 || candidates.subregions.length > 0));
  const feedback = hasPlaces ? agent.feedbackIn(m, t) : NO_FEEDBACK;
  /** The first agent point that explains the span, by the feedback it stands in. */
  const explainedBy = <T>(span: { start: number; end: number }, find: (places: AgentPlaces) => T | undefined): T | undefined => {
    for (let i = 0; i < feedback.length; i++) {
      const f = feedback[i] as Feedback;
      if (span.start < f.start || span.end > f.end) continue;
      const found = find(f.places);
      if (found) return found;
    }
    return undefined;
  };
  if (place) {
    for (const c of candidates.countries) {
      const inCountry = explainedBy(c, (places) => places.pointInCountry(place.admin));
      if (inCountry) explain?.({ kind: 'country', start: c.start, end: c.end, evidence: `the agent's point ${point(inCountry)} is in ${place.admin}: explained` });
      else hits.push({ kind: 'country', severity: c.severity, start: c.start, end: c.end, evidence: `the true country (${place.admin}) by its ${c.how}; no agent point lies in it` });
    }
    for (const s of candidates.subregions) {
      const inSubregion = explainedBy(s, (places) => places.pointInSubregion(place.subregion));
      if (inSubregion) explain?.({ kind: 'subregion', start: s.start, end: s.end, evidence: `the agent's point ${point(inSubregion)} is in ${place.subregion}: explained` });
      else hits.push({ kind: 'subregion', start: s.start, end: s.end, evidence: `the true subregion (${place.subregion}); no agent point lies in it` });
    }
  }
  for (const r of candidates.regions) {
    const region = r.region;
    const inRegion = explainedBy(r, (places) => places.pointInRegion(region));
    const name = `${region.name}, ${region.iso2}`;
    const what = region.district ? 'district' : 'region';
    if (inRegion) explain?.({ kind: 'region', start: r.start, end: r.end, evidence: `the agent's point ${point(inRegion)} is in ${name}: explained` });
    else hits.push({ kind: 'region', start: r.start, end: r.end, evidence: `the true ${what} (${name}); no agent point lies in it` });
  }
  for (const { city, start, end } of candidates.cities) {
    const near = explainedBy({ start, end }, (places) => places.pointNearCity(city));
    if (!near) {
      const where = city.trueTown ? 'the town nearest the truth' : 'a place';
      hits.push({
        kind: 'city',
        ...(city.distanceKm <= TRUE_TOWN_KM ? { severity: 'high' as const } : {}),
        start,
        end,
        evidence: `${city.name}, ${where} ${city.distanceKm.toFixed(1)} km from the truth; no agent point explains it`,
      });
      continue;
    }
    const how = near.how === 'within' ? `lies within ${CITY_RADIUS_KM} km of ${city.name}` : `has ${city.name} as its nearest major city`;
    explain?.({ kind: 'city', start, end, evidence: `the agent's point ${point(near.point)} ${how}: explained` });
  }
  return hits.sort((a, b) => a.start - b.start);
}

/** Points near the truth the agent did not write itself, the nearest reading of each span. */
function pointHits(points: Candidates['points'], agent: Agent, explain?: (note: Note) => void): Hit[] {
  const best = new Map<number, Candidates['points'][number]>();
  for (const p of points) {
    const own = agent.own.find((o) => haversineKm(o.lat, o.lon, p.lat, p.lon) <= OWN_POINT_TOLERANCE_KM);
    if (own) {
      explain?.({ kind: 'coordinates', start: p.start, end: p.end, evidence: `the agent's own point ${point(own)} (within ${OWN_POINT_TOLERANCE_KM} km): explained` });
      continue;
    }
    const seen = best.get(p.start);
    if (!seen || p.km < seen.km) best.set(p.start, p);
  }
  return [...best.values()].map((p) => ({ kind: 'coordinates', start: p.start, end: p.end, evidence: `${round(p.lat)}, ${round(p.lon)} is ${p.km.toFixed(1)} km from the truth` }));
}

function point(p: LatLon): string {
  return `${round(p.lat)}, ${round(p.lon)}`;
}

function explanation(prompt: AuditPrompt, message: number, textIndex: number, text: string, note: Note): Explanation {
  return { kind: note.kind, ...mention(prompt, message, textIndex, note, text.slice(note.start, note.end), around(text, note.start, note.end), note.evidence) };
}

/** Where a mention stands and what it says, in the key order the JSON output keeps. */
function mention(prompt: AuditPrompt, message: number, textIndex: number | undefined, span: { start: number; end: number }, text: string, context: string, evidence: string): Mention {
  return {
    source: prompt.source,
    prompt_id: prompt.promptId,
    ...(prompt.episodeId !== undefined ? { episode_id: prompt.episodeId } : {}),
    ...(prompt.turn !== undefined ? { turn: prompt.turn } : {}),
    message,
    ...(textIndex !== undefined ? { text_index: textIndex } : {}),
    span: { start: span.start, end: span.end },
    text,
    context,
    evidence,
  };
}

/**
 * The audit's entry point, used by `geolab audit` (and so the Audit screen) and the runner's leak
 * guard: auditPrompt after reading the tags of the prompt's images with exifr, so that their
 * metadata is classified (GPS by where it points, maker, a key in a tag) rather than reported as
 * unread. exifr is loaded only for an image with a metadata block; a prompt without one costs no
 * more than auditPrompt.
 */
export async function auditPromptAsync(prompt: AuditPrompt, task: AuditTask | null, options: AuditOptions = {}): Promise<Finding[]> {
  for (const message of prompt.messages) if (message.author === 'harness' && message.images.length) await readImageTags(message.images);
  return auditPrompt(prompt, task, options);
}

/** A finding of a prompt from a detector's hit: where it stands, what it says, its id and severity. */
export function finding(prompt: AuditPrompt, message: number, textIndex: number | undefined, text: string, hit: Hit, context: string): Finding {
  return {
    id: findingId(hit.kind, prompt.source, prompt.promptId, text),
    severity: hit.severity ?? SEVERITY[hit.kind],
    kind: hit.kind,
    ...mention(prompt, message, textIndex, hit, text, context, hit.evidence),
    baselined: false,
  };
}

// ---------------------------------------------------------------------------------------------
// Images

interface ImageHit {
  kind: FindingKind;
  severity?: Severity;
  text: string;
  evidence: string;
}

const CLEAN: readonly ImageHit[] = Object.freeze([]);

/**
 * What an image's metadata gives away. Without its tags read (the synchronous auditPrompt), a block
 * is reported as it is, high. With them: GPS by where it points, high within the radius of the truth
 * and low beyond it; maker tags low (they name the camera, not the place); every other text of the
 * tags searched like the prompt's text, so an image id or a username in a tag is an identity finding.
 * The environment served the image: no point of the agent explains what its tags say.
 */
function imageHits(image: AuditImage, task: CompiledTask, truth: LatLon | null, radiusKm: number): readonly ImageHit[] {
  // The common case first: a JPEG without metadata blocks (sharp writes none unless asked).
  const header = image.bytes ? metadataSegments(image.bytes) : null;
  if (header && header.format !== 'other' && !header.problem && header.segments.length === 0) return CLEAN;
  const name = image.ref.startsWith('data:') ? 'the image' : `image ${image.ref}`;
  if (!image.bytes || !header) return [{ kind: 'image_metadata', severity: 'low', text: `${image.ref}: not checked`, evidence: `${name} is referenced but its bytes are not available: its metadata was not checked` }];
  if (header.format === 'other') return [{ kind: 'image_metadata', severity: 'low', text: `${image.ref}: not checked`, evidence: `${name} ${header.problem ?? ''}: its metadata was not checked` }];
  const problem: ImageHit[] = header.problem ? [{ kind: 'image_metadata', text: `${image.ref}: malformed`, evidence: `${name} ${header.problem}` }] : [];
  if (header.segments.length === 0) return problem;
  const tags = imageTags(image.bytes);
  const blocks = header.segments.map((s) => s.description.replace(/^carries /, '')).join(', ');
  if (!tags || 'error' in tags) {
    const why = tags ? `its tags could not be read: ${tags.error}` : 'tags not read';
    return [...problem, { kind: 'image_metadata', text: `${image.ref}: ${blocks}`, evidence: `${name} carries ${blocks} (${why})` }];
  }
  const hits: ImageHit[] = [...problem];
  if (tags.gps) hits.push(gpsHit(image.ref, name, tags.gps, truth, radiusKm));
  else if (tags.gpsTags.length) {
    hits.push({ kind: 'image_metadata', text: `${image.ref}: ${tags.gpsTags.join(', ')}`, evidence: `${name} carries GPS tags (${tags.gpsTags.join(', ')})` });
  }
  if (tags.maker.length) {
    const camera = tags.camera ? `camera: ${tags.camera}; ` : '';
    hits.push({ kind: 'image_metadata', severity: 'low', text: `${image.ref}: ${tags.maker.join(', ')}`, evidence: `${camera}${name} carries maker tags (${tags.maker.join(', ')}), which name the camera, not the place` });
  }
  for (const { tag, value } of tags.texts) {
    const candidates = task.candidatesIn(value, task.session.scanText(value), radiusKm);
    if (candidates === NONE) continue;
    // A tag is no feedback, and no agent's point: nothing in it is explained.
    for (const hit of unexplained(candidates, new Agent(NO_PROMPT, task.session), -1, -1, task)) {
      hits.push({ kind: hit.kind, severity: hit.severity, text: `${image.ref}: ${tag} ${value.slice(hit.start, hit.end)}`, evidence: `${hit.evidence} in the image's ${tag} tag` });
    }
  }
  if (hits.length === problem.length) {
    hits.push({ kind: 'image_metadata', severity: 'low', text: `${image.ref}: ${blocks}`, evidence: `${name} carries ${blocks} without GPS, maker or identity tags` });
  }
  return hits;
}

/** An image's GPS position: where it points (its country, when on land) and how far from the truth. */
function gpsHit(ref: string, name: string, gps: LatLon, truth: LatLon | null, radiusKm: number): ImageHit {
  const at = `${round(gps.lat)}, ${round(gps.lon)}`;
  // country-coder's answer: the outlines (about 0.6 s to index) would only settle border cases and carve-outs.
  const country = codedCountryAt(gps.lat, gps.lon)?.admin;
  const where = country ? ` in ${country}` : '';
  if (!truth) return { kind: 'image_metadata', text: `${ref}: GPS ${at}`, evidence: `${name} carries GPS tags pointing to ${at}${where}` };
  const km = haversineKm(gps.lat, gps.lon, truth.lat, truth.lon);
  const near = km <= radiusKm;
  return {
    kind: 'image_metadata',
    severity: near ? 'high' : 'low',
    text: `${ref}: GPS ${at}`,
    evidence: `${name} carries GPS tags pointing to ${at}${where}, ${km.toFixed(1)} km from the truth (${near ? 'within' : 'beyond'} the ${radiusKm} km radius)`,
  };
}

// ---------------------------------------------------------------------------------------------
// Budget

/**
 * The latest budget a prompt states for a unit (turns or steps), against the one it really had.
 * Earlier statements (older tool results still in the conversation) were true when written.
 */
function budgetFinding(prompt: AuditPrompt, claim: BudgetClaim | undefined, message: number, textIndex: number): Finding | null {
  if (!claim) return null;
  const turns = claim.unit === 'turns';
  const real = turns ? prompt.budget?.turnsLeft : prompt.budget?.stepsLeft;
  if (real === undefined || real === claim.left) return null;
  const text = (prompt.messages[message] as AuditMessage).texts[textIndex] as string;
  const what = turns ? 'turns (tool calls)' : 'environment steps';
  const hit: Hit = { kind: 'budget', start: claim.start, end: claim.end, evidence: `says ${claim.left} ${what} left; ${real} were left` };
  return finding(prompt, message, textIndex, text.slice(claim.start, claim.end), hit, around(text, claim.start, claim.end));
}

// ---------------------------------------------------------------------------------------------
// The agent's points

function round(deg: number): number {
  return Math.round(deg * 1e5) / 1e5;
}

/**
 * The agent's own points: those the caller knows (earlier pins, maps, measures), those in this
 * request's model-authored messages (tool call arguments and coordinates the model wrote), and those
 * of the actions in a harness transcript (src/audit/transcript.ts).
 */
function ownPoints(prompt: AuditPrompt, session: AuditSession): LatLon[] {
  const points: LatLon[] = [...prompt.agentPoints];
  const messages = prompt.messages;
  for (let m = 0; m < messages.length; m++) {
    const message = messages[m] as AuditMessage;
    if (message.author !== 'model') {
      // A stateless prompt carries the agent's earlier actions only as transcript lines.
      for (let t = 0; t < message.texts.length; t++) for (const action of transcriptActions(message.texts[t] as string)) points.push(...action.points);
      continue;
    }
    for (let t = 0; t < message.texts.length; t++) points.push(...session.scanText(message.texts[t] as string).points);
    const calls = message.toolCalls ?? [];
    for (let c = 0; c < calls.length; c++) points.push(...pointsOfCall(calls[c], session));
  }
  return points;
}

/** Points in one tool call as sent: OpenAI's `{function: {arguments}}` (a JSON string or an object), or a bare object. */
function pointsOfCall(call: unknown, session: AuditSession): LatLon[] {
  const args = (call as { function?: { arguments?: unknown } } | null)?.function?.arguments ?? call;
  return typeof args === 'string' ? pointsOfArguments(args, session) : pointsOfObject(args);
}

/** The same call arguments come back in every later prompt of a conversation: parsed once a session. */
function pointsOfArguments(args: string, session: AuditSession): LatLon[] {
  const argumentPoints = session.argumentPoints;
  let points = argumentPoints.get(args);
  if (!points) {
    points = [...session.scanText(args).points];
    try {
      points.push(...pointsOfObject(JSON.parse(args) as unknown));
    } catch {
      // arguments that are not JSON name no point beyond what the text scan found
    }
    argumentPoints.set(args, points);
  }
  return points;
}

const POINT_KEYS = [
  ['lat', 'lon'],
  ['lat_a', 'lon_a'],
  ['lat_b', 'lon_b'],
  ['latitude', 'longitude'],
  ['lat', 'lng'],
] as const;

/** The points an action or call's arguments name by their keys (lat/lon, lat_a/lon_b, latitude/longitude, lat/lng), nested ones too. */
export function pointsOfObject(value: unknown): LatLon[] {
  if (typeof value !== 'object' || value === null) return [];
  const record = value as Record<string, unknown>;
  const points: LatLon[] = [];
  for (const [latKey, lonKey] of POINT_KEYS) {
    const lat = toNumber(record[latKey]);
    const lon = toNumber(record[lonKey]);
    if (lat !== undefined && lon !== undefined) points.push({ lat, lon });
  }
  for (const nested of Object.values(record)) if (typeof nested === 'object' && nested !== null) points.push(...pointsOfObject(nested));
  return points;
}

