/**
 * Harness run trees as the report's plain facts (streamed line by line); the workspace's reader is
 * src/eval/workspace.ts, so a report over files never loads SQLite.
 */
import { episodeFiles } from '../audit/sources/episodes.js';
import { isFailed, parseEpisodeRecord, tokenCounts, type EpisodeRecord } from '../core/episode.js';
import { InputError } from '../core/errors.js';
import { textLines } from '../files.js';
import type { EpisodeFacts } from './report.js';

/** Records with no prompt_version (older harness runs) form their own arm rather than joining another. */
export const UNVERSIONED = 'unversioned';
export const UNNAMED_MODEL = 'unnamed';

export function episodeFacts(record: EpisodeRecord): EpisodeFacts {
  const head = {
    episodeId: record.episode_id,
    model: record.model_name ?? UNNAMED_MODEL,
    promptVersion: record.config?.prompt_version ?? UNVERSIONED,
    taskKey: `${record.task.split}/${record.task.index}`,
    sample: record.task.sample ?? null,
    country: record.task.country ?? null,
  };
  if (isFailed(record)) {
    return { ...head, failed: true, distanceKm: null, cost: 0, countryHit: null, forced: false, turns: null, looks: null, moves: null, pins: null, tokensOut: null, modelTurns: 0, modelTurnsNoFinish: 0 };
  }
  const o = record.outcome;
  let modelTurns = 0;
  let noFinish = 0;
  let tokensOut = 0;
  let sawTokens = false;
  for (const turn of record.turns) {
    if (!turn.model) continue;
    modelTurns++;
    if (!turn.model.finish_reason) noFinish++;
    const out = tokenCounts(turn.model.tokens).output;
    if (out !== null) {
      tokensOut += out;
      sawTokens = true;
    }
  }
  return {
    ...head,
    failed: false,
    distanceKm: o.distance_km ?? null,
    cost: o.action_cost ?? 0,
    countryHit: o.country_hit ?? null,
    forced: o.forced_guess === true,
    turns: o.turns_used ?? null,
    looks: o.n_looks ?? null,
    moves: o.n_moves ?? null,
    pins: o.n_pins ?? null,
    tokensOut: o.tokens_out ?? (sawTokens ? tokensOut : null),
    modelTurns,
    modelTurnsNoFinish: noFinish,
  };
}

/** Every episode under the given files or run trees (`<run>/episodes.jsonl`, `pass-<p>/shard-<i>/...`). */
export async function* factsFromPaths(paths: readonly string[]): AsyncGenerator<EpisodeFacts> {
  for (const path of paths) {
    for (const file of episodeFiles(path)) {
      for await (const { line, text } of textLines(file)) {
        if (text.trim() === '') continue;
        let value: unknown;
        try {
          value = JSON.parse(text);
        } catch (err) {
          throw new InputError(`not valid JSON: ${(err as Error).message}`, { file, line });
        }
        const parsed = parseEpisodeRecord(value);
        if (!parsed.ok) {
          const issue = parsed.issues[0]!;
          throw new InputError(`${issue.message} (expected a schema-v2 episode record)`, { file, line, field: issue.path || undefined });
        }
        yield episodeFacts(parsed.record);
      }
    }
  }
}
