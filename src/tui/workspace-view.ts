/** The workspace store seen through the TUI's port. Loaded after the first frame: it brings in SQLite. */
import { countEpisodes, listEpisodes, loadEpisode, type EpisodeQuery, type EpisodeRow as StoredRow } from '../store/episodes.js';
import { readLastAudit } from '../audit/last-run.js';
import { readImage } from '../store/images.js';
import { summarize, type Workspace } from '../store/index.js';
import { savedSplits } from '../store/saved-splits.js';
import { workspacePaths } from '../store/workspace.js';
import { runLines } from '../train/runs.js';
import type { EpisodeRow, WorkspaceView } from './services.js';
import type { EpisodeFilter } from './state/episode-filter.js';

export function workspaceView(ws: Workspace): WorkspaceView {
  return {
    summary: () => {
      const summary = summarize(ws);
      const [last] = listEpisodes(ws.db, { limit: 1 });
      return {
        dir: summary.dir,
        taskSets: summary.task_sets.map((s) => ({ name: s.name, tasks: s.tasks })),
        splits: savedSplits(ws.db),
        episodes: summary.episodes,
        lastEpisode: last ? rowOf(last) : null,
        runs: summary.runs,
        audit: readLastAudit(workspacePaths(summary.dir).lastAudit),
        trainRuns: runLines(ws.db),
      };
    },
    countEpisodes: (filter) => countEpisodes(ws.db, filter && storeFilter(filter)),
    listEpisodes: ({ filter, sort, descending }, offset, limit) =>
      listEpisodes(ws.db, { ...storeFilter(filter), sort, descending, offset, limit }).map(rowOf),
    loadEpisode: (episodeId) => loadEpisode(ws.db, episodeId),
    loadImage: (sha256) => readImage(ws, sha256),
  };
}

/** The list's filter in the store's own field names, picked one by one: a filter never pages or picks a run. */
function storeFilter(filter: EpisodeFilter): EpisodeQuery {
  const { model, split, country, verdict, status, text, minReward, maxReward, search } = filter;
  return { model, split, country, verdict, status, text, minReward, maxReward, search };
}

function rowOf(row: StoredRow): EpisodeRow {
  return {
    episodeId: row.episode_id,
    recordedAt: row.recorded_at,
    modelName: row.model_name,
    split: row.split,
    index: row.task_index,
    sample: row.sample,
    country: row.country,
    verdict: row.verdict,
    distanceKm: row.distance_km,
    reward: row.reward,
    turnsUsed: row.turns_used,
    error: row.error,
  };
}
