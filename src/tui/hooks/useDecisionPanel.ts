/**
 * The Player's retry and fork panel for the container: opened on a turn, prefilled through the
 * service, edited through the pure reducer (state/decision.ts). A retry's samples stream into the
 * panel; a fork's good start opens Live. Closing the panel aborts requests in flight, and whatever
 * a stale request says afterwards is dropped.
 */
import { useEffect, useLayoutEffect, useMemo, useReducer, useRef } from 'react';
import { apiKeyEnvProblem } from '../../agent/agent-settings.js';
import type { LiveSource } from '../live/types.js';
import type { DecisionService } from '../services.js';
import { checkDecisionForm, decisionPanelReducer, startPosition, type DecisionKind, type DecisionState, type SampleView } from '../state/decision.js';

export interface DecisionPanelActions {
  open(kind: DecisionKind, turn: number): void;
  /** Esc: aborts what is in flight. */
  close(): void;
  move(delta: number): void;
  type(text: string): void;
  erase(): void;
  /** Enter: the next field; on Start, send (retry) or play on with the model (fork). */
  submit(): void;
  /** Fork, on Start: play on yourself. */
  person(): void;
}

export function useDecisionPanel(
  service: DecisionService | undefined,
  episodeId: string | null,
  forked: (source: LiveSource) => void,
): { panel: (DecisionState & { keySet: boolean | null }) | null; actions: DecisionPanelActions } {
  const [panel, dispatch] = useReducer(decisionPanelReducer, null);
  const latest = useRef(panel);
  const onForked = useRef(forked);
  useLayoutEffect(() => {
    latest.current = panel;
    onForked.current = forked;
  });
  /** Bumped by every open, send and close: only the latest request may change the panel. */
  const attempt = useRef(0);
  const inFlight = useRef<AbortController | null>(null);

  const loading = panel?.phase === 'loading' ? panel : null;
  useEffect(() => {
    if (!loading || !episodeId) return;
    if (!service) {
      dispatch({ type: 'unavailable', message: 'Retry and fork need the workspace: open the episode from geolab or `geolab episodes show`.' });
      return;
    }
    let current = true;
    service.prepare(loading.kind, episodeId, loading.turn).then(
      (preparation) => current && dispatch({ type: 'prepared', preparation }),
      (err: Error) => current && dispatch({ type: 'unavailable', message: err.message }),
    );
    return () => {
      current = false;
    };
  }, [loading, service, episodeId]);

  // Leaving the Player (or the app) stops the samples still on their way.
  useEffect(() => () => inFlight.current?.abort(), []);

  const actions = useMemo<DecisionPanelActions>(() => {
    const stop = () => {
      attempt.current++;
      inFlight.current?.abort();
      inFlight.current = null;
    };
    const send = (person: boolean) => {
      const state = latest.current;
      if (!state || !service || !episodeId || (state.phase !== 'editing' && state.phase !== 'done')) return;
      const checked = person ? null : checkDecisionForm(state.kind, state.values);
      if (checked && !checked.ok) return dispatch({ type: 'stopped', error: { field: checked.field, message: checked.message } });
      stop();
      const mine = attempt.current;
      const abort = new AbortController();
      inFlight.current = abort;
      const failed = (err: Error) => mine === attempt.current && dispatch({ type: 'stopped', error: { field: null, message: err.message } });
      if (state.kind === 'retry' && checked) {
        dispatch({ type: 'sending', samples: checked.request.samples });
        const onSample = (index: number, sample: SampleView) => mine === attempt.current && dispatch({ type: 'sample', index, sample });
        service.retry(episodeId, state.turn, checked.request, onSample, abort.signal).then(
          (result) => mine === attempt.current && dispatch({ type: 'finished', ...result }),
          failed,
        );
        return;
      }
      dispatch({ type: 'sending', samples: 0 });
      service.fork(episodeId, state.turn, checked ? checked.request : 'person').then((result) => {
        if (mine !== attempt.current) return;
        if (!result.ok) return dispatch({ type: 'stopped', error: { field: result.field, message: result.message } });
        dispatch({ type: 'close' });
        onForked.current(result.source);
      }, failed);
    };
    return {
      open: (kind, turn) => {
        stop();
        dispatch({ type: 'open', kind, turn });
      },
      close: () => {
        stop();
        dispatch({ type: 'close' });
      },
      move: (delta) => dispatch({ type: 'move', delta }),
      type: (text) => dispatch({ type: 'type', text }),
      erase: () => dispatch({ type: 'erase' }),
      submit: () => {
        const state = latest.current;
        if (!state) return;
        if (state.focus >= startPosition(state)) send(false);
        else dispatch({ type: 'move', delta: 1 });
      },
      person: () => send(true),
    };
  }, [service, episodeId]);

  const name = panel?.values.apiKeyEnv.trim() ?? '';
  const keySet = service && name && !apiKeyEnvProblem(name) ? service.isSet(name) : null;
  return { panel: panel ? { ...panel, keySet } : null, actions };
}
