/** Task fixtures written by the tests themselves, in the public schema. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function tempDir(prefix = 'geolab-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** A valid task; `overrides` replace top-level keys. */
export function makeTask(index: number, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const lat = 45 + index * 0.01;
  const lon = 7 + index * 0.01;
  return {
    task_index: index,
    task_id: `fx-${String(index).padStart(5, '0')}`,
    country: 'Italy',
    sequence_id: `seq${index}aaaaaaaaaaaaaaaaa`,
    provider: 'synthetic',
    start_frame: 0,
    frames: [
      { image_id: `img${index}a`, lat, lon, compass_angle: 10, captured_at: '2024-05', is_pano: true },
      { image_id: `img${index}b`, lat: lat + 0.0001, lon, compass_angle: 12, captured_at: '2024-05', is_pano: true },
    ],
    attribution: { creator_username: `user${index % 3}`, creator_id: String(1000 + index), licence: 'CC0-1.0', source: 'test' },
    meta: { quality_score: 0.9, offline_ready: true },
    ...overrides,
  };
}

/** Writes lines (objects are JSON-encoded, strings written as they are) to a temp JSONL file. */
export function writeJsonl(lines: (Record<string, unknown> | string)[], dir = tempDir()): string {
  const file = join(dir, 'tasks.jsonl');
  writeFileSync(file, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n');
  return file;
}
