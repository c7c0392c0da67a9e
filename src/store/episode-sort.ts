/**
 * The orders the episode list offers and which way each runs unless asked otherwise. Its own module,
 * with no imports, so that the TUI can name the orders without loading the store (SQLite) early.
 */

export const EPISODE_SORTS = ['recent', 'reward', 'distance', 'turns'] as const;

export type EpisodeSort = (typeof EPISODE_SORTS)[number];

/** The useful end first: newest, highest reward, nearest and fewest turns. */
export const DESCENDING_BY_DEFAULT: Readonly<Record<EpisodeSort, boolean>> = { recent: true, reward: true, distance: false, turns: false };
