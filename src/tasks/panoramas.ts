/** Which frames of a task set have no panorama in a cache directory. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Task, TaskError } from '../core/tasks.js';

/** Where a panorama lives in a cache: `<image_id>.jpg`, or `<image_id>.orig.jpg` at full resolution. */
export function panoramaFile(cacheDir: string, imageId: string, orig = false): string {
  return join(cacheDir, `${imageId}${orig ? '.orig' : ''}.jpg`);
}

/** One error per frame whose `<image_id>.jpg` is missing from the cache. */
export function missingPanoramas(task: Task, line: number, cacheDir: string): TaskError[] {
  const errors: TaskError[] = [];
  task.frames.forEach((frame, i) => {
    const file = panoramaFile(cacheDir, frame.image_id);
    if (!existsSync(file)) errors.push({ line, field: `frames.${i}.image_id`, message: `no panorama ${file}` });
  });
  return errors;
}
