/**
 * The leak guard: checks every request before it is sent (DESIGN §5 items 1-2, §8). Only content
 * the harness or the environment authored can leak (system, user and tool messages, image bytes);
 * the model's own messages are where its points come from. A request that carries
 * - an identity key of the task (task_id, sequence_id, image ids, contributor name or id, checksums),
 * - coordinates within 25 km of the truth that the agent did not supply itself, or
 * - image metadata (EXIF/XMP APP1 and the like)
 * is not sent: the episode fails with an error starting "leak guard:".
 *
 * The guard knows what its caller knows: with the embedded environment the whole task (truth and
 * identity), with a remote one the Task API's truth-free spec (identity only).
 */
import { haversineKm, type LatLon } from '../core/geodesy.js';
import type { Task } from '../core/tasks.js';
import { truthOf } from '../core/tasks.js';
import { pointsOfAction } from './protocols/common.js';
import type { RecordedMessage } from './types.js';

/** DESIGN §5 item 2's default threshold. */
export const LEAK_RADIUS_KM = 25;
/** Feedback echoes an agent's point at four decimals (about 11 m); a kilometre covers that with room. */
export const OWN_POINT_TOLERANCE_KM = 1;

export type IdentityKind = 'task_id' | 'sequence_id' | 'image_id' | 'creator_username' | 'creator_id' | 'checksum';

export interface GuardKnowledge {
  truth: LatLon | null;
  identity: { kind: IdentityKind; value: string }[];
}

export interface LeakFinding {
  kind: 'identity' | 'coordinates' | 'image_metadata';
  /** Index of the message in the request. */
  message: number;
  role: RecordedMessage['role'];
  /** What was found, e.g. `task_id "eval-00003"` or `43.6150, -116.2023 (0.0 km from the truth)`. */
  evidence: string;
  /** The text around it. */
  context: string;
}

export class LeakGuardError extends Error {
  constructor(readonly findings: readonly LeakFinding[]) {
    const [first] = findings;
    const more = findings.length > 1 ? ` (and ${findings.length - 1} more)` : '';
    super(`leak guard: ${first ? `${first.evidence} in message ${first.message} (${first.role})` : 'refused'}${more}; the request was not sent`);
    this.name = 'LeakGuardError';
  }
}

export function knowledgeFromTask(task: Task): GuardKnowledge {
  const identity: GuardKnowledge['identity'] = [
    { kind: 'task_id', value: task.task_id },
    ...(task.sequence_id ? [{ kind: 'sequence_id' as const, value: task.sequence_id }] : []),
    ...task.frames.map((frame) => ({ kind: 'image_id' as const, value: frame.image_id })),
    ...(task.attribution?.creator_username ? [{ kind: 'creator_username' as const, value: task.attribution.creator_username }] : []),
    ...(task.attribution?.creator_id ? [{ kind: 'creator_id' as const, value: task.attribution.creator_id }] : []),
    ...checksumsOf(task.meta?.sha256).map((value) => ({ kind: 'checksum' as const, value })),
  ];
  return { truth: truthOf(task), identity };
}

/** From the Task API's spec: identity only, the truth is not served. */
export function knowledgeFromSpec(spec: { task_id?: unknown; sequence_id?: unknown }): GuardKnowledge {
  const identity: GuardKnowledge['identity'] = [];
  if (typeof spec.task_id === 'string' && spec.task_id) identity.push({ kind: 'task_id', value: spec.task_id });
  if (typeof spec.sequence_id === 'string' && spec.sequence_id) identity.push({ kind: 'sequence_id', value: spec.sequence_id });
  return { truth: null, identity };
}

export interface RequestToScan {
  messages: readonly RecordedMessage[];
  /** The bytes of every image the messages reference, by sha256. */
  images: ReadonlyMap<string, { bytes: Buffer; mime: string }>;
  knowledge: GuardKnowledge;
  /** Points the agent chose in earlier turns (its pins, maps, measures). */
  agentPoints: readonly LatLon[];
}

export function scanRequest({ messages, images, knowledge, agentPoints }: RequestToScan): LeakFinding[] {
  const own = [...agentPoints, ...messages.filter((m) => m.role === 'assistant').flatMap(pointsInAssistant)];
  const keys = knowledge.identity.filter(({ value }) => distinctive(value)).map((key) => ({ ...key, pattern: tokenPattern(key.value) }));
  const findings: LeakFinding[] = [];
  messages.forEach((message, index) => {
    if (message.role === 'assistant') return;
    const at = { message: index, role: message.role };
    for (const text of textsOf(message)) {
      for (const key of keys) {
        const match = key.pattern.exec(text);
        if (match) findings.push({ ...at, kind: 'identity', evidence: `${key.kind} ${JSON.stringify(key.value)}`, context: around(text, match.index, match[0].length) });
      }
      if (knowledge.truth) findings.push(...nearTruth(text, knowledge.truth, own).map((f) => ({ ...at, ...f })));
    }
    if (Array.isArray(message.content)) {
      for (const part of message.content) {
        if (part.type !== 'image') continue;
        const image = images.get(part.sha256);
        const problems = image ? imageMetadata(image.bytes) : ['no bytes for this image'];
        for (const problem of problems) {
          findings.push({ ...at, kind: 'image_metadata', evidence: `image ${part.sha256.slice(0, 12)} ${problem}`, context: '' });
        }
      }
    }
  });
  return findings;
}

/** Throws LeakGuardError when the request must not be sent. */
export function guardRequest(request: RequestToScan): void {
  const findings = scanRequest(request);
  if (findings.length) throw new LeakGuardError(findings);
}

// ---------------------------------------------------------------------------------------------
// Identity

/**
 * Keys too short to be told from ordinary text are skipped: a creator id "0" would match every
 * zero. Real ids (Mapillary's 15-digit numbers, 22-character sequence ids) are far longer.
 */
function distinctive(value: string): boolean {
  return /^\d+$/.test(value) ? value.length >= 6 : value.length >= 4;
}

function tokenPattern(value: string): RegExp {
  const escaped = value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![A-Za-z0-9])${escaped}(?![A-Za-z0-9])`, 'i');
}

function checksumsOf(value: unknown): string[] {
  if (typeof value !== 'object' || value === null) return [];
  return Object.values(value).filter((v): v is string => typeof v === 'string');
}

// ---------------------------------------------------------------------------------------------
// Coordinates

interface Coordinate {
  start: number;
  end: number;
  deg: number;
  axis: 'lat' | 'lon' | undefined;
  /** Written with a decimal point, a degree sign or a hemisphere: plain integers are too often prose. */
  marked: boolean;
}

const COORDINATE = /(?<![\w.])([-+\u2212]?)(\d{1,3}(?:\.\d+)?)(\s*°)?(?:\s*([NSEW])(?![A-Za-z]))?/g;
const GAP = /^\s*(?:[,;/]|and)?\s*$/i;
const KEYED = /\b(lat|latitude|lon|lng|long|longitude)["']?\s*[:=]\s*["']?([-+\u2212]?\d{1,3}(?:\.\d+)?)/gi;

/** Every latitude/longitude pair a text writes: neighbouring numbers (in either order) and keyed values. */
export function findCoordinates(text: string): (LatLon & { start: number; end: number })[] {
  const found: (LatLon & { start: number; end: number })[] = [];
  const numbers = [...text.matchAll(COORDINATE)].map(toCoordinate);
  for (let i = 0; i + 1 < numbers.length; i++) {
    const a = numbers[i]!;
    const b = numbers[i + 1]!;
    if (!a.marked || !b.marked || !GAP.test(text.slice(a.end, b.start))) continue;
    const [lat, lon] = a.axis === 'lon' || b.axis === 'lat' ? [b, a] : [a, b];
    found.push({ lat: lat.deg, lon: lon.deg, start: a.start, end: b.end });
    // Written the other way round (GeoJSON order) the pair would leak just the same.
    if (a.axis === undefined && b.axis === undefined) found.push({ lat: b.deg, lon: a.deg, start: a.start, end: b.end });
  }
  const keyed = [...text.matchAll(KEYED)].map((m) => ({
    axis: m[1]!.toLowerCase().startsWith('lat') ? 'lat' : 'lon',
    deg: Number(m[2]!.replace('\u2212', '-')),
    start: m.index,
    end: m.index + m[0].length,
  }));
  for (let i = 0; i + 1 < keyed.length; i++) {
    const a = keyed[i]!;
    const b = keyed[i + 1]!;
    if (a.axis === b.axis) continue;
    const [lat, lon] = a.axis === 'lat' ? [a, b] : [b, a];
    found.push({ lat: lat.deg, lon: lon.deg, start: a.start, end: b.end });
  }
  return found.filter((p) => Math.abs(p.lat) <= 90 && Math.abs(p.lon) <= 180);
}

function toCoordinate(m: RegExpMatchArray): Coordinate {
  const [, sign, digits, degreeSign, hemisphere] = m;
  const magnitude = Number(digits);
  const negative = hemisphere ? hemisphere === 'S' || hemisphere === 'W' : sign === '-' || sign === '\u2212';
  return {
    start: m.index!,
    end: m.index! + m[0].length,
    deg: negative ? -magnitude : magnitude,
    axis: hemisphere ? (hemisphere === 'N' || hemisphere === 'S' ? 'lat' : 'lon') : undefined,
    marked: digits!.includes('.') || degreeSign !== undefined || hemisphere !== undefined,
  };
}

function nearTruth(text: string, truth: LatLon, own: readonly LatLon[]): Omit<LeakFinding, 'message' | 'role'>[] {
  return findCoordinates(text).flatMap((point) => {
    const km = haversineKm(point.lat, point.lon, truth.lat, truth.lon);
    if (km > LEAK_RADIUS_KM) return [];
    if (own.some((p) => haversineKm(p.lat, p.lon, point.lat, point.lon) <= OWN_POINT_TOLERANCE_KM)) return [];
    return [
      {
        kind: 'coordinates' as const,
        evidence: `coordinates ${point.lat}, ${point.lon} (${km.toFixed(1)} km from the truth)`,
        context: around(text, point.start, point.end - point.start),
      },
    ];
  });
}

/** Points in the model's own message: its tool call arguments and any coordinates it wrote. */
function pointsInAssistant(message: RecordedMessage): LatLon[] {
  const points: LatLon[] = textsOf(message).flatMap((text) => findCoordinates(text));
  for (const call of message.tool_calls ?? []) {
    const args = (call as { function?: { arguments?: unknown } }).function?.arguments;
    if (typeof args === 'string') {
      points.push(...findCoordinates(args));
      try {
        points.push(...pointsOfAction(JSON.parse(args) as Record<string, unknown>));
      } catch {
        // arguments that are not JSON name no point beyond what the text scan found
      }
    } else if (typeof args === 'object' && args !== null) {
      points.push(...pointsOfAction(args as Record<string, unknown>));
    }
  }
  return points;
}

// ---------------------------------------------------------------------------------------------
// Image metadata

/**
 * Metadata segments an image carries: JPEG APP1 (EXIF, XMP), APP13 (IPTC) and comments; PNG text
 * and eXIf chunks. Empty for a clean image.
 */
export function imageMetadata(bytes: Buffer): string[] {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8) return jpegMetadata(bytes);
  if (bytes.length >= 8 && bytes.toString('latin1', 1, 4) === 'PNG') return pngMetadata(bytes);
  return ['is neither JPEG nor PNG'];
}

function jpegMetadata(bytes: Buffer): string[] {
  const found: string[] = [];
  let at = 2;
  while (at + 4 <= bytes.length) {
    if (bytes[at] !== 0xff) return [...found, 'has a malformed JPEG header'];
    const marker = bytes[at + 1]!;
    if (marker === 0xff) {
      at++;
      continue;
    }
    if (marker === 0xda || marker === 0xd9) break; // image data (or the end): no more header segments
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2;
      continue;
    }
    const length = bytes.readUInt16BE(at + 2);
    const payload = bytes.toString('latin1', at + 4, Math.min(bytes.length, at + 4 + 32));
    if (marker === 0xe1) {
      found.push(payload.startsWith('Exif') ? 'carries EXIF (APP1)' : payload.startsWith('http://ns.adobe.com/xap') ? 'carries XMP (APP1)' : 'carries an APP1 segment');
    } else if (marker === 0xed) found.push('carries IPTC (APP13)');
    else if (marker === 0xfe) found.push('carries a JPEG comment');
    at += 2 + length;
  }
  return found;
}

function pngMetadata(bytes: Buffer): string[] {
  const found: string[] = [];
  let at = 8;
  while (at + 8 <= bytes.length) {
    const length = bytes.readUInt32BE(at);
    const type = bytes.toString('latin1', at + 4, at + 8);
    if (['tEXt', 'iTXt', 'zTXt', 'eXIf'].includes(type)) found.push(`carries a PNG ${type} chunk`);
    if (type === 'IEND') break;
    at += 12 + length;
  }
  return found;
}

// ---------------------------------------------------------------------------------------------

function textsOf(message: RecordedMessage): string[] {
  const texts = typeof message.content === 'string' ? [message.content] : message.content.flatMap((p) => (p.type === 'text' ? [p.text] : []));
  return message.name ? [...texts, message.name] : texts;
}

function around(text: string, index: number, length: number): string {
  return text.slice(Math.max(0, index - 40), Math.min(text.length, index + length + 40));
}
