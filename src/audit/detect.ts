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
import { findCoordinates } from './coordinates.js';
import { compileIdentity, findIdentity, type IdentityMatcher } from './identity.js';
import { scanText, type TextScan } from './scan.js';
import { around } from './text.js';
import type { AuditPrompt, AuditTask, Finding, FindingKind, Severity } from './types.js';

/** DESIGN §5 item 2's default threshold (`--radius-km`). */
export const LEAK_RADIUS_KM = 25;
/** Feedback echoes an agent's point at four decimals (about 11 m); a kilometre covers that with room. */
export const OWN_POINT_TOLERANCE_KM = 1;

export interface AuditOptions {
  /** Coordinates closer than this to the truth are a leak (default 25 km). */
  radiusKm?: number;
}

const SEVERITY: Record<FindingKind, Severity> = {
  identity: 'high',
  coordinates: 'high',
  image_metadata: 'high',
  country: 'medium',
  city: 'medium',
  subregion: 'low',
  budget: 'low',
  unknown_task: 'high',
};

/** Stable across runs: sha256 of (kind, source, prompt id, span text), 16 hex digits. */
export function findingId(kind: FindingKind, source: string, promptId: string, text: string): string {
  return createHash('sha256').update(`${kind}\0${source}\0${promptId}\0${text}`).digest('hex').slice(0, 16);
}

interface CompiledTask {
  identity: IdentityMatcher;
}

const compiled = new WeakMap<AuditTask, CompiledTask>();

function compile(task: AuditTask): CompiledTask {
  let found = compiled.get(task);
  if (!found) {
    found = { identity: compileIdentity(task.identity) };
    compiled.set(task, found);
  }
  return found;
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
 * Findings of one prompt. A prompt whose task is unknown gets one `unknown_task` finding: nothing
 * can be said about it, and saying nothing would pass it as clean.
 */
export function auditPrompt(prompt: AuditPrompt, task: AuditTask | null, options: AuditOptions = {}): Finding[] {
  if (!task) {
    const ref = 'taskId' in prompt.task ? `task_id ${JSON.stringify(prompt.task.taskId)}` : `${prompt.task.split} index ${prompt.task.index}`;
    return [finding(prompt, -1, undefined, '', { kind: 'unknown_task', start: 0, end: 0, evidence: `no task found for ${ref}` }, '')];
  }
  const radiusKm = options.radiusKm ?? LEAK_RADIUS_KM;
  const { identity } = compile(task);
  const own = ownPoints(prompt);
  const findings: Finding[] = [];
  prompt.messages.forEach((message, m) => {
    if (message.author === 'model') return;
    message.texts.forEach((text, t) => {
      const scan = scanText(text);
      const hits: Hit[] = [
        ...findIdentity(text, scan, identity).map((h) => ({ kind: 'identity' as const, start: h.start, end: h.end, evidence: h.evidence })),
        ...(task.truth ? nearTruth(scan, task.truth, own, radiusKm) : []),
      ];
      for (const hit of hits) findings.push(finding(prompt, m, t, text.slice(hit.start, hit.end), hit, around(text, hit.start, hit.end)));
    });
  });
  return findings;
}

function finding(prompt: AuditPrompt, message: number, textIndex: number | undefined, text: string, hit: Hit, context: string): Finding {
  return {
    id: findingId(hit.kind, prompt.source, prompt.promptId, text),
    severity: hit.severity ?? SEVERITY[hit.kind],
    kind: hit.kind,
    source: prompt.source,
    prompt_id: prompt.promptId,
    ...(prompt.episodeId !== undefined ? { episode_id: prompt.episodeId } : {}),
    ...(prompt.turn !== undefined ? { turn: prompt.turn } : {}),
    message,
    ...(textIndex !== undefined ? { text_index: textIndex } : {}),
    span: { start: hit.start, end: hit.end },
    text,
    context,
    evidence: hit.evidence,
    baselined: false,
  };
}

// ---------------------------------------------------------------------------------------------
// Coordinates

function nearTruth(scan: TextScan, truth: LatLon, own: readonly LatLon[], radiusKm: number): Hit[] {
  const best = new Map<number, { km: number; lat: number; lon: number; end: number }>();
  for (const p of scan.points) {
    const km = haversineKm(p.lat, p.lon, truth.lat, truth.lon);
    if (km > radiusKm) continue;
    if (own.some((o) => haversineKm(o.lat, o.lon, p.lat, p.lon) <= OWN_POINT_TOLERANCE_KM)) continue;
    const seen = best.get(p.start);
    if (!seen || km < seen.km) best.set(p.start, { km, lat: p.lat, lon: p.lon, end: p.end });
  }
  return [...best].map(([start, p]) => ({
    kind: 'coordinates' as const,
    start,
    end: p.end,
    evidence: `${round(p.lat)}, ${round(p.lon)} is ${p.km.toFixed(1)} km from the truth`,
  }));
}

function round(deg: number): number {
  return Math.round(deg * 1e5) / 1e5;
}

/**
 * The agent's own points: those the caller knows (earlier pins, maps, measures), and those in this
 * request's model-authored messages (tool call arguments and coordinates the model wrote).
 */
function ownPoints(prompt: AuditPrompt): LatLon[] {
  const points: LatLon[] = [...prompt.agentPoints];
  for (const message of prompt.messages) {
    if (message.author !== 'model') continue;
    for (const text of message.texts) points.push(...scanText(text).points);
    for (const call of message.toolCalls ?? []) points.push(...pointsOfCall(call));
  }
  return points;
}

/** Points in one tool call as sent: OpenAI's `{function: {arguments}}` (a JSON string or an object), or a bare object. */
function pointsOfCall(call: unknown): LatLon[] {
  const args = (call as { function?: { arguments?: unknown } } | null)?.function?.arguments ?? call;
  if (typeof args === 'string') {
    const points: LatLon[] = findCoordinates(args);
    try {
      points.push(...pointsOfObject(JSON.parse(args) as unknown));
    } catch {
      // arguments that are not JSON name no point beyond what the text scan found
    }
    return points;
  }
  return pointsOfObject(args);
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

