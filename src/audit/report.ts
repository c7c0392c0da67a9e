/**
 * What an audit run reports: the counts, the findings, and the gate (new findings at or above a
 * severity fail the run). Pure: plain text and the JSON shape of issue 10 from findings and counts.
 */
import type { Explanation, Finding, FindingKind, Severity } from './types.js';

export const SEVERITIES: readonly Severity[] = ['high', 'medium', 'low'];
export const FINDING_KINDS: readonly FindingKind[] = [
  'identity',
  'coordinates',
  'country',
  'subregion',
  'region',
  'city',
  'fingerprint',
  'capture_metadata',
  'image_metadata',
  'budget',
  'unknown_task',
  'template',
];

const RANK: Record<Severity, number> = { high: 3, medium: 2, low: 1 };

export function atOrAbove(severity: Severity, threshold: Severity): boolean {
  return RANK[severity] >= RANK[threshold];
}

/** What was read, counted as the run goes. */
export interface AuditCounts {
  sources: number;
  prompts: number;
  /** Prompts that are a turn of an episode or rollout. */
  turns: number;
  messages: number;
  images: number;
  /** Findings already reported for an earlier request of the same episode (the history is re-sent every turn). */
  repeats: number;
  /** Bad lines of prompt files skipped with --skip-invalid (the run then fails). */
  invalid: number;
}

export function emptyCounts(): AuditCounts {
  return { sources: 0, prompts: 0, turns: 0, messages: 0, images: 0, repeats: 0, invalid: 0 };
}

/** How many explained mentions a report lists with their evidence (the counts cover them all). */
export const EXPLAINED_NOTES_MAX = 20;

/** Mentions the agent's own points explain: not leaks, counted so that a clean result can show why. */
export interface ExplainedSummary {
  /** Mentions explained (each once per episode, as findings are). */
  mentions: number;
  /** Prompts with at least one. */
  prompts: number;
  /** The first EXPLAINED_NOTES_MAX, with the agent point that explains each. */
  notes: Explanation[];
}

export function emptyExplained(): ExplainedSummary {
  return { mentions: 0, prompts: 0, notes: [] };
}

export interface AuditSummary extends AuditCounts {
  findings: number;
  new: number;
  baselined: number;
  by_kind: Partial<Record<FindingKind, number>>;
  by_severity: Record<Severity, number>;
  fail_on: Severity;
  /** New findings at or above fail_on: the run exits 1 when there is any. */
  failing: number;
  seconds: number;
  explained: ExplainedSummary;
}

export function summarize(findings: readonly Finding[], counts: AuditCounts, failOn: Severity, seconds: number, explained = emptyExplained()): AuditSummary {
  const byKind: Partial<Record<FindingKind, number>> = {};
  const bySeverity: Record<Severity, number> = { high: 0, medium: 0, low: 0 };
  for (const f of findings) {
    byKind[f.kind] = (byKind[f.kind] ?? 0) + 1;
    bySeverity[f.severity]++;
  }
  const baselined = findings.filter((f) => f.baselined).length;
  return {
    ...counts,
    findings: findings.length,
    new: findings.length - baselined,
    baselined,
    by_kind: byKind,
    by_severity: bySeverity,
    fail_on: failOn,
    failing: failing(findings, failOn).length,
    seconds: Math.round(seconds * 1000) / 1000,
    explained,
  };
}

export function failing(findings: readonly Finding[], failOn: Severity): Finding[] {
  return findings.filter((f) => !f.baselined && atOrAbove(f.severity, failOn));
}

/** A finding in the JSON report: exactly issue 10's keys, absent ones as null. */
export function jsonFinding(f: Finding) {
  return {
    id: f.id,
    severity: f.severity,
    kind: f.kind,
    source: f.source,
    prompt_id: f.prompt_id,
    episode_id: f.episode_id ?? null,
    turn: f.turn ?? null,
    message: f.message,
    span: { start: f.span.start, end: f.span.end },
    text: f.text,
    context: f.context,
    evidence: f.evidence,
    baselined: f.baselined,
  };
}

export function jsonReport(summary: AuditSummary, findings: readonly Finding[]) {
  return { summary, findings: findings.map(jsonFinding) };
}

/** Where a finding is, for people: `file:line prompt-id message N`. */
export function findingPlace(f: Finding, line: number | undefined): string {
  const at = line === undefined ? f.source : `${f.source}:${line}`;
  return `${at} ${f.prompt_id}${f.message >= 0 ? ` message ${f.message}` : ''}`;
}

/** The plain-text report: the summary, then the findings by severity, then the gate's verdict. */
export function textReport(summary: AuditSummary, findings: readonly Finding[], lineOf: (f: Finding) => number | undefined): string[] {
  const lines = [
    `audited ${summary.prompts} prompt(s) (${summary.turns} episode turn(s), ${summary.messages} message(s), ${summary.images} image(s)) ` +
      `from ${summary.sources} source(s) in ${summary.seconds.toFixed(2)} s`,
  ];
  if (summary.invalid) lines.push(`skipped ${summary.invalid} invalid line(s) of prompt files (listed on stderr): the run fails until they are fixed`);
  const { explained } = summary;
  if (explained.mentions) {
    lines.push(`${explained.mentions} mention(s) in ${explained.prompts} prompt(s) explained by the agent's own points, not leaks (--json lists the first ${EXPLAINED_NOTES_MAX})`);
  }
  if (findings.length === 0) {
    lines.push(`clean: no findings in ${summary.prompts} prompt(s)`);
    return lines;
  }
  const kinds = FINDING_KINDS.filter((k) => summary.by_kind[k]).map((k) => `${k} ${summary.by_kind[k]}`);
  lines.push(
    `${summary.findings} finding(s), ${summary.new} new, ${summary.baselined} baselined: ` +
      `${SEVERITIES.map((s) => `${s} ${summary.by_severity[s]}`).join(', ')}; ${kinds.join(', ')}` +
      (summary.repeats ? ` (${summary.repeats} repeat(s) in later turns of the same episode not listed)` : ''),
  );
  for (const severity of SEVERITIES) {
    for (const f of findings.filter((x) => x.severity === severity)) {
      lines.push('');
      lines.push(`${severity.toUpperCase()} ${f.kind}${f.baselined ? ' (baselined)' : ''}  ${findingPlace(f, lineOf(f))}`);
      lines.push(`  ${f.text ? `${JSON.stringify(f.text)}: ` : ''}${f.evidence}`);
      if (f.context) lines.push(`  | ${f.context.replace(/\s+/g, ' ').trim()}`);
      lines.push(`  id ${f.id}`);
    }
  }
  lines.push('');
  lines.push(
    summary.failing
      ? `FAILED: ${summary.failing} new finding(s) at or above ${summary.fail_on} (accept one with \`geolab audit SOURCES baseline add ID --reason TEXT\`)`
      : `passed: no new finding at or above ${summary.fail_on}`,
  );
  return lines;
}
