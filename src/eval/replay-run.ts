/**
 * `geolab episodes replay FILE|ID` as a job (docs/episodes.md, "Compare and replay in detail"): the
 * episodes a reference names, each replayed (src/eval/replay.ts) on an embedded environment over the
 * workspace's task sets. A stored episode is replayed on its task set at the version it was played
 * on (docs/splits.md, Versions). No printing here: the CLI prints the result, the TUI can call it too.
 */
import type { EpisodeRecord } from '../core/episode.js';
import type { Task } from '../core/tasks.js';
import { DEFAULT_ENGINE_CONFIG } from '../env/engine-config.js';
import { createEnvironment } from '../env/environment.js';
import { MapPainter } from '../env/render/map.js';
import type { MapRenderer } from '../env/types.js';
import { workspaceSplits, type ServedSplits } from '../env/task-splits.js';
import { namedEpisodes, type NamedEpisode } from '../store/episode-refs.js';
import { episodeSplitTasks, episodeTaskVersion } from '../store/episodes.js';
import type { Workspace } from '../store/index.js';
import { lookupTask, replayEpisode, type ReplayedTurn } from './replay.js';

export interface ReplayRunOptions {
  /** Side of the square views; default: what the records say, else the environment's default. */
  viewSize?: number;
  /** A panorama cache over the task sets' and the workspace's. */
  panos?: string;
  /** Called once the episodes are known; what it returns hears of each episode replayed, and of the end. */
  progress?: (total: number) => ReplayProgress | undefined;
}

export interface ReplayProgress {
  replayed(done: number): void;
  /** After the last episode, or the failure that ended the run. */
  end(): void;
}

export interface ReplayRun {
  /** The view size every image was drawn at. */
  viewSizePx: number;
  replays: { episode: NamedEpisode; turns: ReplayedTurn[] }[];
  /** Images checked, and how many came out ok, changed, or could not be drawn. */
  totals: { images: number; ok: number; changed: number; cannot_render: number };
}

type Played = Map<NamedEpisode, { key: string; tasks: readonly Task[] }>;

/** Replays every episode `ref` names (an id, a run, FILE[:LINE]...; see namedEpisodes). */
export async function replayEpisodes(ws: Workspace, ref: string, options: ReplayRunOptions = {}): Promise<ReplayRun> {
  const episodes = await namedEpisodes(ws, ref);
  // The size the records say their views were drawn at (a sweep's embedded environment), else the environment's default.
  const viewSizePx = options.viewSize ?? episodes.map((e) => e.record.config?.view_size).find((v) => typeof v === 'number') ?? DEFAULT_ENGINE_CONFIG.viewSizePx;
  const served = (await workspaceSplits(ws, options.panos)).load(episodes.map((e) => e.record.task.split));
  const { played, splits, panoramas, demo } = playedVersions(ws, episodes, served);
  // One episode's images at a time on this thread: no worker threads to start for a check.
  const env = createEnvironment({ splits, panoramasDir: ws.paths.panoramas, splitPanoramas: panoramas, demo, workers: 0, config: { viewSizePx } });
  // Maps as each record says they were drawn: full-size PNG, or at the model's size (config.map_size).
  const painters = new Map<number, MapPainter>();
  const mapsOf = (record: EpisodeRecord): MapRenderer => {
    const size = record.config?.map_size;
    if (typeof size !== 'number') return env.maps;
    const painter = painters.get(size) ?? new MapPainter({ modelImagePx: size });
    painters.set(size, painter);
    return painter;
  };
  const replays: ReplayRun['replays'] = [];
  const progress = options.progress?.(episodes.length);
  try {
    for (const episode of episodes) {
      const version = played.get(episode);
      const lookup = lookupTask(episode.record, version ? new Map([[episode.record.task.split, version.tasks]]) : served.splits, `the workspace ${ws.dir}`);
      replays.push({ episode, turns: await replayEpisode(episode.record, lookup, { views: env.views, maps: mapsOf(episode.record), viewSizePx }) });
      progress?.replayed(replays.length);
    }
  } finally {
    progress?.end();
    await env.close();
  }
  const all = replays.flatMap((r) => r.turns);
  const count = (status: ReplayedTurn['status']) => all.filter((t) => t.status === status).length;
  return { viewSizePx, replays, totals: { images: all.length, ok: count('ok'), changed: count('changed'), cannot_render: count('cannot-render') } };
}

/**
 * The splits to serve: the current ones, and beside them each stored episode's task set at the
 * version it was played on, as `SPLIT@VERSION` from the same panorama cache, so its panoramas are found.
 */
function playedVersions(ws: Workspace, episodes: readonly NamedEpisode[], served: ServedSplits) {
  const played: Played = new Map();
  const splits = new Map(served.splits);
  const panoramas = new Map(served.panoramas);
  const demo = [...served.demo];
  for (const episode of episodes) {
    const split = episode.record.task.split;
    if (episode.fileDir !== undefined) continue;
    const key = `${split}@${episodeTaskVersion(ws.db, episode.record.episode_id) ?? 'first'}`;
    const tasks = splits.get(key) ?? episodeSplitTasks(ws.db, episode.record.episode_id, split);
    if (!tasks) continue;
    played.set(episode, { key, tasks });
    splits.set(key, tasks);
    const dir = served.panoramas.get(split);
    if (dir !== undefined) panoramas.set(key, dir);
    if (served.demo.includes(split)) demo.push(key);
  }
  return { played, splits, panoramas, demo };
}
