/** What a Live screen runs, and how it gets there without loading the environment before the first frame. */
import type { HumanPolicy } from '../../agent/policies/human.js';
import type { RunOptions } from '../../agent/types.js';
import type { CompletedEpisode, FailedEpisode } from '../../core/episode.js';
import type { Driver } from '../state/live.js';

/** An episode for the runner, less the callbacks the screen owns (events, abort). */
export type LiveRun = Omit<RunOptions, 'onEvent' | 'signal'> & {
  /**
   * The person at the keys when the run's policy wraps them (a fork replays recorded turns before
   * handing over, src/agent/fork.ts); absent when the policy is the person's HumanPolicy itself.
   */
  human?: HumanPolicy;
};

/** The agent runner's entry point, injected so the TUI loads it only when an episode starts. */
export type RunEpisode = (options: RunOptions) => Promise<CompletedEpisode | FailedEpisode>;

/**
 * A live episode prepared after the screen is up: building an embedded environment (sharp,
 * panoramas, worker threads) must not delay the first frame.
 */
export interface LiveSource {
  /** Who plays: a person needs the run's policy to be a HumanPolicy. */
  readonly driver: Driver;
  /** Who plays, as the header says it: "you", or the policy's name. */
  readonly who: string;
  prepare(): Promise<LiveRun>;
  /**
   * How the prepared episode is played, in place of the app's runner: a fork (the Player's `F`)
   * replays the recorded turns before it lets the policy play on.
   */
  run?: RunEpisode;
  /** Frees what `prepare` made (an embedded environment); called when the screen goes away. */
  dispose?(): Promise<void>;
}
