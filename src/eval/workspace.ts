/** The workspace's episodes as the report's plain facts. */
import { UsageError } from '../core/errors.js';
import { episodeIds, loadEpisode } from '../store/episodes.js';
import type { Workspace } from '../store/index.js';
import { episodeFacts } from './episodes.js';
import type { EpisodeFacts } from './report.js';

/** All the workspace's episodes, or those of the given runs (an unknown run id is a usage error). */
export function* factsFromWorkspace(ws: Workspace, runIds: readonly string[] = []): Generator<EpisodeFacts> {
  const known = ws.db.prepare('SELECT 1 FROM eval_runs WHERE id = ?').pluck();
  for (const id of runIds) {
    if (known.get(id) === undefined) throw new UsageError(`run "${id}" is not in the workspace (geolab episodes import RUN_TREE --run-id ID adds one)`);
  }
  const runOf = ws.db.prepare('SELECT run_id FROM episodes WHERE episode_id = ?').pluck();
  const wanted = new Set(runIds);
  for (const id of episodeIds(ws.db)) {
    if (wanted.size > 0 && !wanted.has(runOf.get(id) as string)) continue;
    const record = loadEpisode(ws.db, id);
    if (record) yield episodeFacts(record);
  }
}
