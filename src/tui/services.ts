/**
 * What the TUI needs from the rest of geolab, as narrow ports: the workspace (summary, episodes,
 * images) and the agent runner. The entry points fill them with the real store and runner, loaded
 * after the first frame; tests fill them with fixtures.
 */
import type { CompletedEpisode, FailedEpisode } from '../core/episode.js';
import type { LiveSource, RunEpisode } from './live/types.js';

/** One row of the Episodes list. */
export interface EpisodeRow {
  episodeId: string;
  recordedAt: string;
  modelName: string | null;
  split: string;
  index: number;
  sample: number;
  verdict: string | null;
  distanceKm: number | null;
  reward: number | null;
  turnsUsed: number | null;
  error: string | null;
}

/** The Home screen's workspace summary. */
export interface HomeSummary {
  dir: string;
  taskSets: { name: string; tasks: number }[];
  splits: number;
  episodes: number;
  lastEpisode: EpisodeRow | null;
  evalRuns: number;
  trainingRuns: number;
  openFindings: number;
}

export interface WorkspaceView {
  summary(): HomeSummary;
  countEpisodes(): number;
  /** Newest first; only the rows asked for, so a list of 100k episodes stays instant. */
  listEpisodes(offset: number, limit: number): EpisodeRow[];
  loadEpisode(episodeId: string): CompletedEpisode | FailedEpisode | undefined;
  /** An image a recorded turn showed, by sha256. */
  loadImage(sha256: string): Buffer | undefined;
}

export interface TuiServices {
  /** Opens the workspace after the first frame; absent when a Live screen runs on its own. */
  openWorkspace?: () => Promise<WorkspaceView>;
  runEpisode: RunEpisode;
  /** "Play" on Home: a fresh episode for a person on the workspace's environment. */
  newPlay?: () => LiveSource;
  /** "Watch a model" on Home, when a model endpoint is configured. */
  newWatch?: () => LiveSource;
}
