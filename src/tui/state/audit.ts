/**
 * The Audit screen's triage (STYLE.md 3): a run's findings in groups by severity then kind, a
 * cursor over them, and the accept prompt. A pure reducer over a discriminated union of actions.
 */
import { FINDING_KINDS, SEVERITIES } from '../../audit/report.js';
import type { AuditSummary } from '../../audit/report.js';
import type { Finding, FindingKind, Severity } from '../../audit/types.js';

export interface FindingGroup {
  severity: Severity;
  kind: FindingKind;
  /** Index of its first finding in the sorted list. */
  first: number;
  count: number;
  /** Of those, accepted in the baseline. */
  accepted: number;
}

export interface AcceptPrompt {
  text: string;
  error: string | null;
  /** The accept is being written. */
  saving: boolean;
}

export type AuditState =
  | { status: 'running'; prompts: number }
  | { status: 'failed'; message: string }
  | {
      status: 'done';
      summary: AuditSummary;
      /** Sorted by group (severity, then kind), then by where they were found. */
      findings: readonly Finding[];
      groups: readonly FindingGroup[];
      selected: number;
      prompt: AcceptPrompt | null;
      /** Showing the mentions the agent's own points explain instead of the findings. */
      explained: boolean;
    };

export type AuditAction =
  | { type: 'start' }
  | { type: 'progress'; prompts: number }
  | { type: 'finished'; summary: AuditSummary; findings: readonly Finding[] }
  | { type: 'failed'; message: string }
  | { type: 'move'; delta: number }
  | { type: 'openAccept' }
  | { type: 'typeReason'; text: string }
  | { type: 'eraseReason' }
  | { type: 'cancelAccept' }
  /** Enter on the prompt: refused (an empty reason) or saving. */
  | { type: 'submitAccept' }
  | { type: 'accepted'; id: string }
  | { type: 'acceptFailed'; message: string }
  | { type: 'toggleExplained' };

export const INITIAL_AUDIT: AuditState = { status: 'running', prompts: 0 };

const SEVERITY_RANK = new Map(SEVERITIES.map((s, i) => [s, i]));
const KIND_RANK = new Map(FINDING_KINDS.map((k, i) => [k, i]));

/** Most severe first; within a group, the order they were found in (source, prompt, position). */
export function sortFindings(findings: readonly Finding[]): Finding[] {
  return findings
    .map((f, i) => ({ f, i }))
    .sort((a, b) => SEVERITY_RANK.get(a.f.severity)! - SEVERITY_RANK.get(b.f.severity)! || KIND_RANK.get(a.f.kind)! - KIND_RANK.get(b.f.kind)! || a.i - b.i)
    .map(({ f }) => f);
}

export function groupFindings(sorted: readonly Finding[]): FindingGroup[] {
  const groups: FindingGroup[] = [];
  sorted.forEach((f, i) => {
    const group = groups[groups.length - 1];
    if (group && group.severity === f.severity && group.kind === f.kind) {
      group.count++;
      if (f.baselined) group.accepted++;
    } else {
      groups.push({ severity: f.severity, kind: f.kind, first: i, count: 1, accepted: f.baselined ? 1 : 0 });
    }
  });
  return groups;
}

/** The finding's context cut around its span: [before, span, after] (no span for an image's tag). */
export function spanInContext(f: Finding): [string, string, string] {
  if (!f.text) return [f.context, '', ''];
  // The core cuts the context from up to 40 characters before the span (src/audit/text.ts).
  const lead = Math.min(40, f.span.start);
  const at = f.context.slice(lead, lead + f.text.length) === f.text ? lead : f.context.indexOf(f.text);
  if (at < 0) return [f.context, '', ''];
  return [f.context.slice(0, at), f.text, f.context.slice(at + f.text.length)];
}

export function auditReducer(state: AuditState, action: AuditAction): AuditState {
  switch (action.type) {
    case 'start':
      return INITIAL_AUDIT;
    case 'progress':
      return state.status === 'running' ? { ...state, prompts: action.prompts } : state;
    case 'finished': {
      const findings = sortFindings(action.findings);
      return { status: 'done', summary: action.summary, findings, groups: groupFindings(findings), selected: 0, prompt: null, explained: false };
    }
    case 'failed':
      return { status: 'failed', message: action.message };
  }
  if (state.status !== 'done') return state;
  switch (action.type) {
    case 'move': {
      if (state.prompt) return state;
      const selected = Math.max(0, Math.min(state.findings.length - 1, state.selected + action.delta));
      return selected === state.selected ? state : { ...state, selected };
    }
    case 'openAccept':
      return state.findings[state.selected] && !state.prompt ? { ...state, prompt: { text: '', error: null, saving: false } } : state;
    case 'typeReason':
      return state.prompt && !state.prompt.saving ? { ...state, prompt: { ...state.prompt, text: state.prompt.text + action.text, error: null } } : state;
    case 'eraseReason':
      return state.prompt && !state.prompt.saving ? { ...state, prompt: { ...state.prompt, text: state.prompt.text.slice(0, -1), error: null } } : state;
    case 'cancelAccept':
      return state.prompt && !state.prompt.saving ? { ...state, prompt: null } : state;
    case 'submitAccept':
      if (!state.prompt || state.prompt.saving) return state;
      if (!state.prompt.text.trim()) return { ...state, prompt: { ...state.prompt, error: 'say why this finding is acceptable: the reason is kept in the baseline' } };
      return { ...state, prompt: { ...state.prompt, saving: true } };
    case 'accepted': {
      const findings = state.findings.map((f) => (f.id === action.id ? { ...f, baselined: true } : f));
      return { ...state, findings, groups: groupFindings(findings), prompt: null };
    }
    case 'acceptFailed':
      return state.prompt ? { ...state, prompt: { ...state.prompt, saving: false, error: `not accepted: ${action.message}` } } : state;
    case 'toggleExplained':
      return state.prompt ? state : { ...state, explained: !state.explained };
  }
}
