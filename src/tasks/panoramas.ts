/** Panorama files of a cache directory: where each frame's JPEG lives, and which are missing or corrupt. */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Task, TaskError } from '../core/tasks.js';

/** Where a panorama lives in a cache: `<image_id>.jpg`, or `<image_id>.orig.jpg` at full resolution. */
export function panoramaFile(cacheDir: string, imageId: string, orig = false): string {
  return join(cacheDir, `${imageId}${orig ? '.orig' : ''}.jpg`);
}

/** What to do about a panorama that is not in the cache, said the same way everywhere. */
export const MISSING_PANORAMA_HINT =
  'get it with `geolab panos fetch TASKS --panos DIR` (needs MAPILLARY_ACCESS_TOKEN), or point --panos at a cache that has it';

/**
 * A frame's panorama is neither in the cache nor fetchable. Its message names the image and the
 * path looked up: identity, so it is for operators (logs, the CLI), never for a model's prompt.
 */
export class MissingPanoramaError extends Error {
  constructor(
    readonly imageId: string,
    readonly path: string,
    reason = 'is not in the cache',
  ) {
    super(`panorama of image ${imageId} ${reason} (looked up ${path}): ${MISSING_PANORAMA_HINT}`);
    this.name = 'MissingPanoramaError';
  }
}

/** The `meta.sha256` of a task: expected SHA-256 (hex) of each image's 2048 px JPEG, when recorded. */
export function expectedSha256(task: Task): ReadonlyMap<string, string> {
  const recorded = task.meta?.sha256;
  const map = new Map<string, string>();
  if (recorded && typeof recorded === 'object') {
    for (const [imageId, hex] of Object.entries(recorded as Record<string, unknown>)) {
      if (typeof hex === 'string') map.set(imageId, hex.toLowerCase());
    }
  }
  return map;
}

export function sha256Hex(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * One error per frame whose `<image_id>.jpg` is missing from the cache, or whose bytes disagree
 * with the task's `meta.sha256` for it.
 */
export function panoramaProblems(task: Task, line: number, cacheDir: string): TaskError[] {
  const errors: TaskError[] = [];
  const expected = expectedSha256(task);
  task.frames.forEach((frame, i) => {
    const file = panoramaFile(cacheDir, frame.image_id);
    const field = `frames.${i}.image_id`;
    if (!existsSync(file)) {
      errors.push({ line, field, message: `no panorama ${file}` });
      return;
    }
    const want = expected.get(frame.image_id);
    if (want === undefined) return;
    const actual = sha256Hex(readFileSync(file));
    if (actual !== want) {
      errors.push({ line, field, message: `image ${frame.image_id}: ${file} has sha256 ${actual}, meta.sha256 expects ${want}` });
    }
  });
  return errors;
}

/**
 * Null when the start frame's panorama of a task is in `cacheDir`; otherwise the one line that
 * says what is missing and how to get it (docs/protocol.md: checked before an episode starts).
 */
export function startPanoramaProblem(task: Task, where: string, cacheDir: string): string | null {
  const frameIndex = task.start_frame ?? 0;
  const imageId = task.frames[frameIndex]?.image_id ?? '';
  const path = panoramaFile(cacheDir, imageId);
  if (existsSync(path)) return null;
  return `cannot start ${where} (${task.task_id}), frame ${frameIndex}: ${new MissingPanoramaError(imageId, path).message}`;
}
