/** Recorded episodes made by the tests: four turns with real (tiny) JPEG and PNG images, held in memory. */
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import type { CompletedEpisode, FailedEpisode } from '../../src/core/episode.js';
import type { EpisodeRow, HomeSummary, WorkspaceView } from '../../src/tui/services.js';
import { isFiltered } from '../../src/tui/state/episode-filter.js';

export interface EpisodeFixture {
  episode: CompletedEpisode;
  images: Map<string, Buffer>;
}

async function solid(format: 'jpeg' | 'png', rgb: [number, number, number]): Promise<Buffer> {
  const image = sharp({ create: { width: 32, height: 32, channels: 3, background: { r: rgb[0], g: rgb[1], b: rgb[2] } } });
  return format === 'jpeg' ? image.jpeg({ quality: 80 }).toBuffer() : image.png().toBuffer();
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** A four-turn episode (reset, look, pin, guess) scored Pinpoint at 14.2 km. */
export async function makeEpisode(overrides: { episodeId?: string; recordedAt?: string } = {}): Promise<EpisodeFixture> {
  const start = await solid('jpeg', [200, 40, 40]);
  const look = await solid('jpeg', [40, 200, 40]);
  const map = await solid('png', [40, 40, 200]);
  const images = new Map([start, look, map].map((bytes) => [sha256(bytes), bytes]));
  const camera = (heading: number, fov: number) => ({ heading_deg: heading, pitch_deg: 0, fov_deg: fov, frame_index: 0 });
  const episode: CompletedEpisode = {
    schema_version: 2,
    episode_id: overrides.episodeId ?? '3f9a21c0-0000-4000-8000-000000000001',
    recorded_at: overrides.recordedAt ?? '2026-01-02T03:04:05.000Z',
    model_name: 'qwen-test',
    model: { provider: 'openai', model: 'qwen-test' },
    task: { split: 'eval', index: 17, sample: 2 },
    config: { mode: 'tools', max_turns: 12 },
    turns: [
      {
        turn: 0,
        status: 'ok',
        action: { action: 'reset' },
        camera_after: camera(0, 90),
        image_kind: 'view',
        image_sha256: sha256(start),
        feedback: 'You are somewhere on Earth. 24 actions left.',
        action_cost: 0,
        steps_remaining: 24,
        model: null,
      },
      {
        turn: 1,
        status: 'ok',
        action: { action: 'look', heading_deg: 90, fov_deg: 90 },
        camera_after: camera(90, 90),
        image_kind: 'view',
        image_sha256: sha256(look),
        feedback: 'Facing 90 deg, 90 deg field of view. 23 actions left.',
        action_cost: 0.01,
        steps_remaining: 23,
        model: { reasoning: 'German-language sign, Alpine valley, no yellow centre line.', reply: 'Looking east first.', latency_s: 1.4 },
      },
      {
        turn: 2,
        status: 'ok',
        action: { action: 'pin', lat: 47.2, lon: 10.3 },
        camera_after: camera(90, 90),
        image_kind: 'map',
        image_sha256: sha256(map),
        pins: [[47.2, 10.3]],
        feedback: 'Pin 1 placed at 47.2000, 10.3000 - Austria (Western Europe). 22 actions left.',
        action_cost: 0.03,
        steps_remaining: 22,
        model: { reasoning: 'Tyrol, probably.', reply: null, latency_s: 0.9 },
      },
      {
        turn: 3,
        status: 'ok',
        action: { action: 'guess', lat: 47.1, lon: 10.4 },
        camera_after: camera(90, 90),
        image_kind: 'none',
        image_sha256: null,
        pins: [[47.2, 10.3]],
        feedback: 'Pinpoint! 14 km from the true location.',
        action_cost: 0.03,
        steps_remaining: 22,
        done: true,
        model: { reasoning: 'Committing to the Inn valley.', reply: '<guess>47.1, 10.4</guess>', latency_s: 1.1 },
      },
    ],
    outcome: {
      reward: 0.8999,
      train_reward: 0.9712,
      distance_km: 14.2,
      parsed_ok: true,
      guess: [47.1, 10.4],
      truth: [47.2, 10.55],
      verdict: 'Pinpoint',
      country_hit: true,
      score_before_cost: 0.9905,
      action_cost: 0.03,
      turns_used: 3,
    },
  };
  return { episode, images };
}

export function failedEpisode(): FailedEpisode {
  return {
    schema_version: 2,
    episode_id: 'dead0000-0000-4000-8000-000000000002',
    model_name: 'qwen-test',
    task: { split: 'eval', index: 3 },
    config: { prompt_version: 'v2' },
    error: 'model endpoint unreachable',
    traceback: null,
  };
}

function rowOf(episode: CompletedEpisode | FailedEpisode): EpisodeRow {
  const outcome = 'outcome' in episode ? (episode as CompletedEpisode).outcome : undefined;
  return {
    episodeId: episode.episode_id,
    recordedAt: (episode.recorded_at as string | undefined) ?? '2026-01-01T00:00:00.000Z',
    modelName: episode.model_name ?? null,
    split: episode.task.split,
    index: episode.task.index,
    sample: episode.task.sample ?? 0,
    country: episode.task.country ?? null,
    verdict: outcome?.verdict ?? null,
    distanceKm: outcome?.distance_km ?? null,
    reward: outcome?.reward ?? null,
    turnsUsed: outcome?.turns_used ?? null,
    error: 'error' in episode ? String(episode.error) : null,
  };
}

/**
 * The workspace port over in-memory episodes (newest first, as the store lists them) and images.
 * It serves the plain list only: filters and other orders are the store's, tested against it.
 */
export function memoryWorkspace(episodes: readonly (CompletedEpisode | FailedEpisode)[], images = new Map<string, Buffer>()): WorkspaceView & {
  listCalls: { offset: number; limit: number }[];
} {
  const rows = episodes.map(rowOf).sort((a, b) => b.recordedAt.localeCompare(a.recordedAt));
  const listCalls: { offset: number; limit: number }[] = [];
  const summary: HomeSummary = {
    dir: '/tmp/geolab-test',
    taskSets: [{ name: 'demo', tasks: 32 }],
    splits: [{ name: 'world', eval: 200, train: 1234 }],
    episodes: episodes.length,
    lastEpisode: rows[0] ?? null,
    runs: { agent: 3, sweep: 0, play: 1, imported: 1 },
  };
  return {
    listCalls,
    summary: () => summary,
    countEpisodes: (filter) => {
      if (filter && isFiltered(filter)) throw new Error('memoryWorkspace does not filter: test filters on a real store');
      return rows.length;
    },
    listEpisodes: (query, offset, limit) => {
      if (isFiltered(query.filter) || query.sort !== 'recent' || !query.descending) {
        throw new Error('memoryWorkspace lists newest first only: test filters and orders on a real store');
      }
      listCalls.push({ offset, limit });
      return rows.slice(offset, offset + limit);
    },
    loadEpisode: (id) => episodes.find((e) => e.episode_id.startsWith(id)),
    loadImage: (sha) => images.get(sha),
  };
}
