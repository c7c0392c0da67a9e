/** The parts of the episode record (src/core/episode.ts) that need no validation. */
import type { CompletedEpisode, EpisodeRecord, FailedEpisode } from './episode.js';
import { isRecord } from './values.js';

export const EPISODE_SCHEMA_VERSION = 2;

/**
 * Completed means scored: only an outcome object makes a record one. A failed record may still
 * carry other keys (the loose schema keeps them, an outcome left null included), so neither the
 * key's presence nor its not being undefined is enough.
 */
export function isCompleted(record: EpisodeRecord): record is CompletedEpisode {
  return isRecord(record.outcome);
}

export function isFailed(record: EpisodeRecord): record is FailedEpisode {
  return !isCompleted(record);
}

/** Input and output token counts of a turn's `model.tokens`, in either dialect (null: not reported). */
export function tokenCounts(tokens: unknown): { input: number | null; output: number | null } {
  if (!isRecord(tokens)) return { input: null, output: null };
  const countOf = (...keys: string[]) => {
    const value = keys.map((key) => tokens[key]).find((v) => typeof v === 'number' && Number.isFinite(v));
    return typeof value === 'number' ? value : null;
  };
  return { input: countOf('input', 'in'), output: countOf('output', 'out') };
}
