/**
 * Where a panorama's JPEG lives: `<cacheDir>/<image_id>.jpg` (2048x1024), or `<image_id>.orig.jpg`
 * (full resolution) for narrow views (DESIGN §1.1). Ids are checked before they touch the file
 * system, so no id resolves outside the cache (DESIGN §12). Demo panoramas are drawn on first use.
 */
import { IMAGE_ID_PATTERN } from '../../core/tasks.js';
import { fileExists } from '../../files.js';
import { panoramaFile } from '../../tasks/panoramas.js';
import { ensureDemoPanorama } from '../../demo/cache.js';
import type { PanoramaTask } from '../../demo/scenes.js';
import { EnvError } from '../types.js';

export interface PanoramaSourceOptions {
  /** Tasks whose missing panoramas may be generated (the demo dataset). */
  demoTasks?: readonly PanoramaTask[];
}

export class PanoramaSource {
  private readonly demoFrames = new Map<string, { task: PanoramaTask; frameIndex: number }>();
  /** Drawing a demo panorama takes about a second: concurrent first looks share one drawing. */
  private readonly generating = new Map<string, Promise<string>>();

  constructor(
    readonly cacheDir: string,
    options: PanoramaSourceOptions = {},
  ) {
    for (const task of options.demoTasks ?? []) {
      task.frames.forEach((frame, frameIndex) => this.demoFrames.set(frame.image_id, { task, frameIndex }));
    }
  }

  /**
   * The file to decode for `imageId`: the full-resolution original when `orig` is asked for and
   * present, else the standard JPEG, generated first for a demo frame.
   */
  async resolve(imageId: string, { orig }: { orig: boolean }): Promise<string> {
    if (!IMAGE_ID_PATTERN.test(imageId) || imageId.includes('..')) {
      throw new EnvError('VALIDATION_ERROR', `image_id ${JSON.stringify(imageId)} is not a file-safe id (letters, digits, "_", "-", ".")`);
    }
    if (orig) {
      const original = panoramaFile(this.cacheDir, imageId, true);
      if (await fileExists(original)) return original;
    }
    const standard = panoramaFile(this.cacheDir, imageId);
    if (await fileExists(standard)) return standard;
    const demo = this.demoFrames.get(imageId);
    if (demo) return this.generate(imageId, demo.task, demo.frameIndex);
    throw new EnvError('EXECUTION_ERROR', `panorama ${standard} is missing: sync the panorama cache or point the environment at the right one`);
  }

  private generate(imageId: string, task: PanoramaTask, frameIndex: number): Promise<string> {
    let pending = this.generating.get(imageId);
    if (!pending) {
      pending = ensureDemoPanorama(this.cacheDir, task, frameIndex).finally(() => this.generating.delete(imageId));
      this.generating.set(imageId, pending);
    }
    return pending;
  }
}
