/**
 * The Live screen on an episode the caller set up (`geolab agent` on a terminal): a model, a
 * baseline or a person playing through the runner, with pause/step/abort for a policy. The caller
 * owns the client and the sink, and may close them once this resolves: the run is over by then.
 */
import type { CompletedEpisode, FailedEpisode } from '../core/episode.js';
import { HumanPolicy } from '../agent/policies/human.js';
import { runApp, runTracker } from './launch.js';
import type { LiveRun } from './live/types.js';

export { NoTerminalError } from './errors.js';

export type LiveScreenOptions = LiveRun;

/**
 * Resolves with the episode's record once the app is left and the run is over: finished, or
 * aborted by leaving (the runner records an aborted episode as failed).
 */
export async function openLiveScreen(options: LiveScreenOptions): Promise<CompletedEpisode | FailedEpisode> {
  const person = options.human !== undefined || options.policy instanceof HumanPolicy;
  const runs = runTracker();
  try {
    await runApp('the live screen', {
      initialRoute: {
        screen: 'live',
        source: { driver: person ? 'person' : 'model', who: person ? 'you' : options.policy.name, prepare: async () => options },
      },
      services: { runEpisode: runs.run },
    });
  } finally {
    await runs.settled();
  }
  const record = runs.last();
  if (!record) throw new Error('the live screen closed before the episode could start');
  return record;
}
