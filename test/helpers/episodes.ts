/**
 * Episode fixtures written by the tests themselves: schema-v2 completed and failed records with
 * real (tiny) JPEG and PNG images, their messages referencing the images by sha256 as a policy does.
 */
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import type { CompletedEpisode, FailedEpisode, Turn } from '../../src/core/episode.js';

export type EpisodeImages = Map<string, { bytes: Buffer; mime: string }>;

export interface EpisodeFixture {
  record: CompletedEpisode;
  images: EpisodeImages;
}

export function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** A small solid-colour JPEG; different seeds give different bytes. */
export function makeJpeg(seed: number, width = 32, height = 16): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: colour(seed) } }).jpeg({ quality: 80 }).toBuffer();
}

export function makePng(seed: number, width = 24, height = 12): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: colour(seed) } }).png().toBuffer();
}

function colour(seed: number) {
  return { r: (seed * 67) % 256, g: (seed * 131 + 40) % 256, b: (seed * 29 + 90) % 256 };
}

export interface EpisodeOptions {
  id?: string;
  model?: string;
  split?: string;
  index?: number;
  sample?: number;
  country?: string;
  verdict?: string;
  distanceKm?: number;
  reward?: number;
  recordedAt?: string;
  /** 3 (reset, look, guess) or 4 (with a pin and its map). */
  turns?: 3 | 4;
}

/**
 * A completed record without images (turns carry no image_sha256 unless `imageSha256s` names one
 * per image-bearing turn): cheap enough for imports of thousands of episodes.
 */
export function completedRecord(
  options: EpisodeOptions = {},
  imageSha256s: { view0?: string; view1?: string; map?: string } = {},
): CompletedEpisode {
  const index = options.index ?? 0;
  const sample = options.sample ?? 0;
  const split = options.split ?? 'eval';
  const id = options.id ?? `ep-${split}-${index}-s${sample}`;
  const withPin = (options.turns ?? 4) === 4;
  const userImage = (sha: string | undefined, text: string) =>
    sha ? [{ type: 'text', text }, { type: 'image', sha256: sha, mime: 'image/jpeg' }] : text;
  const turns: Turn[] = [
    {
      turn: 0,
      status: 'ok',
      camera_after: { heading_deg: 0, pitch_deg: 0, fov_deg: 90, frame_index: 0 },
      action: { action: 'reset' },
      pins: [],
      image_kind: 'view',
      image_sha256: imageSha256s.view0 ?? null,
      feedback: 'You have 24 actions.',
      action_cost: 0,
      steps_remaining: 24,
      reward: null,
      done: false,
      prompt: 'You are dropped somewhere on Earth.',
    },
    {
      turn: 1,
      status: 'ok',
      camera_before: { heading_deg: 0, pitch_deg: 0, fov_deg: 90, frame_index: 0 },
      camera_after: { heading_deg: 90, pitch_deg: 0, fov_deg: 90, frame_index: 0 },
      action: { action: 'look', heading_deg: 90 },
      image_kind: 'view',
      image_sha256: imageSha256s.view1 ?? null,
      feedback: 'Facing 90 deg. 23 actions left.',
      action_cost: 0.01,
      steps_remaining: 23,
      reward: null,
      done: false,
      model: { reply: '{"action": "look", "heading_deg": 90}', finish_reason: 'stop', latency_s: 0.8, attempts: 1, errors: [] },
      messages: [
        { role: 'system', content: 'You are playing GeoGuesser.' },
        { role: 'user', content: userImage(imageSha256s.view0, 'What do you do?') },
      ],
    },
  ];
  if (withPin) {
    turns.push({
      turn: 2,
      status: 'ok',
      action: { action: 'pin', lat: 47.2, lon: 10.3 },
      pins: [[47.2, 10.3]],
      image_kind: 'map',
      image_sha256: imageSha256s.map ?? null,
      feedback: 'Pin 1 placed. 22 actions left.',
      action_cost: 0.02,
      steps_remaining: 22,
      reward: null,
      done: false,
      model: { reply: '{"action": "pin", "lat": 47.2, "lon": 10.3}', finish_reason: 'stop', latency_s: 1.1, attempts: 1 },
      messages: [
        { role: 'system', content: 'You are playing GeoGuesser.' },
        { role: 'user', content: userImage(imageSha256s.view1, 'What do you do?') },
      ],
    });
  }
  const distanceKm = options.distanceKm ?? 12.5;
  const reward = options.reward ?? 0.9;
  turns.push({
    turn: turns.length,
    status: 'ok',
    action: { action: 'guess', lat: 47.16, lon: 10.24 },
    image_kind: 'none',
    feedback: `${distanceKm} km away.`,
    reward,
    done: true,
    model: { reply: '{"action": "guess", "lat": 47.16, "lon": 10.24}', finish_reason: 'stop', latency_s: 0.9, attempts: 1 },
  });
  return {
    schema_version: 2,
    episode_id: id,
    recorded_at: options.recordedAt ?? '2026-01-01T00:00:00.000Z',
    model_name: options.model ?? 'qwen3.5-4b',
    model: { provider: 'openai', model: options.model ?? 'qwen3.5-4b', base_url: 'http://127.0.0.1:8000/v1', temperature: 0.7 },
    task: { split, index, sample, task_id: `demo-${index}`, country: options.country ?? 'Austria', sequence_id: `seq${index}` },
    config: { mode: 'tools', prompt_version: 'v2', max_turns: 12 },
    turns,
    outcome: {
      reward,
      train_reward: reward,
      distance_km: distanceKm,
      parsed_ok: true,
      guess: [47.16, 10.24],
      verdict: options.verdict ?? 'close',
      truth: [47.2, 10.3],
      turns_used: turns.length - 1,
    },
  };
}

/** A completed record with real images: two views (JPEG) and, with a pin, a map (PNG). */
export async function completedEpisode(options: EpisodeOptions = {}, imageSeed = options.index ?? 0): Promise<EpisodeFixture> {
  const view0 = await makeJpeg(imageSeed * 3);
  const view1 = await makeJpeg(imageSeed * 3 + 1);
  const map = await makePng(imageSeed * 3 + 2);
  const images: EpisodeImages = new Map([
    [sha256(view0), { bytes: view0, mime: 'image/jpeg' }],
    [sha256(view1), { bytes: view1, mime: 'image/jpeg' }],
  ]);
  const withPin = (options.turns ?? 4) === 4;
  if (withPin) images.set(sha256(map), { bytes: map, mime: 'image/png' });
  const record = completedRecord(options, { view0: sha256(view0), view1: sha256(view1), map: withPin ? sha256(map) : undefined });
  return { record, images };
}

export function failedRecord(options: EpisodeOptions & { error?: string } = {}): FailedEpisode {
  const index = options.index ?? 0;
  const split = options.split ?? 'eval';
  return {
    schema_version: 2,
    episode_id: options.id ?? `ep-${split}-${index}-failed`,
    ...(options.recordedAt ? { recorded_at: options.recordedAt } : {}),
    model_name: options.model ?? 'qwen3.5-4b',
    task: { split, index, sample: options.sample ?? 0 },
    config: { prompt_version: 'v2' },
    error: options.error ?? 'ServiceError: model endpoint unreachable',
    traceback: 'Traceback (most recent call last): ...',
  };
}
