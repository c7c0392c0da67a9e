/**
 * Lazy panorama cache for the demo dataset: a panorama is rendered the first time something asks
 * for it and kept as `<cacheDir>/<image_id>.jpg`, so a fresh workspace is ready in seconds.
 */
import { fileExists, writeFileAtomic } from '../files.js';
import { panoramaFile } from '../tasks/panoramas.js';
import { renderDemoPanorama } from './panorama.js';
import type { PanoramaTask } from './scenes.js';

/** Image ids become file names: only these characters may reach the file system (docs/reliability.md). */
const SAFE_IMAGE_ID = /^[A-Za-z0-9_-]{1,128}$/;

export function demoPanoramaPath(cacheDir: string, imageId: string): string {
  if (!SAFE_IMAGE_ID.test(imageId)) {
    throw new Error(`image_id ${JSON.stringify(imageId)} is not path-safe: use only letters, digits, "_" and "-"`);
  }
  return panoramaFile(cacheDir, imageId);
}


/**
 * The panorama of frame `frameIndex`, rendered and written only when missing. The write goes to a
 * unique temp file renamed into place, so a reader never sees half a JPEG and two racing writers
 * both leave the same complete bytes.
 */
export async function ensureDemoPanorama(cacheDir: string, task: PanoramaTask, frameIndex: number): Promise<string> {
  const frame = task.frames[frameIndex];
  if (!frame) throw new RangeError(`frame ${frameIndex} out of range (task has ${task.frames.length} frames)`);
  const path = demoPanoramaPath(cacheDir, frame.image_id);
  if (await fileExists(path)) return path;
  const jpeg = await renderDemoPanorama(task, frameIndex);
  writeFileAtomic(path, jpeg);
  return path;
}

export interface EnsureAllOptions {
  /** Renders in flight at once (default 2: the reference machine has two cores). */
  concurrency?: number;
  onProgress?: (done: number, total: number) => void;
}

/** Every frame of every task, for tests and CI; returns the paths in task and frame order. */
export async function ensureAllDemoPanoramas(
  cacheDir: string,
  tasks: readonly PanoramaTask[],
  { concurrency = 2, onProgress }: EnsureAllOptions = {},
): Promise<string[]> {
  const jobs = tasks.flatMap((task) => task.frames.map((_, frameIndex) => ({ task, frameIndex })));
  const paths: string[] = new Array<string>(jobs.length);
  let next = 0;
  let done = 0;
  const worker = async (): Promise<void> => {
    while (next < jobs.length) {
      const index = next++;
      const job = jobs[index]!;
      paths[index] = await ensureDemoPanorama(cacheDir, job.task, job.frameIndex);
      onProgress?.(++done, jobs.length);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, jobs.length)) }, worker));
  return paths;
}
