/**
 * The agent's view (docs/protocol.md): a square JPEG (q85, no metadata) reprojected from the frame's
 * equirectangular panorama. Decoded panoramas stay in a byte-capped LRU so a look or pan at a
 * known panorama skips the JPEG decode; rendered views are never cached (docs/budgets.md).
 */
import { readFile } from 'node:fs/promises';
import { EnvError, type Camera, type PanoramaRef, type ViewRenderer } from '../types.js';
import { collectGarbage } from './collect.js';
import { ByteLru } from './lru.js';
import type { PanoramaSource } from './panorama-source.js';
import { checkViewArgs, packedFromRgba, reprojectRows, type PackedPanorama } from './reproject.js';
import { ViewPool, sharedViewBuffer, toShared } from './view-pool.js';
import { sharpModule } from '../../vendor/commonjs.js';

const sharp = sharpModule();

// libvips keeps recent operations and their pixels (up to 50 MB) for reuse; a renderer decodes each
// panorama once into its own LRU (below), so that cache only holds memory a sweep could use
// (docs/env.md, "Memory").
sharp.cache(false);

const JPEG_QUALITY = 85;
/** At this field of view or narrower the full-resolution original is used when there is one (docs/formats.md). */
export const ORIG_MAX_FOV_DEG = 45;
/** Room for about 85 standard panoramas (6 MiB each) or a few full-resolution originals. */
export const DEFAULT_CACHE_BYTES = 512 * 1024 * 1024;
/** Views are for models and people: larger ones only cost memory. */
export const MAX_VIEW_PX = 4096;
/** Raw view buffers kept for reuse between views (a 640 px one is 1.2 MB). */
const SPARE_VIEW_BYTES = 32 * 1024 * 1024;
/**
 * Panorama bytes dropped (evicted from the cache, or decode buffers done with) after which every
 * thread collects its garbage: the most memory held beyond the cache cap by panoramas no longer
 * used, about 8 standard panoramas (see collect.ts).
 */
const COLLECT_AFTER_BYTES = 32 * 1024 * 1024;

export interface PanoramaRendererOptions {
  /** Byte cap of the decoded-panorama LRU (4 bytes a pixel); default 512 MiB. */
  cacheBytes?: number;
  /**
   * Worker threads that reproject (default 0: on the calling thread). A server with concurrent
   * sessions wants one per core; call close() when done.
   */
  workers?: number;
}

export class PanoramaRenderer implements ViewRenderer {
  private readonly decoded: ByteLru<PackedPanorama>;
  /** Decodes in flight, so concurrent requests for one panorama share one decode. */
  private readonly decoding = new Map<string, Promise<PackedPanorama>>();
  private readonly pool: ViewPool | undefined;
  private readonly buffers: ViewBuffers;
  /** Bytes of panoramas dropped since the last collection. */
  private dropped = 0;
  /** Views being made (decode, draw, encode) at most at a time; see renderView. */
  private readonly slots: Slots;

  constructor(
    readonly source: PanoramaSource,
    { cacheBytes = DEFAULT_CACHE_BYTES, workers = 0 }: PanoramaRendererOptions = {},
  ) {
    this.decoded = new ByteLru<PackedPanorama>(cacheBytes, (_key, _image, bytes) => this.drop(bytes));
    this.pool = workers > 0 ? new ViewPool(workers) : undefined;
    this.buffers = new ViewBuffers(this.pool !== undefined);
    this.slots = new Slots(Math.max(4, 2 * workers));
  }

  async renderView(pano: PanoramaRef, camera: Camera, sizePx: number): Promise<Buffer> {
    if (!Number.isInteger(sizePx) || sizePx < 1 || sizePx > MAX_VIEW_PX) {
      throw new RangeError(`view size must be an integer from 1 to ${MAX_VIEW_PX} px, got ${sizePx}`);
    }
    // Finding the file may mean fetching or drawing it: slow, but no memory, so not in a slot.
    const path = await this.source.resolve(pano.imageId, { orig: camera.fovDeg <= ORIG_MAX_FOV_DEG });
    // Many sessions at once (a sweep with 96 episodes in flight) would otherwise decode a panorama
    // each long before the workers can draw them, holding them all: decodes and draws are CPU-bound,
    // so a few views at a time keep every core busy and the rest wait holding nothing.
    await this.slots.take();
    try {
      return await this.draw(path, pano, camera, sizePx);
    } finally {
      this.slots.give();
    }
  }

  private async draw(path: string, pano: PanoramaRef, camera: Camera, sizePx: number): Promise<Buffer> {
    const image = await this.decodedAt(path);
    // The centre column faces compassAngle, so true heading H sits H - compassAngle to its right (docs/protocol.md).
    const yawDeg = camera.headingDeg - pano.compassAngle;
    const { pitchDeg, fovDeg } = camera;
    checkViewArgs(image, yawDeg, pitchDeg, fovDeg, sizePx); // here, so a worker never sees a bad request
    const rgb = this.buffers.take(sizePx);
    try {
      if (this.pool) await this.pool.run({ pano: image, yawDeg, pitchDeg, fovDeg, sizePx }, rgb);
      else reprojectRows(image, yawDeg, pitchDeg, fovDeg, sizePx, rgb, 0, sizePx);
      // sharp encodes on libuv's pool, off the main thread, and writes no EXIF/XMP unless asked.
      // Without optimised Huffman tables the file is about 6% larger, the pixels the same and the
      // encode twice as fast.
      return await sharp(rgb, { raw: { width: sizePx, height: sizePx, channels: 3 } })
        .jpeg({ quality: JPEG_QUALITY, optimiseCoding: false })
        .toBuffer();
    } finally {
      this.buffers.give(rgb); // sharp has finished reading it
    }
  }

  /** The decoded panorama for an image id, from the LRU or decoded once however many ask at a time. */
  async panorama(imageId: string, orig: boolean): Promise<PackedPanorama> {
    return this.decodedAt(await this.source.resolve(imageId, { orig }));
  }

  private decodedAt(path: string): Promise<PackedPanorama> {
    const cached = this.decoded.get(path);
    if (cached) return Promise.resolve(cached);
    let pending = this.decoding.get(path);
    if (!pending) {
      pending = decode(path)
        .then((decoded) => {
          // Shared memory when workers draw the views. Without workers, libvips' own buffer is kept
          // until the cache starts to evict; from then on a copy made here is: libvips allocates on
          // the thread that decoded, glibc keeps a freed block in that thread's arena, and a cache
          // churning through such buffers kept ~200 MiB more resident than its cap over a long
          // sweep (docs/env.md, "Memory"). A copy costs fresh pages (~25 ms here), so a sweep whose
          // panoramas all fit pays none.
          const bytes = decoded.data.byteLength;
          const evicting = this.decoded.bytes + bytes > this.decoded.capBytes;
          const image = this.pool ? toShared(decoded) : evicting ? { ...decoded, data: decoded.data.slice() } : decoded;
          this.decoded.set(path, image, bytes);
          // The decode buffer, once copied, and a panorama too large to keep are garbage as soon
          // as this view is drawn; counted now, collected after a later view.
          this.drop((image !== decoded ? bytes : 0) + (bytes > this.decoded.capBytes ? bytes : 0));
          return image;
        })
        .finally(() => this.decoding.delete(path));
      this.decoding.set(path, pending);
    }
    return pending;
  }

  /**
   * Counts panorama bytes that became garbage; past COLLECT_AFTER_BYTES, collects on this thread
   * and asks each worker to do the same, so their memory goes back before more is decoded.
   */
  private drop(bytes: number): void {
    this.dropped += bytes;
    if (this.dropped < COLLECT_AFTER_BYTES) return;
    this.dropped = 0;
    collectGarbage();
    this.pool?.collect();
  }

  /** Bytes of decoded panoramas held. */
  get cachedBytes(): number {
    return this.decoded.bytes;
  }

  /** Forgets every decoded panorama (the next look decodes again). */
  clearCache(): void {
    this.decoded.clear();
  }

  /** Stops the worker threads, if any; views asked for afterwards fail. */
  async close(): Promise<void> {
    await this.pool?.close();
  }
}

/** A counting semaphore, first come first served. */
class Slots {
  private readonly waiting: (() => void)[] = [];

  constructor(private free: number) {}

  take(): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  give(): void {
    const next = this.waiting.shift();
    if (next) next(); // the slot passes straight to the next in line
    else this.free++;
  }
}

/**
 * Raw view buffers (sizePx * sizePx RGB bytes) reused between views, shared memory when workers
 * draw into them. A buffer is taken for one view and given back once its JPEG is encoded.
 */
class ViewBuffers {
  private readonly spare: Uint8Array[] = [];
  private spareBytes = 0;

  constructor(private readonly shared: boolean) {}

  take(sizePx: number): Uint8Array {
    const at = this.spare.findIndex((buffer) => buffer.length === sizePx * sizePx * 3);
    if (at < 0) return this.shared ? sharedViewBuffer(sizePx) : new Uint8Array(sizePx * sizePx * 3);
    const [buffer] = this.spare.splice(at, 1);
    this.spareBytes -= buffer!.length;
    return buffer!;
  }

  give(buffer: Uint8Array): void {
    // Newest first; the oldest spares go when the cap is reached.
    this.spare.unshift(buffer);
    this.spareBytes += buffer.length;
    while (this.spareBytes > SPARE_VIEW_BYTES) this.spareBytes -= this.spare.pop()!.length;
  }
}

/**
 * The packed pixels of a JPEG. The file is read here rather than handed to sharp by name so that
 * libvips' own operation cache cannot keep a second decoded copy behind the LRU's back.
 */
async function decode(path: string): Promise<PackedPanorama> {
  try {
    const { data, info } = await sharp(await readFile(path))
      .toColourspace('srgb')
      .ensureAlpha(1)
      .raw()
      .toBuffer({ resolveWithObject: true });
    return packedFromRgba(data, info.width, info.height);
  } catch (error) {
    throw new EnvError('EXECUTION_ERROR', `cannot decode panorama ${path}: ${(error as Error).message}`);
  }
}
