/**
 * The detector core (DESIGN §5): one definition of a leak, used by `geolab audit`, the TUI's Audit
 * screen and the runner's leak guard. Pure over plain data: an AuditPrompt and its AuditTask in,
 * Findings out.
 *
 * Only harness-authored messages are searched; the model's own messages (and tool calls) are where
 * the agent's points come from, so their echo in feedback is not a leak. Each text is scanned once
 * (scan.ts, cached by text); a task's keys, places and truth are compiled once per AuditTask object
 * (keep one object per task to profit).
 */
import { createHash } from 'node:crypto';
import { haversineKm, type LatLon } from '../core/geodesy.js';
import { toNumber } from '../agent/protocols/common.js';
import { countryByAdmin } from '../geo/countries.js';
import type { Region } from '../geo/place-names.js';
import { compileIdentity, findIdentity, type IdentityMatcher } from './identity.js';
import {
  AgentPlaces,
  CITY_RADIUS_KM,
  clearPlaceCache,
  cityMentions,
  loadLexicon,
  placeMentions,
  RegionDictionary,
  regionNear,
  TRUE_TOWN_KM,
  trueCountry,
  VANITY_CCTLDS,
  type NearbyCity,
  type PlaceMention,
  TownDictionary,
  type TrueCountry,
} from './places.js';
import { imageTags, metadataSegments, readImageTags } from './images.js';
import type { FoundPoint } from './coordinates.js';
import { Memo } from './memo.js';
import { clearScanCache, scanText, type BudgetClaim, type TextScan } from './scan.js';
import { around, withItem } from './text.js';
import type { AuditImage, AuditMessage, AuditPrompt, AuditTask, Explanation, Finding, FindingKind, Mention, Severity } from './types.js';

/** DESIGN §5 item 2's default threshold (`--radius-km`). */
export const LEAK_RADIUS_KM = 25;
/** Feedback echoes an agent's point at four decimals (about 11 m); a kilometre covers that with room. */
export const OWN_POINT_TOLERANCE_KM = 1;

export interface AuditOptions {
  /** Coordinates closer than this to the truth are a leak (default 25 km). */
  radiusKm?: number;
  /** Told of every mention the agent's own points explain (not called when absent: no cost). */
  onExplained?: (explanation: Explanation) => void;
}

const SEVERITY: Record<FindingKind, Severity> = {
  identity: 'high',
  coordinates: 'high',
  image_metadata: 'high',
  country: 'medium',
  city: 'medium',
  subregion: 'low',
  region: 'medium',
  budget: 'low',
  unknown_task: 'high',
};

/** Stable across runs: sha256 of (kind, source, prompt id, span text), 16 hex digits. */
export function findingId(kind: FindingKind, source: string, promptId: string, text: string): string {
  return createHash('sha256').update(`${kind}\0${source}\0${promptId}\0${text}`).digest('hex').slice(0, 16);
}

/** What a detector reports; auditPrompt adds where (prompt, message, text) and the id. */
interface Hit {
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
  regions: readonly { start: number; end: number }[];
  cities: readonly { city: NearbyCity; start: number; end: number }[];
}

const EMPTY: readonly never[] = Object.freeze([]);
const NONE: Candidates = Object.freeze({ identity: EMPTY, points: EMPTY, countries: EMPTY, subregions: EMPTY, regions: EMPTY, cities: EMPTY });

/**
 * What a task's detectors need, built when the task is first audited and kept with the AuditTask
 * object. Its dictionaries of words (identity keys, towns, the lexicon) are made here, before any
 * text is scanned for the task: a scan keeps only the words some dictionary holds.
 */
class CompiledTask {
  readonly identity: IdentityMatcher;
  readonly nearbyTowns: TownDictionary;
  /** The truth's admin-1 region (that of its nearest town in the task's country). */
  readonly region: RegionDictionary;
  private country: TrueCountry | null | undefined;
  /** The key candidates are kept under on each scan; a new one when the radius changes. */
  private candidatesKey = {};
  /** The radius the kept candidates were found with. */
  private radiusKm = LEAK_RADIUS_KM;

  constructor(private readonly task: AuditTask) {
    this.identity = compileIdentity(task.identity);
    loadLexicon();
    this.nearbyTowns = new TownDictionary(task.truth);
    const iso2 = task.country ? (countryByAdmin(task.country)?.iso2 ?? null) : null;
    this.region = new RegionDictionary(task.truth ? regionNear(task.truth, iso2, this.nearbyTowns.placeIds) : null);
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
    // Most texts hold nothing any detector looks at.
    if (scan.count === 0 && !scan.points.length && !scan.hexWords.length && !scan.taskIndexes.length && !scan.hosts.length && !scan.unspaced.length) return NONE;
    const identityHits = findIdentity(text, scan, this.identity);
    const identity: readonly Hit[] = identityHits.length ? identityHits.map((h) => ({ kind: 'identity', start: h.start, end: h.end, evidence: h.evidence })) : EMPTY;
    const truth = this.task.truth;
    if (!truth) return identity.length ? { ...NONE, identity } : NONE;
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
    // A region named as its town is ("Lviv") is that town's finding.
    const named = this.region.mentions(text, scan);
    const regions = cities.length ? named.filter((r) => !cities.some((c) => c.start === r.start && c.end === r.end)) : named;
    if (!identity.length && !points && !countries && !subregions && !regions.length && !cities.length) return NONE;
    return { identity, points: points ?? EMPTY, countries: countries ?? EMPTY, subregions: subregions ?? EMPTY, regions, cities };
  }
}

const compiled = new WeakMap<AuditTask, CompiledTask>();

function compile(task: AuditTask): CompiledTask {
  let found = compiled.get(task);
  if (!found) {
    found = new CompiledTask(task);
    compiled.set(task, found);
  }
  return found;
}

/** The agent's own points and places, worked out only when a text has something they might explain. */
class Agent {
  private points: LatLon[] | undefined;
  private located: AgentPlaces | undefined;

  constructor(private readonly prompt: AuditPrompt) {}

  get own(): LatLon[] {
    this.points ??= ownPoints(this.prompt);
    return this.points;
  }

  get places(): AgentPlaces {
    this.located ??= new AgentPlaces(this.own);
    return this.located;
  }
}

/**
 * Findings of one prompt. A prompt whose task is unknown gets one `unknown_task` finding: nothing
 * can be said about it, and saying nothing would pass it as clean.
 */
export function auditPrompt(prompt: AuditPrompt, task: AuditTask | null, options: AuditOptions = {}): Finding[] {
  if (!task) {
    const ref = 'taskId' in prompt.task ? `task_id ${JSON.stringify(prompt.task.taskId)}` : `${prompt.task.split} index ${prompt.task.index}`;
    return [finding(prompt, -1, undefined, '', { kind: 'unknown_task', start: 0, end: 0, evidence: `no task found for ${ref}` }, '')];
  }
  const radiusKm = options.radiusKm ?? LEAK_RADIUS_KM;
  const compiledTask = compile(task);
  const agent = new Agent(prompt);
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
      const scan = scanText(text);
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
      if (candidates === NONE) continue;
      const explain = options.onExplained && ((note: Note) => options.onExplained?.(explanation(prompt, m, t, text, note)));
      const hits = unexplained(candidates, agent, compiledTask, explain);
      for (let h = 0; h < hits.length; h++) {
        const hit = hits[h] as Hit;
        findings.push(finding(prompt, m, t, text.slice(hit.start, hit.end), hit, around(text, hit.start, hit.end)));
      }
    }
    for (let i = 0; i < message.images.length; i++) {
      const image = message.images[i] as AuditImage;
      const hits = imageHits(image, compiledTask, task.truth);
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

/** A candidate an agent point explains, and how. */
interface Note {
  kind: Explanation['kind'];
  start: number;
  end: number;
  evidence: string;
}

/** The candidates the agent's own points do not explain, as hits; `explain` hears of the others. */
function unexplained(candidates: Candidates, agent: Agent, task: CompiledTask, explain?: (note: Note) => void): Hit[] {
  const hits: Hit[] = [...candidates.identity];
  if (candidates.points.length) hits.push(...pointHits(candidates.points, agent, explain));
  const place = task.place;
  if (place) {
    const inCountry = candidates.countries.length ? agent.places.pointInCountry(place.admin) : undefined;
    for (const c of candidates.countries) {
      if (inCountry) explain?.({ kind: 'country', start: c.start, end: c.end, evidence: `the agent's point ${point(inCountry)} is in ${place.admin}: explained` });
      else hits.push({ kind: 'country', severity: c.severity, start: c.start, end: c.end, evidence: `the true country (${place.admin}) by its ${c.how}; no agent point lies in it` });
    }
    const inSubregion = candidates.subregions.length ? agent.places.pointInSubregion(place.subregion) : undefined;
    for (const s of candidates.subregions) {
      if (inSubregion) explain?.({ kind: 'subregion', start: s.start, end: s.end, evidence: `the agent's point ${point(inSubregion)} is in ${place.subregion}: explained` });
      else hits.push({ kind: 'subregion', start: s.start, end: s.end, evidence: `the true subregion (${place.subregion}); no agent point lies in it` });
    }
  }
  const region = task.region.region;
  const inRegion = region && candidates.regions.length ? agent.places.pointInRegion(region) : undefined;
  for (const r of region ? candidates.regions : EMPTY) {
    const name = `${(region as Region).name}, ${(region as Region).iso2}`;
    if (inRegion) explain?.({ kind: 'region', start: r.start, end: r.end, evidence: `the agent's point ${point(inRegion)} is in ${name}: explained` });
    else hits.push({ kind: 'region', start: r.start, end: r.end, evidence: `the true region (${name}); no agent point lies in it` });
  }
  for (const { city, start, end } of candidates.cities) {
    const near = agent.places.pointNearCity(city);
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
 * auditPrompt after reading the tags of the prompt's images with exifr, so that their metadata is
 * classified (GPS, maker, identity in a tag) rather than reported as unread. For the audit command;
 * the leak guard, which must decide synchronously, refuses any metadata anyway.
 */
export async function auditPromptAsync(prompt: AuditPrompt, task: AuditTask | null, options: AuditOptions = {}): Promise<Finding[]> {
  for (const message of prompt.messages) if (message.author === 'harness' && message.images.length) await readImageTags(message.images);
  return auditPrompt(prompt, task, options);
}

function finding(prompt: AuditPrompt, message: number, textIndex: number | undefined, text: string, hit: Hit, context: string): Finding {
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

function imageHits(image: AuditImage, task: CompiledTask, truth: LatLon | null): readonly ImageHit[] {
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
    const why = tags ? `exifr could not read it: ${tags.error}` : 'tags not read';
    return [...problem, { kind: 'image_metadata', text: `${image.ref}: ${blocks}`, evidence: `${name} carries ${blocks} (${why})` }];
  }
  const hits: ImageHit[] = [...problem];
  if (tags.gps) {
    const km = truth ? `, ${haversineKm(tags.gps.lat, tags.gps.lon, truth.lat, truth.lon).toFixed(1)} km from the truth` : '';
    hits.push({ kind: 'image_metadata', text: `${image.ref}: GPS ${round(tags.gps.lat)}, ${round(tags.gps.lon)}`, evidence: `${name} carries GPS tags: ${round(tags.gps.lat)}, ${round(tags.gps.lon)}${km}` });
  } else if (tags.gpsTags.length) {
    hits.push({ kind: 'image_metadata', text: `${image.ref}: ${tags.gpsTags.join(', ')}`, evidence: `${name} carries GPS tags (${tags.gpsTags.join(', ')})` });
  }
  if (tags.maker.length) hits.push({ kind: 'image_metadata', severity: 'medium', text: `${image.ref}: ${tags.maker.join(', ')}`, evidence: `${name} carries maker tags: ${tags.maker.join(', ')}` });
  for (const { tag, value } of tags.texts) {
    for (const hit of findIdentity(value, scanText(value), task.identity)) {
      hits.push({ kind: 'identity', text: `${image.ref}: ${tag} ${value}`, evidence: `${hit.evidence} in the image's ${tag} tag` });
    }
  }
  if (hits.length === problem.length) {
    hits.push({ kind: 'image_metadata', severity: 'low', text: `${image.ref}: ${blocks}`, evidence: `${name} carries ${blocks} without GPS, maker or identity tags` });
  }
  return hits;
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
 * The agent's own points: those the caller knows (earlier pins, maps, measures), and those in this
 * request's model-authored messages (tool call arguments and coordinates the model wrote).
 */
function ownPoints(prompt: AuditPrompt): LatLon[] {
  const points: LatLon[] = [...prompt.agentPoints];
  const messages = prompt.messages;
  for (let m = 0; m < messages.length; m++) {
    const message = messages[m] as AuditMessage;
    if (message.author !== 'model') continue;
    for (let t = 0; t < message.texts.length; t++) points.push(...scanText(message.texts[t] as string).points);
    const calls = message.toolCalls ?? [];
    for (let c = 0; c < calls.length; c++) points.push(...pointsOfCall(calls[c]));
  }
  return points;
}

/** Points in one tool call as sent: OpenAI's `{function: {arguments}}` (a JSON string or an object), or a bare object. */
function pointsOfCall(call: unknown): LatLon[] {
  const args = (call as { function?: { arguments?: unknown } } | null)?.function?.arguments ?? call;
  return typeof args === 'string' ? pointsOfArguments(args) : pointsOfObject(args);
}

const argumentPoints = new Memo<string, LatLon[]>(4_096);

/**
 * Forgets what was learnt from texts seen before (scans, call arguments), so that a benchmark can
 * time a first pass over a corpus. Compiled tasks go with their AuditTask objects.
 */
export function clearAuditCaches(): void {
  clearScanCache();
  clearPlaceCache();
  argumentPoints.clear();
}

/** The same call arguments come back in every later prompt of a conversation: parsed once. */
function pointsOfArguments(args: string): LatLon[] {
  let points = argumentPoints.get(args);
  if (!points) {
    points = [...scanText(args).points];
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

function pointsOfObject(value: unknown): LatLon[] {
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

