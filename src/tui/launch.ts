/** What the entry points share: drawing the app, and the runner, each loaded only when used. */
import type { CompletedEpisode, FailedEpisode } from '../core/episode.js';
import type { AppProps } from './app.js';
import { NoTerminalError } from './errors.js';
import type { RunEpisode } from './live/types.js';

/**
 * Draws the app until it exits. Without a terminal on stdin Ink cannot read keys and the app would
 * wait forever: that is an error, raised before Ink is loaded. React picks its build when first
 * imported, so Ink and React are imported only here, after choosing the production build unless
 * NODE_ENV says otherwise: the development build times every commit and makes each redraw slower.
 */
export async function runApp(what: string, props: Omit<AppProps, 'theme'>): Promise<void> {
  if (!process.stdin.isTTY) throw new NoTerminalError(what);
  process.env.NODE_ENV ??= 'production';
  return (await import('./run-app.js')).runApp(props);
}

export interface RunTracker {
  /** The agent runner, loaded on first use. */
  run: RunEpisode;
  /** Waits for every run started, so nothing it uses (client, sink, workspace) is closed under it. */
  settled(): Promise<void>;
  /** The record of the last run that finished. */
  last(): CompletedEpisode | FailedEpisode | undefined;
  /** Counts a run started another way (a fork) among those `settled` waits for. */
  track(run: Promise<CompletedEpisode | FailedEpisode>): Promise<CompletedEpisode | FailedEpisode>;
}

/** Leaving the app aborts a running episode; the runner still records it, and an entry must wait. */
export function runTracker(): RunTracker {
  const running = new Set<Promise<unknown>>();
  let last: CompletedEpisode | FailedEpisode | undefined;
  const track = (promise: Promise<CompletedEpisode | FailedEpisode>) => {
    running.add(promise);
    promise.then(
      (record) => {
        last = record;
        running.delete(promise);
      },
      () => running.delete(promise),
    );
    return promise;
  };
  const run: RunEpisode = (options) => track(import('../agent/runner.js').then(({ runEpisode }) => runEpisode(options)));
  return {
    run,
    track,
    settled: async () => {
      await Promise.allSettled([...running]);
    },
    last: () => last,
  };
}
