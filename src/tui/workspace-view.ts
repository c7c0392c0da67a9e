/** The workspace store seen through the TUI's port. Loaded after the first frame: it brings in SQLite. */
import { countEpisodes, listEpisodes, loadEpisode, type EpisodeRow as StoredRow } from '../store/episodes.js';
import { readImage } from '../store/images.js';
import { summarize, type Workspace } from '../store/index.js';
import type { EpisodeRow, WorkspaceView } from './services.js';

export function workspaceView(ws: Workspace): WorkspaceView {
  return {
    summary: () => {
      const summary = summarize(ws);
      const [last] = listEpisodes(ws.db, { limit: 1 });
      return {
        dir: summary.dir,
        taskSets: summary.task_sets.map((s) => ({ name: s.name, tasks: s.tasks })),
        splits: summary.splits,
        episodes: summary.episodes,
        lastEpisode: last ? rowOf(last) : null,
        evalRuns: summary.eval_runs,
        trainingRuns: summary.training_runs,
        openFindings: summary.open_findings,
      };
    },
    countEpisodes: () => countEpisodes(ws.db),
    listEpisodes: (offset, limit) => listEpisodes(ws.db, { offset, limit }).map(rowOf),
    loadEpisode: (episodeId) => loadEpisode(ws.db, episodeId),
    loadImage: (sha256) => readImage(ws, sha256),
  };
}

function rowOf(row: StoredRow): EpisodeRow {
  return {
    episodeId: row.episode_id,
    recordedAt: row.recorded_at,
    modelName: row.model_name,
    split: row.split,
    index: row.task_index,
    sample: row.sample,
    verdict: row.verdict,
    distanceKm: row.distance_km,
    reward: row.reward,
    turnsUsed: row.turns_used,
    error: row.error,
  };
}
