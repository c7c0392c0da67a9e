/**
 * The headless printer: an episode run with one plain line per turn and one for the outcome, for
 * `geolab agent` without the TUI. The loop itself is the runner's.
 */
import { isCompleted, type CompletedEpisode, type FailedEpisode, type Turn } from '../core/episode.js';
import type { Action } from '../env/types.js';
import { episodeState } from '../store/episode-state.js';
import { formatAction, toHarnessAction } from './protocols/common.js';
import { runEpisode } from './runner.js';
import type { HarnessAction, RunOptions } from './types.js';

/** Runs an episode printing one plain line per turn and one for the outcome. */
export async function runHeadless(options: RunOptions & { print?: (line: string) => void }): Promise<CompletedEpisode | FailedEpisode> {
  const print = options.print ?? ((line: string) => process.stdout.write(line + '\n'));
  return runEpisode({
    ...options,
    onEvent: (event) => {
      options.onEvent?.(event);
      if (event.type === 'turn') print(turnLine(event.turn));
      else if (event.type === 'finished') print(outcomeLine(event.record));
    },
  });
}

const SHORT_FEEDBACK_CHARS = 100;

export function turnLine(turn: Turn): string {
  // The executed action when there is one (aliases resolved, numbers clamped), else what was sent.
  const shown = turn.wire_action && turn.action?.action !== 'forced_guess' ? toHarnessAction(turn.wire_action as Action) : turn.action;
  const what =
    turn.status === 'ok' || (shown && turn.status !== 'provider_error')
      ? formatAction((shown ?? { action: '?' }) as HarnessAction)
      : `[${turn.status === 'provider_error' ? 'provider error' : (turn.status ?? 'no action')}]`;
  const feedback = (turn.feedback ?? '').replace(/\s+/g, ' ').trim();
  const short = feedback.length > SHORT_FEEDBACK_CHARS ? `${feedback.slice(0, SHORT_FEEDBACK_CHARS - 3)}...` : feedback;
  return `turn ${String(turn.turn).padStart(2)}  ${what}  ${short}  cost ${(turn.action_cost ?? 0).toFixed(2)}`;
}

export function outcomeLine(record: CompletedEpisode | FailedEpisode): string {
  if (!isCompleted(record)) return `${episodeState(record.error)}  ${String(record.error)}`;
  const o = record.outcome;
  const result =
    o.distance_km === null || o.distance_km === undefined
      ? `no usable guess${o.forced_guess ? ' (forced)' : ''}`
      : `${o.verdict ?? 'scored'}, ${o.distance_km.toFixed(1)} km`;
  const guess = o.guess ? `  guess ${o.guess[0].toFixed(4)}, ${o.guess[1].toFixed(4)}` : '';
  return (
    `outcome  ${result}  reward ${(o.reward ?? 0).toFixed(4)}  reference ${(o.train_reward ?? 0).toFixed(4)}  cost ${(o.action_cost ?? 0).toFixed(2)}${guess}` +
    `  turns ${o.turns_used} (${o.turns_ok} ok, ${o.turns_unparseable} unparseable, ${o.turns_provider_error} provider errors)`
  );
}
