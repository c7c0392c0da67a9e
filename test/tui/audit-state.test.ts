/** The Audit screen's triage reducer and its pure helpers, without rendering. */
import { describe, expect, it } from 'vitest';
import type { AuditSummary } from '../../src/audit/report.js';
import type { Finding } from '../../src/audit/types.js';
import { auditBack, auditReducer, INITIAL_AUDIT, spanInContext, type AuditState } from '../../src/tui/state/audit.js';

function finding(over: Partial<Finding>): Finding {
  return {
    id: 'abcdef0123',
    severity: 'high',
    kind: 'identity',
    source: 'workspace',
    prompt_id: 'ep#1',
    episode_id: 'ep',
    turn: 1,
    message: 1,
    text_index: 0,
    span: { start: 0, end: 0 },
    text: '',
    context: '',
    evidence: '',
    baselined: false,
    ...over,
  };
}

const SUMMARY = { prompts: 3, turns: 3, seconds: 0.01 } as AuditSummary;

function done(findings: Finding[]): Extract<AuditState, { status: 'done' }> {
  const state = auditReducer(INITIAL_AUDIT, { type: 'finished', summary: SUMMARY, findings });
  if (state.status !== 'done') throw new Error('not done');
  return state;
}

describe('the audit triage', () => {
  it('orders findings by severity, then kind, keeping the found order within a group, and counts each group', () => {
    const state = done([
      finding({ id: 'a1', severity: 'low', kind: 'budget' }),
      finding({ id: 'b1', kind: 'coordinates' }),
      finding({ id: 'c1', kind: 'identity', baselined: true }),
      finding({ id: 'd1', severity: 'medium', kind: 'subregion' }),
      finding({ id: 'e1', kind: 'identity' }),
    ]);
    expect(state.findings.map((f) => f.id)).toEqual(['c1', 'e1', 'b1', 'd1', 'a1']);
    expect(state.groups.map((g) => [g.severity, g.kind, g.first, g.count, g.accepted])).toEqual([
      ['high', 'identity', 0, 2, 1],
      ['high', 'coordinates', 2, 1, 0],
      ['medium', 'subregion', 3, 1, 0],
      ['low', 'budget', 4, 1, 0],
    ]);
  });

  it('refuses an empty reason, saves a given one, and marks the finding accepted in its group', () => {
    let state: AuditState = done([finding({ id: 'a1' }), finding({ id: 'b1' })]);
    state = auditReducer(state, { type: 'move', delta: 5 });
    expect(state.status === 'done' && state.selected).toBe(1);
    state = auditReducer(state, { type: 'openAccept' });
    state = auditReducer(state, { type: 'submitAccept' });
    expect(state.status === 'done' && state.prompt?.error).toMatch(/say why/);
    state = auditReducer(state, { type: 'typeReason', text: 'ok' });
    state = auditReducer(state, { type: 'submitAccept' });
    expect(state.status === 'done' && state.prompt?.saving).toBe(true);
    // Keys while it is written do not change the reason.
    state = auditReducer(state, { type: 'typeReason', text: 'x' });
    state = auditReducer(state, { type: 'accepted', ids: ['b1'] });
    if (state.status !== 'done') throw new Error('not done');
    expect(state.prompt).toBeNull();
    expect(state.findings.map((f) => f.baselined)).toEqual([false, true]);
    expect(state.groups[0]!.accepted).toBe(1);
  });

  it('cuts the context around the span as the core cut it, also far into a long text', () => {
    const text = `${'x'.repeat(100)} near 43.3209, 21.8958 today`;
    const start = text.indexOf('43.3209');
    const end = start + '43.3209, 21.8958'.length;
    const context = text.slice(start - 40, end + 40);
    expect(spanInContext(finding({ text: text.slice(start, end), span: { start, end }, context }))).toEqual([
      text.slice(start - 40, start),
      '43.3209, 21.8958',
      ' today',
    ]);
    // An image's tag has no span in a text: the context (the image's ref) is shown whole.
    expect(spanInContext(finding({ text: '', context: 'data:image/jpeg;base64,/9j/4AAQ' }))).toEqual(['data:image/jpeg;base64,/9j/4AAQ', '', '']);
  });

  it('a back key closes the explained list before the screen, and esc clears a kept search before leaving', () => {
    const state = done([finding({ id: 'a1', text: 'Niš' }), finding({ id: 'b1', text: 'Belgrade' })]);
    expect(auditBack(INITIAL_AUDIT, true)).toBeNull();
    expect(auditBack(state, true)).toBeNull();
    const explained = auditReducer(state, { type: 'toggleExplained' });
    for (const escape of [true, false]) {
      const back = auditBack(explained, escape);
      expect(back).toEqual({ type: 'toggleExplained' });
      expect(auditReducer(explained, back!)).toMatchObject({ explained: false, selected: 0 });
    }
    const searched = [{ type: 'openSearch' }, { type: 'typeSearch', text: 'belgrade' }, { type: 'keepSearch' }] as const;
    const kept = searched.reduce<AuditState>(auditReducer, state);
    expect(auditBack(kept, false)).toBeNull();
    expect(auditReducer(kept, auditBack(kept, true)!)).toMatchObject({ search: null, findings: state.findings });
    // Explained over a kept search: the list closes first, the search stays.
    const both = auditReducer(kept, { type: 'toggleExplained' });
    expect(auditReducer(both, auditBack(both, true)!)).toMatchObject({ explained: false, search: { text: 'belgrade' } });
  });
});
