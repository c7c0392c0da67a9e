/**
 * The Audit screen's triage (docs/tui.md, 'Screen state'): a run's findings in groups by severity then kind, a
 * cursor over them, a search that filters them as it is typed, and the accept prompt (one finding, or
 * every open one of a kind or a source for one reason). A pure reducer over a discriminated union of
 * actions.
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

/** What one reason accepts: the selected finding, or every open finding of its kind or of its source. */
export type AcceptScope = { by: 'finding' } | { by: 'kind'; kind: FindingKind } | { by: 'source'; source: string };

export interface AcceptPrompt {
  text: string;
  error: string | null;
  /** The accept is being written. */
  saving: boolean;
  scope: AcceptScope;
  /** The findings the reason will accept (open ones only, for a kind or a source). */
  targets: readonly Finding[];
}

/** `/` on the screen: the text the findings are filtered by, and whether it is being typed. */
export interface AuditSearch {
  text: string;
  typing: boolean;
}

export type AuditState =
  | { status: 'running'; prompts: number }
  | { status: 'failed'; message: string }
  | {
      status: 'done';
      summary: AuditSummary;
      /** Every finding of the run, sorted by group (severity, then kind), then by where they were found. */
      all: readonly Finding[];
      /** Those the search leaves (all of them without one), in the same order: what the list shows. */
      findings: readonly Finding[];
      groups: readonly FindingGroup[];
      search: AuditSearch | null;
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
  /** One reason for every open finding of the selected finding's kind, or of its source. */
  | { type: 'openAcceptAll'; by: 'kind' | 'source' }
  | { type: 'typeReason'; text: string }
  | { type: 'eraseReason' }
  | { type: 'cancelAccept' }
  /** Enter on the prompt: refused (an empty reason) or saving. */
  | { type: 'submitAccept' }
  | { type: 'accepted'; ids: readonly string[] }
  | { type: 'acceptFailed'; message: string }
  | { type: 'toggleExplained' }
  | { type: 'openSearch' }
  | { type: 'typeSearch'; text: string }
  | { type: 'eraseSearch' }
  /** Enter: the filter stays, the keys move through the findings again. */
  | { type: 'keepSearch' }
  /** Esc: no filter. */
  | { type: 'clearSearch' };

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

/** Whether every word searched (any case) is in what the list and the detail show of a finding. */
export function matchesSearch(f: Finding, text: string): boolean {
  const words = text.toLowerCase().split(/\s+/).filter(Boolean);
  if (!words.length) return true;
  const fields = [f.severity, f.kind, f.source, f.prompt_id, f.episode_id ?? '', f.text, f.evidence, f.context, f.id].join('\n').toLowerCase();
  return words.every((word) => fields.includes(word));
}

type Done = Extract<AuditState, { status: 'done' }>;

/** The list after `all` or the search changed: the selected finding stays selected while it is shown. */
function withView(state: Done, all: readonly Finding[], search: AuditSearch | null): Done {
  const findings = search ? all.filter((f) => matchesSearch(f, search.text)) : all;
  const current = state.findings[state.selected];
  const kept = current ? findings.findIndex((f) => f.id === current.id) : -1;
  return { ...state, all, search, findings, groups: groupFindings(findings), selected: kept >= 0 ? kept : 0 };
}

function acceptTargets(state: Done, by: 'kind' | 'source'): { scope: AcceptScope; targets: Finding[] } | null {
  const f = state.findings[state.selected];
  if (!f) return null;
  const scope: AcceptScope = by === 'kind' ? { by, kind: f.kind } : { by, source: f.source };
  const targets = state.all.filter((x) => !x.baselined && (by === 'kind' ? x.kind === f.kind : x.source === f.source));
  return targets.length ? { scope, targets } : null;
}

/**
 * What a back key (q or esc) does on the list: it closes the explained list back to the findings,
 * esc clears a kept search; null when there is nothing to close and the screen itself goes back.
 */
export function auditBack(state: AuditState, escape: boolean): AuditAction | null {
  if (state.status !== 'done') return null;
  if (state.explained) return { type: 'toggleExplained' };
  if (state.search && escape) return { type: 'clearSearch' };
  return null;
}

export function auditReducer(state: AuditState, action: AuditAction): AuditState {
  switch (action.type) {
    case 'start':
      return INITIAL_AUDIT;
    case 'progress':
      return state.status === 'running' ? { ...state, prompts: action.prompts } : state;
    case 'finished': {
      const findings = sortFindings(action.findings);
      return { status: 'done', summary: action.summary, all: findings, findings, groups: groupFindings(findings), search: null, selected: 0, prompt: null, explained: false };
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
    case 'openAccept': {
      const f = state.findings[state.selected];
      return f && !state.prompt ? { ...state, prompt: { text: '', error: null, saving: false, scope: { by: 'finding' }, targets: [f] } } : state;
    }
    case 'openAcceptAll': {
      const found = state.prompt ? null : acceptTargets(state, action.by);
      return found ? { ...state, prompt: { text: '', error: null, saving: false, ...found } } : state;
    }
    case 'typeReason':
      return state.prompt && !state.prompt.saving ? { ...state, prompt: { ...state.prompt, text: state.prompt.text + action.text, error: null } } : state;
    case 'eraseReason':
      return state.prompt && !state.prompt.saving ? { ...state, prompt: { ...state.prompt, text: state.prompt.text.slice(0, -1), error: null } } : state;
    case 'cancelAccept':
      return state.prompt && !state.prompt.saving ? { ...state, prompt: null } : state;
    case 'submitAccept':
      if (!state.prompt || state.prompt.saving) return state;
      if (!state.prompt.text.trim()) {
        const what = state.prompt.targets.length === 1 ? 'this finding is' : 'these findings are';
        return { ...state, prompt: { ...state.prompt, error: `say why ${what} acceptable: the reason is kept in the baseline` } };
      }
      return { ...state, prompt: { ...state.prompt, saving: true } };
    case 'accepted': {
      const ids = new Set(action.ids);
      const all = state.all.map((f) => (ids.has(f.id) ? { ...f, baselined: true } : f));
      return { ...withView(state, all, state.search), prompt: null };
    }
    case 'acceptFailed':
      return state.prompt ? { ...state, prompt: { ...state.prompt, saving: false, error: `not accepted: ${action.message}` } } : state;
    case 'toggleExplained':
      return state.prompt ? state : { ...state, explained: !state.explained };
    case 'openSearch':
      return state.prompt ? state : withView(state, state.all, { text: state.search?.text ?? '', typing: true });
    case 'typeSearch':
      return state.search?.typing ? withView(state, state.all, { text: state.search.text + action.text, typing: true }) : state;
    case 'eraseSearch':
      return state.search?.typing ? withView(state, state.all, { text: state.search.text.slice(0, -1), typing: true }) : state;
    case 'keepSearch':
      if (!state.search) return state;
      return state.search.text.trim() ? { ...state, search: { ...state.search, typing: false } } : withView(state, state.all, null);
    case 'clearSearch':
      return state.search ? withView(state, state.all, null) : state;
  }
}
