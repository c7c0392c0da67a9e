import { describe, expect, it } from 'vitest';
import { bar, formatAgo, formatCall, formatKm, truncate, turnCost, wrapWords } from '../../src/tui/format.js';

describe('format', () => {
  it('writes recorded actions as calls', () => {
    expect(formatCall({ action: 'look', heading_deg: 90, fov_deg: 30 })).toBe('look(heading_deg=90, fov_deg=30)');
    expect(formatCall({ action: 'pin', lat: 47.123456789, lon: 10.2, label: null })).toBe('pin(lat=47.1235, lon=10.2)');
    expect(formatCall({ action: 'guess', response: 'somewhere near Innsbruck' })).toBe('guess(response="somewhere near Innsbruck")');
    expect(formatCall({ action: 'reset' })).toBe('(start)');
    expect(formatCall({ action: 'forced_guess' })).toBe('forced guess()');
    expect(formatCall(null)).toBe('(no action)');
  });

  it('writes distances and ages for people', () => {
    expect([formatKm(0.012), formatKm(4.25), formatKm(1348.52)]).toEqual(['12 m', '4.3 km', '1,349 km']);
    const now = Date.parse('2026-01-01T12:00:00Z');
    expect(formatAgo('2026-01-01T11:59:30Z', now)).toBe('just now');
    expect(formatAgo('2026-01-01T11:58:00Z', now)).toBe('2 min ago');
    expect(formatAgo('2025-12-30T12:00:00Z', now)).toBe('2 d ago');
  });

  it('takes each turn’s cost from the running totals', () => {
    const turns = [{ turn: 0, action_cost: 0 }, { turn: 1, action_cost: 0.01 }, { turn: 2, action_cost: 0.03 }, { turn: 3 }];
    expect([0, 1, 2, 3].map((i) => turnCost(turns, i))).toEqual([0, 0.01, 0.02, null]);
  });

  it('wraps at word boundaries and truncates with an ellipsis', () => {
    expect(wrapWords('Turned 45° right; now facing 45° (NE). 23 actions left.', 20)).toBe('Turned 45° right;\nnow facing 45° (NE).\n23 actions left.');
    expect(wrapWords('one\n\ntwo', 10)).toBe('one\n\ntwo');
    expect(truncate('a  long\nline of text', 10)).toBe('a long li…');
    expect(bar(0.5, 4)).toBe('██░░');
  });
});
