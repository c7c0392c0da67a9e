/**
 * The last audit of a workspace's episodes, as counts: written by `geolab audit` and the TUI's Audit
 * screen, read by Home. Home reads only this small file (never runs an audit), so this module loads
 * nothing of the detectors.
 */
import { readFileSync } from 'node:fs';
import { isRecord } from '../core/values.js';
import { writeFileAtomic } from '../files.js';
import type { Severity } from './types.js';

export interface LastAudit {
  /** When it ran, as UTC ISO time. */
  at: string;
  prompts: number;
  turns: number;
  findings: number;
  /** Findings not in the baseline. */
  open: number;
  /** Open findings by severity. */
  open_by_severity: Record<Severity, number>;
  seconds: number;
}

export function writeLastAudit(file: string, last: LastAudit): void {
  writeFileAtomic(file, JSON.stringify(last, null, 2) + '\n');
}

/** The last audit, or null when none ran (or the file is not one: Home then says so, it never fails on it). */
export function readLastAudit(file: string): LastAudit | null {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
  if (!isRecord(value) || typeof value.at !== 'string' || !isRecord(value.open_by_severity)) return null;
  for (const key of ['prompts', 'turns', 'findings', 'open', 'seconds'] as const) if (typeof value[key] !== 'number') return null;
  return value as unknown as LastAudit;
}

/** The last audit as Home shows it, from a run's counts and findings. */
export function lastAuditOf(counts: { prompts: number; turns: number }, findings: readonly { severity: Severity; baselined: boolean }[], seconds: number): LastAudit {
  const openBySeverity: Record<Severity, number> = { high: 0, medium: 0, low: 0 };
  for (const f of findings) if (!f.baselined) openBySeverity[f.severity]++;
  const open = openBySeverity.high + openBySeverity.medium + openBySeverity.low;
  return { at: new Date().toISOString(), prompts: counts.prompts, turns: counts.turns, findings: findings.length, open, open_by_severity: openBySeverity, seconds };
}
