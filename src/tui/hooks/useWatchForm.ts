/**
 * The "Watch a model" form for the container: prefilled once when first opened, edited through the
 * pure reducer, and started through the service: the endpoint is checked while the form stays up,
 * and only a good start opens the Live screen. Leaving the form (cancel) drops a check still running.
 */
import { useEffect, useLayoutEffect, useMemo, useReducer, useRef, useState } from 'react';
import { apiKeyEnvProblem } from '../../agent/agent-settings.js';
import type { LiveSource } from '../live/types.js';
import type { WatchService } from '../services.js';
import { checkWatchForm, initialWatchForm, START_POSITION, watchFormReducer, type WatchFormState } from '../state/watch-form.js';

export interface WatchFormView extends WatchFormState {
  /** Whether the named variable holds a key: null when no (valid) name is typed. */
  keySet: boolean | null;
  /** The splits the embedded environment serves (the workspace's task sets too); null until known. */
  splits: readonly string[] | null;
}

export interface WatchFormActions {
  move(delta: number): void;
  type(text: string): void;
  erase(): void;
  choose(delta: number): void;
  /** Enter: the next field, or the start from the last field and from Start. */
  submit(): void;
  /** Leaving the form: a check still running opens nothing when it ends. */
  cancel(): void;
}

export function useWatchForm(
  service: WatchService | undefined,
  active: boolean,
  started: (source: LiveSource, notice?: string) => void,
): { state: WatchFormView; actions: WatchFormActions } {
  const [state, dispatch] = useReducer(watchFormReducer, undefined, initialWatchForm);
  // Actions read the latest form and callback without being re-created on every edit; set as each
  // render commits, before any key of the next is handed over.
  const latest = useRef(state);
  const onStarted = useRef(started);
  useLayoutEffect(() => {
    latest.current = state;
    onStarted.current = started;
  });
  /** Bumped by each start and by leaving: only the latest check, if not left, opens Live. */
  const attempt = useRef(0);
  const [splits, setSplits] = useState<readonly string[] | null>(null);

  useEffect(() => {
    if (!active || !service?.splits) return;
    let current = true;
    // Only a hint beside the field: the start checks the split anyway, so a failure here shows nothing.
    service.splits().then(
      (names) => current && setSplits(names),
      () => {},
    );
    return () => {
      current = false;
    };
  }, [active, service]);

  useEffect(() => {
    if (!active || !service || latest.current.phase !== 'loading') return;
    let current = true;
    service.prefill().then(
      (settings) => current && dispatch({ type: 'prefilled', settings }),
      (err: Error) => current && dispatch({ type: 'stopped', error: { field: null, message: `cannot read the last settings: ${err.message}` } }),
    );
    return () => {
      current = false;
    };
  }, [active, service]);

  const actions = useMemo<WatchFormActions>(() => {
    const start = () => {
      const form = latest.current;
      if (!service || form.phase !== 'editing') return;
      const checked = checkWatchForm(form.values);
      if (!checked.ok) return dispatch({ type: 'stopped', error: { field: checked.field, message: checked.message } });
      dispatch({ type: 'checking' });
      const mine = ++attempt.current;
      service.start(checked.request).then(
        (result) => {
          if (mine !== attempt.current) return;
          if (!result.ok) return dispatch({ type: 'stopped', error: { field: result.field, message: result.message } });
          // Editable again when the Live screen is left back to the form.
          dispatch({ type: 'stopped', error: null });
          onStarted.current(result.source, result.notice);
        },
        (err: Error) => mine === attempt.current && dispatch({ type: 'stopped', error: { field: null, message: err.message } }),
      );
    };
    return {
      move: (delta) => dispatch({ type: 'move', delta }),
      type: (text) => dispatch({ type: 'type', text }),
      erase: () => dispatch({ type: 'erase' }),
      choose: (delta) => dispatch({ type: 'choose', delta }),
      submit: () => (latest.current.focus >= START_POSITION - 1 ? start() : dispatch({ type: 'move', delta: 1 })),
      cancel: () => {
        attempt.current++;
        if (latest.current.phase === 'checking') dispatch({ type: 'stopped', error: null });
      },
    };
  }, [service]);

  const name = state.values.apiKeyEnv.trim();
  const keySet = service && name && !apiKeyEnvProblem(name) ? service.isSet(name) : null;
  return { state: { ...state, keySet, splits }, actions };
}
