/**
 * The baseline: findings accepted on purpose, each with a reason and who accepted it when (as
 * secret scanners keep one). A JSON file meant to be committed beside the data it vouches for:
 * `{"geolab_audit_baseline": 1, "accepted": [{id, reason, by, at}]}`, sorted by id so that a change
 * reads as a small diff. Written whole and atomically (temp file + rename).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { InputError } from '../core/errors.js';
import { isRecord } from '../core/values.js';
import { writeFileAtomic } from '../files.js';

export const BASELINE_VERSION = 1;
/** Where the baseline is when no --baseline names one: the current folder, like .secrets.baseline. */
export const DEFAULT_BASELINE = 'geolab-audit-baseline.json';

export interface BaselineEntry {
  id: string;
  reason: string;
  /** Who accepted it: git's user.name, else the login name. */
  by: string;
  /** When, as UTC ISO time. */
  at: string;
}

export type Baseline = Map<string, BaselineEntry>;

/** Finding ids are hex digests (see the core's findingId); anything else is a typo. */
const FINDING_ID = /^[0-9a-f]{8,64}$/;

export function isFindingId(id: string): boolean {
  return FINDING_ID.test(id);
}

/** Reads a baseline; a file that does not exist is an empty one when `missingOk`. */
export function readBaseline(file: string, missingOk: boolean): Baseline {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && missingOk) return new Map();
    throw new InputError(`cannot read the baseline: ${code ?? (err as Error).message}`, { file });
  }
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (err) {
    throw new InputError(`not valid JSON: ${(err as Error).message}`, { file });
  }
  if (!isRecord(value) || value.geolab_audit_baseline !== BASELINE_VERSION || !Array.isArray(value.accepted)) {
    throw new InputError(`expected {"geolab_audit_baseline": ${BASELINE_VERSION}, "accepted": [...]} (write one with \`geolab audit baseline add\` or --update)`, { file });
  }
  const baseline: Baseline = new Map();
  value.accepted.forEach((entry: unknown, i) => {
    const field = (name: string) => `accepted[${i}]${name ? `.${name}` : ''}`;
    if (!isRecord(entry)) throw new InputError('expected {"id", "reason", "by", "at"}', { file, field: field('') });
    for (const key of ['id', 'reason', 'by', 'at'] as const) {
      if (typeof entry[key] !== 'string') throw new InputError('expected a string', { file, field: field(key) });
    }
    const id = entry.id as string;
    if (!isFindingId(id)) throw new InputError(`expected a finding id (hex), got ${JSON.stringify(id)}`, { file, field: field('id') });
    baseline.set(id, { id, reason: entry.reason as string, by: entry.by as string, at: entry.at as string });
  });
  return baseline;
}

export function writeBaseline(file: string, baseline: Baseline): void {
  const accepted = [...baseline.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  writeFileAtomic(file, JSON.stringify({ geolab_audit_baseline: BASELINE_VERSION, accepted }, null, 2) + '\n');
}

/**
 * Accepts findings in the baseline file with one reason, in one write (read again, so a concurrent
 * edit is kept); which of them were there already.
 */
export function acceptInBaseline(file: string, ids: readonly string[], reason: string): { existed: string[]; baseline: Baseline } {
  const baseline = readBaseline(file, true);
  const existed = ids.filter((id) => baseline.has(id));
  const by = acceptedBy();
  for (const id of ids) baseline.set(id, acceptedEntry(id, reason, by));
  writeBaseline(file, baseline);
  return { existed, baseline };
}

/** An entry accepted now by whoever runs this. */
export function acceptedEntry(id: string, reason: string, by = acceptedBy()): BaselineEntry {
  return { id, reason, by, at: new Date().toISOString() };
}

/** git's user.name when set, else the login name: a name, never a credential. */
export function acceptedBy(): string {
  try {
    const name = execFileSync('git', ['config', 'user.name'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 2000 }).trim();
    if (name) return name;
  } catch {
    // no git, or no name configured
  }
  return process.env.USER || process.env.USERNAME || safeLogin();
}

function safeLogin(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}
