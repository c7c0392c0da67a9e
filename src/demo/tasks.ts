/**
 * Builds the demo task index (datasets/demo/tasks.jsonl) from DEMO_SITES with a fixed seed, in the
 * public task schema (docs/formats.md). The committed JSONL is the source of truth; this builder exists
 * so it can be regenerated and so a test can prove the file is exactly what the code makes.
 */
import { destinationPoint, normalizeDeg } from '../core/geodesy.js';
import { hashString, seededRandom } from '../core/random.js';
import { DEMO_SITES, type DemoSite } from './sites.js';

export interface DemoFrame {
  image_id: string;
  lat: number;
  lon: number;
  compass_angle: number;
  captured_at: string;
  is_pano: true;
}

export interface DemoTask {
  task_index: number;
  task_id: string;
  country: string;
  sequence_id: string;
  provider: 'synthetic';
  start_frame: number;
  frames: DemoFrame[];
  attribution: { creator_username: string; creator_id: string; licence: string; source: string };
  meta: {
    camera_make: string;
    camera_model: string;
    quality_score: number;
    offline_ready: true;
    synthetic: true;
  };
}

export const DEMO_ATTRIBUTION = {
  creator_username: 'geolab-synthetic',
  creator_id: '0',
  licence: 'CC0-1.0',
  source: 'geolab synthetic demo',
} as const;

const SEED = 'geolab-demo-v1';
const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** Camera heading jitter around the road bearing: a real capture never points exactly down the road. */
const HEADING_JITTER_DEG = 4;

const round = (value: number, digits: number): number => Number(value.toFixed(digits));

function sequenceId(random: () => number): string {
  let id = '';
  for (let i = 0; i < 22; i++) id += ID_ALPHABET[Math.floor(random() * ID_ALPHABET.length)];
  return id;
}

function buildTask(site: DemoSite, index: number, random: () => number): DemoTask {
  const frameCount = 3 + Math.floor(random() * 4);
  const startFrame = Math.floor(random() * frameCount);
  // Cumulative position of each frame along the road, in metres, frames 5-15 m apart.
  const along = [0];
  for (let k = 1; k < frameCount; k++) along.push(along[k - 1]! + 5 + 10 * random());
  const startAlong = along[startFrame]!;
  const frames = along.map((metres, k): DemoFrame => {
    const offset = metres - startAlong;
    const point = destinationPoint(site.lat, site.lon, offset >= 0 ? site.roadBearingDeg : site.roadBearingDeg + 180, Math.abs(offset) / 1000);
    return {
      image_id: `demo-${String(index).padStart(4, '0')}-f${k}`,
      lat: round(point.lat, 7),
      lon: round(point.lon, 7),
      compass_angle: round(normalizeDeg(site.roadBearingDeg + (2 * random() - 1) * HEADING_JITTER_DEG), 2),
      captured_at: site.capturedAt,
      is_pano: true,
    };
  });
  return {
    task_index: index,
    task_id: `demo-${String(index).padStart(5, '0')}`,
    country: site.country,
    sequence_id: sequenceId(random),
    provider: 'synthetic',
    start_frame: startFrame,
    frames,
    attribution: { ...DEMO_ATTRIBUTION },
    meta: {
      camera_make: 'synthetic',
      camera_model: 'geolab-demo-v1',
      quality_score: round(0.8 + 0.18 * random(), 3),
      offline_ready: true,
      synthetic: true,
    },
  };
}

/** The demo tasks, in task_index order. Pure and deterministic. */
export function buildDemoTasks(): DemoTask[] {
  const random = seededRandom(hashString(SEED));
  return DEMO_SITES.map((site, index) => buildTask(site, index, random));
}

/** JSONL text of the tasks: one compact object per line, newline-terminated. */
export function toJsonl(tasks: readonly DemoTask[]): string {
  return tasks.map((task) => JSON.stringify(task)).join('\n') + '\n';
}
