/** Generated pools for the split tests: places, sequences and contributors chosen per test. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { destinationPoint } from '../../src/core/geodesy.js';
import type { Task } from '../../src/core/tasks.js';

export interface PoolTask {
  country: string;
  lat: number;
  lon: number;
  sequence?: string;
  username?: string;
  quality?: number;
  offlineReady?: boolean;
}

/** Country centres well inside each country. */
export const CENTRES: Record<string, [number, number]> = {
  France: [46.5, 2.5],
  Germany: [51, 10],
  Italy: [42.8, 12.5],
  Japan: [36.2, 138.2],
  Brazil: [-10, -52],
  Kenya: [0.2, 37.9],
};

/** A task record in the public schema; task_index follows the array position. */
export function poolRecord(t: PoolTask, index: number): Record<string, unknown> {
  return {
    task_index: index,
    task_id: `pool-${index}`,
    country: t.country,
    sequence_id: t.sequence ?? `seq-${index}`,
    provider: 'synthetic',
    start_frame: 0,
    frames: [{ image_id: `img${index}`, lat: t.lat, lon: t.lon, compass_angle: 0, captured_at: '2024-05', is_pano: true }],
    attribution: { creator_username: t.username ?? `user-${index}`, creator_id: t.username ? `id-${t.username}` : String(9000 + index), licence: 'CC-BY-SA', source: 'test' },
    meta: { quality_score: t.quality ?? 0.5, offline_ready: t.offlineReady ?? true },
  };
}

export function asTasks(pool: PoolTask[]): Task[] {
  return pool.map((t, i) => poolRecord(t, i) as unknown as Task);
}

/** `n` tasks per country, 20 km apart along a line east of the centre, each its own sequence and contributor. */
export function spreadPool(countries: string[], n: number): PoolTask[] {
  const out: PoolTask[] = [];
  for (const country of countries) {
    const [lat, lon] = CENTRES[country]!;
    for (let k = 0; k < n; k++) {
      const p = destinationPoint(lat, lon, 90, 20 * k);
      out.push({ country, lat: p.lat, lon: p.lon, quality: 1 - k / (n + 1) });
    }
  }
  return out;
}

/** A point `km` from (lat, lon) due north. */
export function northOf(lat: number, lon: number, km: number): { lat: number; lon: number } {
  return destinationPoint(lat, lon, 0, km);
}

/** Writes `records` (pool records or any task records) as a JSONL file `name` in `dir`. */
export function writeJsonlFile(dir: string, name: string, records: readonly unknown[]): string {
  const file = join(dir, name);
  writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return file;
}
