/**
 * Small real renderers for engine tests: they return real image bytes made with sharp and record
 * every call, so tests can check what the engine drew and which coordinates reached a map.
 * - views: a solid-colour JPEG whose colour encodes the camera (red = heading, green = field of
 *   view, blue = pitch), so a test can read back which way the engine looked;
 * - maps: a solid PNG, green for a map and red for the reveal.
 */
import sharp from 'sharp';
import type { Camera, MapPin, MapRenderer, PanoramaRef, ViewRenderer } from '../../../src/env/types.js';

/** The colour a view at this camera is painted with. */
export function cameraColour(camera: Camera): { r: number; g: number; b: number } {
  return {
    r: Math.round((camera.headingDeg / 360) * 255),
    g: Math.round((camera.fovDeg / 120) * 255),
    b: Math.round(((camera.pitchDeg + 90) / 180) * 255),
  };
}

/** The mean colour of an image given as base64, rounded. */
export async function meanColour(base64: string): Promise<{ r: number; g: number; b: number }> {
  const { channels } = await sharp(Buffer.from(base64, 'base64')).stats();
  const [r, g, b] = channels.map((c) => Math.round(c.mean));
  return { r: r!, g: g!, b: b! };
}

export async function imageFormat(base64: string): Promise<string | undefined> {
  return (await sharp(Buffer.from(base64, 'base64')).metadata()).format;
}

function solid(size: number, colour: { r: number; g: number; b: number }) {
  return sharp({ create: { width: size, height: size, channels: 3, background: colour } });
}

export interface ViewCall {
  pano: PanoramaRef;
  camera: Camera;
  sizePx: number;
}

export class RecordingViewRenderer implements ViewRenderer {
  readonly calls: ViewCall[] = [];
  /** Set to make the next call fail (a missing panorama, say). */
  failNext = false;
  private started = 0;

  /** `delayMs(n)` holds the n-th call (from 0) back, to shuffle completion order in concurrency tests. */
  constructor(private readonly delayMs: (call: number) => number = () => 0) {}

  async renderView(pano: PanoramaRef, camera: Camera, sizePx: number): Promise<Buffer> {
    const delay = this.delayMs(this.started++);
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
    if (this.failNext) {
      this.failNext = false;
      throw new Error(`panorama ${pano.imageId}.jpg is not in the cache`);
    }
    this.calls.push({ pano, camera: { ...camera }, sizePx });
    return solid(sizePx, cameraColour(camera)).jpeg({ quality: 95 }).toBuffer();
  }
}

export interface MapCall {
  centerLat: number;
  centerLon: number;
  spanDeg: number;
  pins: MapPin[];
}

export interface RevealCall {
  guess: { lat: number; lon: number } | null;
  truth: { lat: number; lon: number };
  pins: MapPin[];
}

export class RecordingMapRenderer implements MapRenderer {
  readonly maps: MapCall[] = [];
  readonly reveals: RevealCall[] = [];
  /** Every call in order, to check that the reveal comes last. */
  readonly order: ('map' | 'reveal')[] = [];

  constructor(private readonly sizePx = 32) {}

  async renderMap(request: MapCall): Promise<Buffer> {
    this.maps.push(structuredClone(request));
    this.order.push('map');
    return solid(this.sizePx, { r: 0, g: 200, b: 0 }).png().toBuffer();
  }

  async renderReveal(request: RevealCall): Promise<Buffer> {
    this.reveals.push(structuredClone(request));
    this.order.push('reveal');
    return solid(this.sizePx, { r: 200, g: 0, b: 0 }).png().toBuffer();
  }
}
