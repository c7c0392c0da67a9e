/**
 * What the Eval board shows, from the workspace's episodes: the report of the runs chosen (the same
 * buildReport as `geolab eval report --workspace`), an arm's episodes by country or by verdict, and
 * a group's worst episodes. Pure.
 */
import { VERDICTS, verdictFor } from '../../core/scoring.js';
import {
  buildReport,
  groupArms,
  groupOf,
  groupRows,
  MAX_FAILED_SHARE,
  MAX_NO_FINISH_SHARE,
  referenceOf,
  type ArmFlag,
  type EpisodeFacts,
  type GroupRow,
  type Report,
} from '../../eval/report.js';

/** An episode of the workspace as the board needs it: the report's facts and the run it was recorded in. */
export interface BoardEpisode {
  facts: EpisodeFacts;
  /** NO_RUN for an episode recorded outside any run. */
  runId: string;
}

/** The run filter's key of episodes that belong to no run. */
export const NO_RUN = '';

export interface BoardReport {
  arms: ReadonlyMap<string, readonly EpisodeFacts[]>;
  report: Report;
  /** The baseline the comparisons are against (null: fewer than two arms). */
  baseline: string | null;
}

/**
 * The report of the episodes of every run but the excluded ones, against `baseline` when it is an
 * arm of them, else against the first arm: a board of two arms shows their comparison at once.
 */
export function boardReport(episodes: readonly BoardEpisode[], excludedRuns: ReadonlySet<string>, baseline: string | null): BoardReport {
  const included = excludedRuns.size === 0 ? episodes : episodes.filter((e) => !excludedRuns.has(e.runId));
  const arms = groupArms(included.map((e) => e.facts));
  const labels = [...arms.keys()];
  const base = labels.length < 2 ? null : baseline !== null && arms.has(baseline) ? baseline : (labels[0] as string);
  return { arms, report: buildReport(arms, base ?? undefined), baseline: base };
}

/** What an integrity flag says about the arm's episodes (docs/eval.md). */
export const ARM_FLAG_REASONS: Record<ArmFlag, string> = {
  no_finish_reason: `over ${MAX_NO_FINISH_SHARE * 100}% of its model turns have no finish_reason: truncated or broken replies`,
  duplicate_samples: 'a (task, sample) is recorded more than once',
  non_integral_k: 'its tasks have unequal numbers of attempts',
  failed_episodes: `over ${MAX_FAILED_SHARE * 100}% of its episodes failed (counted apart, in no statistic): its scored episodes may not stand for its tasks`,
};

export type GroupBy = 'country' | 'verdict';

/** An episode's verdict by its distance (docs/scoring.md), with failures and no guess apart. */
export function verdictGroup(e: EpisodeFacts): string {
  if (e.failed) return 'failed';
  if (e.distanceKm === null) return 'no guess';
  return verdictFor(e.distanceKm);
}

export function groupKey(by: GroupBy): (e: EpisodeFacts) => string {
  return by === 'country' ? (e) => groupOf(e.country, 'country') : verdictGroup;
}

/** Verdicts nearest first, then the episodes with no distance. */
const VERDICT_ORDER = [...VERDICTS.map((v) => v.verdict as string), 'no guess', 'failed'];

/** One arm's rows by country (as `eval report --by country` computes them) or by verdict, nearest first. */
export function armGroups(arm: string, episodes: readonly EpisodeFacts[], by: GroupBy): GroupRow[] {
  const rows = groupRows(arm, episodes, groupKey(by));
  return by === 'country' ? rows : rows.sort((a, b) => VERDICT_ORDER.indexOf(a.group) - VERDICT_ORDER.indexOf(b.group));
}

export interface RankedEpisode {
  facts: EpisodeFacts;
  /** The reference-curve reward the report scores it by; 0 for a failure, which is listed first and shown as "-" (it is in no statistic). */
  reward: number;
}

/** A group's episodes, lowest reference reward first (failures, then no guess at 0, lead). */
export function worstEpisodes(episodes: readonly EpisodeFacts[], by: GroupBy, group: string): RankedEpisode[] {
  const key = groupKey(by);
  return episodes
    .filter((e) => key(e) === group)
    .map((facts) => ({ facts, reward: referenceOf(facts) }))
    .sort((a, b) => Number(b.facts.failed) - Number(a.facts.failed) || a.reward - b.reward || (a.facts.episodeId < b.facts.episodeId ? -1 : a.facts.episodeId > b.facts.episodeId ? 1 : 0));
}
