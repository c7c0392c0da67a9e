/**
 * The Eval board's navigation (docs/tui.md, 'Screen state'): the arms table, the run and baseline pickers over it,
 * and the selected arm by country or verdict down to a group's worst episodes, and the new-sweep
 * form over the board (its own state: state/sweep-form.ts). Each list keeps its own cursor, so
 * backing out lands where one left. Pure.
 */
import type { GroupBy } from './board.js';

export type EvalView = 'board' | 'runs' | 'baseline' | 'groups' | 'episodes' | 'sweep';

export interface EvalBoardState {
  readonly view: EvalView;
  readonly arm: number;
  /** The cursor of whichever picker is open (runs or baseline). */
  readonly picker: number;
  /** Runs left out; a run that appears later (a sweep's next) is in until left out. */
  readonly excludedRuns: ReadonlySet<string>;
  /** The arm picked as the baseline; null: the board's default (the first arm). */
  readonly baseline: string | null;
  readonly by: GroupBy;
  readonly group: number;
  readonly episode: number;
}

export type EvalBoardAction =
  /** `total`: the rows of the list shown, to clamp to. */
  | { type: 'move'; delta: number; total: number }
  | { type: 'pickRuns' }
  /** `at`: the current baseline's row, where the picker opens. */
  | { type: 'pickBaseline'; at: number }
  | { type: 'toggleRun'; runId: string }
  | { type: 'chooseBaseline'; arm: string }
  | { type: 'groupBy'; by: GroupBy }
  | { type: 'openGroup' }
  /** `n` on the board: the new-sweep form. */
  | { type: 'newSweep' }
  /** A sweep started from the form: back to the board it shows on (wherever the form was left for, nothing). */
  | { type: 'sweepStarted' }
  | { type: 'back' };

export const INITIAL_EVAL_BOARD: EvalBoardState = {
  view: 'board',
  arm: 0,
  picker: 0,
  excludedRuns: new Set(),
  baseline: null,
  by: 'country',
  group: 0,
  episode: 0,
};

const CURSOR_OF: Record<EvalView, 'arm' | 'picker' | 'group' | 'episode'> = {
  board: 'arm',
  runs: 'picker',
  baseline: 'picker',
  groups: 'group',
  episodes: 'episode',
  // The form moves its own focus; nothing here moves under it.
  sweep: 'arm',
};

const clamp = (value: number, total: number) => Math.max(0, Math.min(total - 1, value));

/** The cursor of a list, kept inside it when the list shrinks (a run left out, an arm gone). */
export function cursorIn(index: number, total: number): number {
  return total === 0 ? 0 : clamp(index, total);
}

export function evalBoardReducer(state: EvalBoardState, action: EvalBoardAction): EvalBoardState {
  switch (action.type) {
    case 'move': {
      if (state.view === 'sweep') return state;
      const field = CURSOR_OF[state.view];
      const next = cursorIn(state[field] + action.delta, action.total);
      return next === state[field] ? state : { ...state, [field]: next };
    }
    case 'pickRuns':
      return state.view === 'board' ? { ...state, view: 'runs', picker: 0 } : state;
    case 'pickBaseline':
      return state.view === 'board' ? { ...state, view: 'baseline', picker: Math.max(0, action.at) } : state;
    case 'toggleRun': {
      if (state.view !== 'runs') return state;
      const excludedRuns = new Set(state.excludedRuns);
      if (!excludedRuns.delete(action.runId)) excludedRuns.add(action.runId);
      return { ...state, excludedRuns };
    }
    case 'chooseBaseline':
      return state.view === 'baseline' ? { ...state, view: 'board', baseline: action.arm } : state;
    case 'groupBy':
      if (state.view !== 'board' && state.view !== 'groups') return state;
      return { ...state, view: 'groups', by: action.by, group: state.view === 'groups' && state.by === action.by ? state.group : 0 };
    case 'openGroup':
      return state.view === 'groups' ? { ...state, view: 'episodes', episode: 0 } : state;
    case 'newSweep':
      return state.view === 'board' ? { ...state, view: 'sweep' } : state;
    case 'sweepStarted':
      return state.view === 'sweep' ? { ...state, view: 'board' } : state;
    case 'back':
      switch (state.view) {
        case 'episodes':
          return { ...state, view: 'groups' };
        case 'board':
          return state;
        default:
          return { ...state, view: 'board' };
      }
  }
}
