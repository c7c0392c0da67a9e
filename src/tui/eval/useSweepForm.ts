/**
 * The board's new-sweep form for the screen: prefilled the first time it opens (and kept as typed
 * between openings), edited through the pure reducer (state/sweep-form.ts), and started through the
 * board's service. The form stays up while the models are checked and the sweep planned; only a
 * sweep that plays closes it, and a start that failed shows why on the field at fault.
 */
import { useEffect, useLayoutEffect, useMemo, useReducer, useRef, useState } from 'react';
import { apiKeyEnvProblem, apiKeyFrom } from '../../agent/agent-settings.js';
import type { EvalBoardService, NewSweepPrefill, NewSweepStart } from '../services.js';
import { checkSweepForm, initialSweepForm, sweepFormReducer, sweepStartPosition, type SweepFormState } from '../state/sweep-form.js';

export interface SweepFormView extends SweepFormState {
  /** Whether the named variable holds a key: null when no (valid) name is typed. */
  keySet: boolean | null;
  /** The folder hint and the splits served; null until read. */
  hints: Omit<NewSweepPrefill, 'prefill'> | null;
}

export interface SweepFormActions {
  move(delta: number): void;
  type(text: string): void;
  erase(): void;
  choose(delta: number): void;
  /** Enter: the next field, or the start from the last field and from Start. */
  submit(): void;
}

/**
 * `started`: a sweep plays (the caller closes the form into the board). A start left behind (esc while
 * it is checked) still plays if it gets there, and `started` still says so.
 */
export function useSweepForm(
  service: EvalBoardService | undefined,
  open: boolean,
  started: (sweep: Extract<NewSweepStart, { ok: true }>) => void,
): { state: SweepFormView; actions: SweepFormActions } {
  const [state, dispatch] = useReducer(sweepFormReducer, undefined, initialSweepForm);
  const latest = useRef(state);
  const onStarted = useRef(started);
  useLayoutEffect(() => {
    latest.current = state;
    onStarted.current = started;
  });
  const [hints, setHints] = useState<SweepFormView['hints']>(null);

  useEffect(() => {
    if (!open || !service?.prefillSweep || latest.current.phase !== 'loading') return;
    let current = true;
    service.prefillSweep().then(
      ({ prefill, ...rest }) => {
        if (!current) return;
        setHints(rest);
        dispatch({ type: 'prefilled', prefill });
      },
      (err: Error) => current && dispatch({ type: 'stopped', error: { field: null, message: `cannot read the workspace: ${err.message}` } }),
    );
    return () => {
      current = false;
    };
  }, [open, service]);

  const actions = useMemo<SweepFormActions>(() => {
    const start = () => {
      const form = latest.current;
      if (!service?.newSweep || form.phase !== 'editing') return;
      const checked = checkSweepForm(form.values);
      if (!checked.ok) return dispatch({ type: 'stopped', error: { field: checked.field, message: checked.message } });
      dispatch({ type: 'starting' });
      service.newSweep(checked.flags).then(
        (result) => {
          if (!result.ok) return dispatch({ type: 'stopped', error: { field: result.field, message: result.message } });
          dispatch({ type: 'stopped', error: null });
          onStarted.current(result);
        },
        (err: Error) => dispatch({ type: 'stopped', error: { field: null, message: err.message } }),
      );
    };
    return {
      move: (delta) => dispatch({ type: 'move', delta }),
      type: (text) => dispatch({ type: 'type', text }),
      erase: () => dispatch({ type: 'erase' }),
      choose: (delta) => dispatch({ type: 'choose', delta }),
      submit: () => (latest.current.focus >= sweepStartPosition(latest.current) - 1 ? start() : dispatch({ type: 'move', delta: 1 })),
    };
  }, [service]);

  const name = state.values.apiKeyEnv.trim();
  const keySet = name && !apiKeyEnvProblem(name) ? apiKeyFrom(name) !== undefined : null;
  return { state: { ...state, keySet, hints }, actions };
}
