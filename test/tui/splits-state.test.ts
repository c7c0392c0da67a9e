/** The Splits screen's reducer without rendering: caps, toggles, sort and the write's prompts. */
import { describe, expect, it } from 'vitest';
import { INITIAL_SPLITS, splitsReducer, type SplitsAction, type SplitsState } from '../../src/tui/state/splits.js';
import { asTasks, spreadPool } from '../splits/pools.js';
import { countryCounts } from '../../src/tui/state/splits.js';

function table(): SplitsState {
  const pool = { tasks: asTasks(spreadPool(['France', 'Japan'], 3)), path: '/p.jsonl', sha256: 'x' };
  return splitsReducer(INITIAL_SPLITS, { type: 'loaded', loaded: { label: 'p', pool, counts: countryCounts(pool) } });
}

const run = (state: SplitsState, ...actions: SplitsAction[]) => actions.reduce(splitsReducer, state);

describe('the Splits reducer', () => {
  it('keeps only caps that differ from the global one, never below zero', () => {
    const state = table();
    expect(state.selected).toBe('France');
    expect(run(state, { type: 'cap', delta: 1 }).options.evalCaps).toEqual({ France: 5 });
    expect(run(state, { type: 'cap', delta: 1 }, { type: 'cap', delta: -1 }).options.evalCaps).toBeUndefined();
    expect(run(state, ...Array<SplitsAction>(9).fill({ type: 'cap', delta: -1 })).options.evalCaps).toEqual({ France: 0 });
  });

  it('toggles the selected country in and out, and moves through the shown order', () => {
    const state = run(table(), { type: 'move', delta: 1, order: ['France', 'Japan'] }, { type: 'toggle' });
    expect(state.selected).toBe('Japan');
    expect(state.options.excludeCountries).toEqual(['Japan']);
    expect(run(state, { type: 'toggle' }).options.excludeCountries).toBeUndefined();
  });

  it('cycles the sort column', () => {
    const sorts = [1, 2, 3, 4, 5].map((n) => run(table(), ...Array<SplitsAction>(n).fill({ type: 'sort' })).sort);
    expect(sorts).toEqual(['eval', 'train', 'cap', 'country', 'pool']);
  });

  it('refuses to start a write whose self-check failed, and asks directory, name, confirmation in turn', () => {
    const refused = run(table(), { type: 'write', problems: ['the train split would be empty'], defaultOutDir: 'splits/p' });
    expect(refused.phase.kind).toBe('table');
    expect(refused.message?.text).toContain('not written: the train split would be empty');
    let state = run(table(), { type: 'write', problems: [], defaultOutDir: 'splits/p' }, { type: 'submit' });
    expect(state.phase).toEqual({ kind: 'name', outDir: 'splits/p', text: 'p' });
    state = run(state, { type: 'type', text: ' bad' }, { type: 'submit' });
    expect(state.phase.kind).toBe('name');
    expect(state.message?.text).toContain('cannot name the task sets');
    state = run(state, { type: 'erase' }, { type: 'erase' }, { type: 'erase' }, { type: 'erase' }, { type: 'submit' });
    expect(state.phase).toEqual({ kind: 'confirm', outDir: 'splits/p', name: 'p' });
    expect(run(state, { type: 'cancel' })).toMatchObject({ phase: { kind: 'table' }, message: { text: 'Nothing written.' } });
    // The confirmation waits for what the write would replace (docs/splits.md, Replacing a split).
    expect(run(state, { type: 'confirm' }).phase.kind).toBe('confirm');
    expect(run(state, { type: 'taken', replaces: [] }, { type: 'confirm' }).phase).toEqual({ kind: 'writing', outDir: 'splits/p', name: 'p', replace: false });
  });

  it('replaces only what the confirmation named, and a cancel there writes nothing', () => {
    const state = run(table(), { type: 'write', problems: [], defaultOutDir: 'splits/p' }, { type: 'submit' }, { type: 'submit' });
    const asked = run(state, { type: 'taken', replaces: ['splits/p/eval.jsonl', 'task set p-eval (6 tasks, 2 episodes recorded on it)'] });
    expect(asked.phase).toEqual({ kind: 'confirm', outDir: 'splits/p', name: 'p', replaces: ['splits/p/eval.jsonl', 'task set p-eval (6 tasks, 2 episodes recorded on it)'] });
    expect(run(asked, { type: 'confirm' }).phase).toEqual({ kind: 'writing', outDir: 'splits/p', name: 'p', replace: true });
    expect(run(asked, { type: 'cancel' })).toMatchObject({ phase: { kind: 'table' }, message: { text: 'Nothing written.' } });
  });
});
