/** The Eval board's navigation reducer, without rendering: cursors per list, pickers, and backing out. */
import { describe, expect, it } from 'vitest';
import { evalBoardReducer, INITIAL_EVAL_BOARD, type EvalBoardAction, type EvalBoardState } from '../../src/tui/eval/state.js';

const run = (...actions: EvalBoardAction[]): EvalBoardState => actions.reduce(evalBoardReducer, INITIAL_EVAL_BOARD);

describe('Eval board state', () => {
  it('keeps each list its own cursor, so backing out lands where one left', () => {
    const deep = run({ type: 'move', delta: 2, total: 3 }, { type: 'groupBy', by: 'verdict' }, { type: 'move', delta: 1, total: 4 }, { type: 'openGroup' }, { type: 'move', delta: 5, total: 3 });
    expect(deep).toMatchObject({ view: 'episodes', arm: 2, by: 'verdict', group: 1, episode: 2 });
    const groups = evalBoardReducer(deep, { type: 'back' });
    expect(groups).toMatchObject({ view: 'groups', group: 1 });
    expect(evalBoardReducer(groups, { type: 'back' })).toMatchObject({ view: 'board', arm: 2 });
    // Switching country <-> verdict starts the new list at its top; the same one keeps its place.
    expect(evalBoardReducer(groups, { type: 'groupBy', by: 'country' })).toMatchObject({ by: 'country', group: 0 });
    expect(evalBoardReducer(groups, { type: 'groupBy', by: 'verdict' })).toMatchObject({ group: 1 });
  });

  it('toggles runs in and out, and picks the baseline', () => {
    const runs = run({ type: 'pickRuns' }, { type: 'toggleRun', runId: 'a' }, { type: 'toggleRun', runId: 'b' }, { type: 'toggleRun', runId: 'a' });
    expect([...runs.excludedRuns]).toEqual(['b']);
    expect(evalBoardReducer(runs, { type: 'back' }).view).toBe('board');
    const picked = run({ type: 'pickBaseline', at: 1 }, { type: 'move', delta: 1, total: 3 }, { type: 'chooseBaseline', arm: 'gamma@v1' });
    expect(picked).toMatchObject({ view: 'board', baseline: 'gamma@v1', picker: 2 });
    // Outside their picker these do nothing.
    expect(run({ type: 'toggleRun', runId: 'a' })).toBe(INITIAL_EVAL_BOARD);
    expect(run({ type: 'chooseBaseline', arm: 'x' })).toBe(INITIAL_EVAL_BOARD);
  });

  it('opens the new-sweep form from the board only, holds the board still under it, and closes it when a sweep starts', () => {
    const form = run({ type: 'move', delta: 1, total: 3 }, { type: 'newSweep' });
    expect(form).toMatchObject({ view: 'sweep', arm: 1 });
    // Arrows are the form's own.
    expect(evalBoardReducer(form, { type: 'move', delta: 1, total: 3 })).toBe(form);
    expect(evalBoardReducer(form, { type: 'back' })).toMatchObject({ view: 'board', arm: 1 });
    expect(evalBoardReducer(form, { type: 'sweepStarted' })).toMatchObject({ view: 'board' });
    // A sweep that started after the form was left moves nothing.
    const groups = run({ type: 'groupBy', by: 'country' });
    expect(evalBoardReducer(groups, { type: 'sweepStarted' })).toBe(groups);
    expect(evalBoardReducer(groups, { type: 'newSweep' })).toBe(groups);
  });
});
