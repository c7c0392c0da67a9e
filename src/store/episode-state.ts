/**
 * How an episode ended, as lists show it: scored, failed (a failed record: never a score, left out of
 * statistics) or aborted by its user. Its own module, with no imports, so that the TUI can name the
 * states without loading the store (SQLite) early.
 */

export type EpisodeState = 'scored' | 'failed' | 'aborted';

/** Why an episode failed, kept on geolab's failed records (`failure`) beside the harness's `error`. */
export type EpisodeFailure = 'aborted' | 'unreachable' | 'environment' | 'leak' | 'error';

/** The `error` of an episode its user aborted: the one failure that is no fault of the model or a service. */
export const ABORTED_ERROR = 'aborted';

/** The state of a stored episode from its `error` column (null: it finished and was scored). */
export function episodeState(error: string | null | undefined): EpisodeState {
  if (error === null || error === undefined) return 'scored';
  return error === ABORTED_ERROR ? 'aborted' : 'failed';
}
