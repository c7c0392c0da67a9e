/** Tasks written by the tests and Episodes over them with the recording renderers. */
import { destinationPoint } from '../../../src/core/geodesy.js';
import type { Task } from '../../../src/core/tasks.js';
import type { EngineConfig } from '../../../src/env/engine-config.js';
import { Episode } from '../../../src/env/engine.js';
import { RecordingMapRenderer, RecordingViewRenderer } from './renderers.js';

/**
 * A task whose frames run due north from a start point, `spacingM` apart; the truth is frame
 * `startFrame`. `country` is the label a task file would carry.
 */
export function straightRoad(options: {
  taskIndex: number;
  lat: number;
  lon: number;
  country: string;
  frames?: number;
  spacingM?: number;
  startFrame?: number;
}): Task {
  const { taskIndex, lat, lon, country, frames = 6, spacingM = 10, startFrame = 0 } = options;
  return {
    task_index: taskIndex,
    task_id: `test-${String(taskIndex).padStart(5, '0')}`,
    country,
    sequence_id: `seqTest${taskIndex}xxxxxxxxxxxxxx`,
    provider: 'synthetic',
    start_frame: startFrame,
    frames: Array.from({ length: frames }, (_, i) => {
      // The start frame keeps the given coordinates exactly: they are the truth tests compare with.
      const p = i === startFrame ? { lat, lon } : destinationPoint(lat, lon, 0, (i - startFrame) * (spacingM / 1000));
      return { image_id: `test-${taskIndex}-f${i}`, lat: p.lat, lon: p.lon, compass_angle: 30, captured_at: '2024-06', is_pano: true };
    }),
  };
}

/** Hallstatt, Austria: six frames 10 m apart along the lakeside road, the truth at frame 2. */
export const HALLSTATT = straightRoad({ taskIndex: 0, lat: 47.5622, lon: 13.6493, country: 'Austria', startFrame: 2 });
/** Nairobi, Kenya: a single frame, so every move is a dead end. */
export const NAIROBI = straightRoad({ taskIndex: 1, lat: -1.2864, lon: 36.8172, country: 'Kenya', frames: 1 });
/** Valparaíso, Chile: three frames 40 m apart, the truth at the first. */
export const VALPARAISO = straightRoad({ taskIndex: 2, lat: -33.0458, lon: -71.6197, country: 'Chile', frames: 3, spacingM: 40 });

export function testSplits(): Map<string, readonly Task[]> {
  return new Map<string, readonly Task[]>([
    ['train', [HALLSTATT, NAIROBI, VALPARAISO]],
    ['eval', [{ ...NAIROBI, task_index: 0 }]],
  ]);
}

export interface Harness {
  episode: Episode;
  views: RecordingViewRenderer;
  maps: RecordingMapRenderer;
}

/** An Episode over the test splits with small views (64 px keeps the JPEG work negligible). */
export function makeEpisode(
  options: { config?: Partial<EngineConfig>; splits?: ReadonlyMap<string, readonly Task[]>; views?: RecordingViewRenderer; random?: () => number } = {},
): Harness {
  const views = options.views ?? new RecordingViewRenderer();
  const maps = new RecordingMapRenderer();
  const episode = new Episode({
    splits: options.splits ?? testSplits(),
    views,
    maps,
    config: { viewSizePx: 64, ...options.config },
    random: options.random,
  });
  return { episode, views, maps };
}
