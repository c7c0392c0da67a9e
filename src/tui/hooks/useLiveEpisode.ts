/**
 * Runs a live episode for the Live screen: prepares the source, hands the runner a policy (the
 * person's HumanPolicy as it is, a model's wrapped in the pause gate), and folds the runner's
 * events into the Live state. Leaving the screen aborts the run, then frees the source.
 */
import { useEffect, useLayoutEffect, useMemo, useReducer, useRef, useState } from 'react';
import { DEFAULT_MAX_TURNS } from '../../agent/agent-settings.js';
import { HumanPolicy } from '../../agent/policies/human.js';
import type { Action } from '../../env/types.js';
import { Gate, gatedPolicy } from '../live/gate.js';
import { promptAction } from '../live/person.js';
import type { LiveSource, RunEpisode } from '../live/types.js';
import { initialLiveState, liveReducer, type LiveState, type PromptPurpose } from '../state/live.js';

export interface LiveActions {
  /** A person's action on the waiting turn. */
  act(action: Action): void;
  openPrompt(purpose: PromptPurpose): void;
  typePrompt(text: string): void;
  erasePrompt(): void;
  /** Parses the prompt's "lat, lon" and plays the pin or guess, or shows the parser's note. */
  submitPrompt(): void;
  closePrompt(): void;
  togglePause(): void;
  step(): void;
  abort(): void;
  askQuit(): void;
  cancelQuit(): void;
  /** View or map, locally: the environment hears nothing of it. */
  switchPane(): void;
  /** After the end: read an earlier (-1) or later (+1) turn again. */
  review(delta: number): void;
  /** The reasoning of the turn shown in place of the pane, or the pane again. */
  toggleReasoning(): void;
}

interface Running {
  abort: AbortController;
  gate: Gate;
  human: HumanPolicy | undefined;
  unsubscribe?: () => void;
}

export function useLiveEpisode(
  source: LiveSource | null,
  runEpisode: RunEpisode,
  notify: (message: string) => void,
): { state: LiveState; actions: LiveActions } {
  const [state, dispatch] = useReducer(liveReducer, 'model', initialLiveState);
  // A new source starts from a clean state in the render that shows it, not in an effect after
  // the first frame: a key pressed in between would be wiped out by the reset.
  const [shown, setShown] = useState<LiveSource | null>(null);
  if (source !== shown) {
    setShown(source);
    if (source) dispatch({ type: 'reset', driver: source.driver });
  }
  const running = useRef<Running | undefined>(undefined);
  // A pause pressed before the run's gate exists (a key can be taken before the effect that makes
  // it runs): the gate starts paused instead of the key being lost.
  const pausedEarly = useRef(false);
  // Actions read the latest state without being re-created on every event; set as each render
  // commits, before any key of the next is handed over.
  const latest = useRef(state);
  useLayoutEffect(() => {
    latest.current = state;
  });

  useEffect(() => {
    if (!source) return;
    const abort = new AbortController();
    const gate = new Gate({
      held: () => dispatch({ type: 'held' }),
      released: () => dispatch({ type: 'released', at: Date.now() }),
    });
    const current: Running = { abort, gate, human: undefined };
    running.current = current;
    if (pausedEarly.current) gate.pause();
    pausedEarly.current = false;

    const run = async () => {
      const options = await source.prepare();
      abort.signal.throwIfAborted();
      dispatch({ type: 'prepared', config: { ...options.config, max_turns: options.maxTurns ?? DEFAULT_MAX_TURNS } });
      if (source.driver === 'person') {
        const human = options.human ?? (options.policy instanceof HumanPolicy ? options.policy : undefined);
        if (!human) throw new Error('a person plays through a HumanPolicy');
        current.human = human;
        current.unsubscribe = human.onWaiting((context) => {
          if (context) dispatch({ type: 'personWaiting', forced: context.forced });
        });
      }
      await (source.run ?? runEpisode)({
        ...options,
        // A person's policy runs as it is (a fork's wraps the person), a model's behind the pause gate.
        policy: current.human ? options.policy : gatedPolicy(options.policy, gate, abort.signal),
        signal: abort.signal,
        onEvent: (event) => dispatch({ type: 'runner', event, at: Date.now() }),
      });
    };
    const done = run().catch((err: Error) =>
      dispatch(abort.signal.aborted ? { type: 'aborted' } : { type: 'failed', message: err.message }),
    );
    return () => {
      abort.abort();
      current.unsubscribe?.();
      running.current = undefined;
      // The environment goes only after the runner let go of it.
      void done.finally(() => source.dispose?.());
    };
  }, [source, runEpisode]);

  const actions = useMemo<LiveActions>(() => {
    const act = (action: Action) => {
      const human = running.current?.human;
      if (human?.submit(action)) dispatch({ type: 'submitted' });
      else notify('Wait for the environment: the last action is still being played.');
    };
    return {
      act,
      openPrompt: (purpose) => dispatch({ type: 'promptOpen', purpose }),
      typePrompt: (text) => dispatch({ type: 'promptType', text }),
      erasePrompt: () => dispatch({ type: 'promptErase' }),
      closePrompt: () => dispatch({ type: 'promptClose' }),
      submitPrompt: () => {
        const prompt = latest.current.prompt;
        if (!prompt) return;
        const parsed = promptAction(prompt.purpose, prompt.text);
        if (parsed.ok) act(parsed.action);
        else dispatch({ type: 'promptError', message: parsed.message });
      },
      togglePause: () => {
        const gate = running.current?.gate;
        if (!gate) {
          pausedEarly.current = !pausedEarly.current;
          dispatch({ type: 'setPaused', paused: pausedEarly.current });
          return;
        }
        if (gate.isPaused) gate.resume();
        else gate.pause();
        dispatch({ type: 'setPaused', paused: gate.isPaused });
      },
      step: () => {
        const gate = running.current?.gate;
        if (!gate) return;
        gate.step();
        dispatch({ type: 'setPaused', paused: true });
      },
      abort: () => {
        running.current?.abort.abort();
        dispatch({ type: 'aborted' });
      },
      askQuit: () => dispatch({ type: 'askQuit' }),
      cancelQuit: () => dispatch({ type: 'cancelQuit' }),
      switchPane: () => dispatch({ type: 'switchPane' }),
      review: (delta) => dispatch({ type: 'review', delta }),
      toggleReasoning: () => dispatch({ type: 'toggleReasoning' }),
    };
  }, [notify]);

  return { state, actions };
}
