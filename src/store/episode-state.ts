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

/**
 * What the Episodes filter's `status:` picks (docs/tui.md, Episodes): the three states above, and
 * `provider-error`, an episode (scored or not) with a turn whose model request got no reply after its
 * retries (turn status `provider_error`, docs/sweeps.md).
 */
export const EPISODE_STATUSES = ['scored', 'failed', 'aborted', 'provider-error'] as const;

export type EpisodeStatus = (typeof EPISODE_STATUSES)[number];

/** The status a user typed (any case; `provider_error` as the turn status spells it), or undefined for none of them. */
export function episodeStatus(typed: string): EpisodeStatus | undefined {
  const value = typed.toLowerCase().replace(/_/g, '-');
  return EPISODE_STATUSES.find((status) => status === value);
}

/** The complaint about a status that is none of EPISODE_STATUSES, naming them. */
export function unknownStatus(typed: string): string {
  return `"${typed}" is not a status: expected ${EPISODE_STATUSES.slice(0, -1).join(', ')} or ${EPISODE_STATUSES.at(-1)}`;
}
