/**
 * Where a panorama's JPEG lives: `<cacheDir>/<image_id>.jpg` (2048x1024), or `<image_id>.orig.jpg`
 * (full resolution) for narrow views (docs/formats.md). A task set may keep its panoramas in a cache of
 * its own. Ids are checked before they touch the file system, so no id resolves outside a cache
 * (docs/reliability.md). Demo panoramas are drawn on first use; others are fetched on a miss when a fetcher
 * is given, else the miss is a MissingPanoramaError naming the image and the path looked up.
 */
import type { Task } from '../../core/tasks.js';
import { IMAGE_ID_PATTERN } from '../../core/tasks.js';
import { fileExists } from '../../files.js';
import type { PanoramaFetcher } from '../../tasks/mapillary.js';
import { expectedSha256, MissingPanoramaError, panoramaFile } from '../../tasks/panoramas.js';
import { ensureDemoPanorama } from '../../demo/cache.js';
import type { PanoramaTask } from '../../demo/scenes.js';
import { EnvError } from '../types.js';

export interface PanoramaSourceOptions {
  /** Tasks whose missing panoramas may be generated (the demo dataset). */
  demoTasks?: readonly PanoramaTask[];
  /** Served tasks by cache: `dir` (default: the source's cacheDir) and each image's `meta.sha256`. */
  served?: readonly { tasks: readonly Task[]; dir?: string }[];
  /** Fills a cache miss (Mapillary with a token); without one a miss is an error. */
  fetcher?: PanoramaFetcher;
}

interface Place {
  dir?: string;
  sha256?: string;
}

export class PanoramaSource {
  private readonly demoFrames = new Map<string, { task: PanoramaTask; frameIndex: number }>();
  /** Images outside the default cache or with a recorded checksum (most images have neither). */
  private readonly places = new Map<string, Place>();
  /** Drawing a demo panorama takes about a second, a fetch longer: concurrent first looks share one. */
  private readonly pending = new Map<string, Promise<string>>();
  private readonly fetcher: PanoramaFetcher | undefined;

  constructor(
    readonly cacheDir: string,
    options: PanoramaSourceOptions = {},
  ) {
    for (const task of options.demoTasks ?? []) {
      task.frames.forEach((frame, frameIndex) => this.demoFrames.set(frame.image_id, { task, frameIndex }));
    }
    for (const { tasks, dir } of options.served ?? []) {
      const own = dir !== undefined && dir !== cacheDir ? dir : undefined;
      for (const task of tasks) {
        const sums = expectedSha256(task);
        if (!own && sums.size === 0) continue;
        for (const frame of task.frames) this.places.set(frame.image_id, { dir: own, sha256: sums.get(frame.image_id) });
      }
    }
    this.fetcher = options.fetcher;
  }

  /** The cache directory an image's panorama belongs in. */
  dirOf(imageId: string): string {
    return this.places.get(imageId)?.dir ?? this.cacheDir;
  }

  /**
   * The file to decode for `imageId`: the full-resolution original when `orig` is asked for and
   * present (or fetchable), else the standard JPEG, generated first for a demo frame or fetched.
   */
  async resolve(imageId: string, { orig }: { orig: boolean }): Promise<string> {
    if (!IMAGE_ID_PATTERN.test(imageId) || imageId.includes('..')) {
      throw new EnvError('VALIDATION_ERROR', `image_id ${JSON.stringify(imageId)} is not a file-safe id (letters, digits, "_", "-", ".")`);
    }
    const dir = this.dirOf(imageId);
    if (orig) {
      const original = panoramaFile(dir, imageId, true);
      if (await fileExists(original)) return original;
      // A missing original must not end an episode: a softer view from the standard JPEG beats that.
      if (this.fetcher && !this.demoFrames.has(imageId)) {
        const fetched = await this.fetch(imageId, dir, true).catch(() => undefined);
        if (fetched) return fetched;
      }
    }
    const standard = panoramaFile(dir, imageId);
    if (await fileExists(standard)) return standard;
    const demo = this.demoFrames.get(imageId);
    if (demo) return this.once(imageId, () => ensureDemoPanorama(dir, demo.task, demo.frameIndex));
    if (this.fetcher) {
      try {
        return await this.fetch(imageId, dir, false);
      } catch (err) {
        throw new MissingPanoramaError(imageId, standard, `is not in the cache and could not be fetched: ${(err as Error).message}`);
      }
    }
    throw new MissingPanoramaError(imageId, standard);
  }

  private fetch(imageId: string, dir: string, orig: boolean): Promise<string> {
    const fetcher = this.fetcher!;
    const sha256 = this.places.get(imageId)?.sha256;
    return this.once(`${imageId}${orig ? '.orig' : ''}`, () => fetcher.fetch({ imageId, cacheDir: dir, orig, sha256 }));
  }

  private once(key: string, make: () => Promise<string>): Promise<string> {
    let pending = this.pending.get(key);
    if (!pending) {
      pending = make().finally(() => this.pending.delete(key));
      this.pending.set(key, pending);
    }
    return pending;
  }
}
