/**
 * The workspace's episodes as the report's plain facts, so that `eval report --workspace --run ID`
 * gives the numbers `eval report` gives over the run's folder (docs/eval.md).
 */
import { UsageError } from '../core/errors.js';
import { isRecord } from '../core/values.js';
import type { Db } from '../store/db.js';
import { episodesAfter } from '../store/episodes.js';
import type { Workspace } from '../store/index.js';
import { episodeFacts } from './episodes.js';
import type { EpisodeFacts } from './report.js';

/** Episodes read a statement at a time. */
const PAGE = 500;

/** The runs `geolab eval run` registered: their config names the sweep's folder. */
export function sweepRunIds(db: Db): Set<string> {
  const runs = db.prepare('SELECT id, config_json FROM eval_runs').all() as { id: string; config_json: string }[];
  const ids = new Set<string>();
  for (const run of runs) {
    try {
      const config: unknown = JSON.parse(run.config_json);
      if (isRecord(config) && typeof config.sweep === 'string' && config.sweep !== '') ids.add(run.id);
    } catch {
      // A config that is not JSON names no sweep.
    }
  }
  return ids;
}

/** What makes an episode one episode of a sweep: its arm, task and sample (as the sweep's resume reads it). */
const episodeKey = (f: EpisodeFacts) => JSON.stringify([f.model, f.promptVersion, f.taskKey, f.sample ?? 0]);

/**
 * A sweep's folder keeps one record per episode: the last one written. A failure it plays again
 * (aborted, a service gone) moves to superseded.jsonl and leaves the run in the workspace, but an
 * episode the workspace saved when its process was killed before the folder got the line (or got a
 * torn one) stays in the run and is played again beside it. So within a sweep's run the last record
 * of an episode, in the order recorded, stands for it; earlier ones are superseded, as in the folder.
 * Runs of other kinds keep every record: a (task, sample) recorded twice there is flagged.
 */
export function latestPerSweepEpisode<T>(episodes: Iterable<T>, of: (item: T) => { facts: EpisodeFacts; runId: string | null }, sweepRuns: ReadonlySet<string>): T[] {
  const kept: T[] = [];
  const latest = new Map<string, number>();
  for (const item of episodes) {
    const { facts, runId } = of(item);
    if (runId === null || !sweepRuns.has(runId)) {
      kept.push(item);
      continue;
    }
    const key = `${runId}\n${episodeKey(facts)}`;
    const at = latest.get(key);
    if (at === undefined) {
      latest.set(key, kept.length);
      kept.push(item);
    } else kept[at] = item;
  }
  return kept;
}

/** All the workspace's episodes, or those of the given runs (an unknown run id is a usage error). */
export function factsFromWorkspace(ws: Workspace, runIds: readonly string[] = []): EpisodeFacts[] {
  const known = ws.db.prepare('SELECT 1 FROM eval_runs WHERE id = ?').pluck();
  for (const id of runIds) {
    if (known.get(id) === undefined) throw new UsageError(`run "${id}" is not in the workspace (geolab episodes import RUN_TREE --run-id ID adds one)`);
  }
  const wanted = new Set(runIds);
  const read: { facts: EpisodeFacts; runId: string | null }[] = [];
  // In the order recorded (rowid), which says which of an episode's records is the last.
  for (let after = 0, page = episodesAfter(ws.db, after, PAGE); page.length > 0; page = episodesAfter(ws.db, after, PAGE)) {
    for (const { rowid, runId, record } of page) {
      after = rowid;
      if (wanted.size > 0 && (runId === null || !wanted.has(runId))) continue;
      read.push({ facts: episodeFacts(record), runId });
    }
  }
  return latestPerSweepEpisode(read, (e) => e, sweepRunIds(ws.db)).map((e) => e.facts);
}
