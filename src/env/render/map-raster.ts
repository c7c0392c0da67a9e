import type { Sharp } from 'sharp';
import { sharpModule } from '../../vendor/commonjs.js';

const sharp = sharpModule();
/**
 * A small RGB rasteriser for the maps: rectangles, discs, 1-2 px lines and even-odd polygon fill,
 * all aliased, clipped to a rectangle, and encoded as PNG by sharp. Drawing ourselves keeps a 10m
 * map within its time budget (an SVG rasterised by librsvg spends far longer on paths and text)
 * and makes the bytes a pure function of the request.
 */


export type Rgb = readonly [number, number, number];

export interface Rect {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/** zlib level 3: a 768 x 384 map encodes in about 2 ms, at most a third larger than at level 9. */
const PNG_COMPRESSION = 3;

export class Canvas {
  readonly data: Uint8Array;
  /** Drawing is confined to [clipX0, clipX1) x [clipY0, clipY1). */
  private clipX0 = 0;
  private clipY0 = 0;
  private clipX1: number;
  private clipY1: number;

  constructor(
    readonly width: number,
    readonly height: number,
  ) {
    this.data = new Uint8Array(width * height * 3);
    this.clipX1 = width;
    this.clipY1 = height;
  }

  /** Confines drawing to `rect` (the whole canvas when omitted). */
  clip(rect?: Rect): void {
    this.clipX0 = rect ? Math.max(0, rect.x) : 0;
    this.clipY0 = rect ? Math.max(0, rect.y) : 0;
    this.clipX1 = rect ? Math.min(this.width, rect.x + rect.width) : this.width;
    this.clipY1 = rect ? Math.min(this.height, rect.y + rect.height) : this.height;
  }

  pixel(x: number, y: number, colour: Rgb): void {
    if (x < this.clipX0 || x >= this.clipX1 || y < this.clipY0 || y >= this.clipY1) return;
    const i = (y * this.width + x) * 3;
    this.data[i] = colour[0];
    this.data[i + 1] = colour[1];
    this.data[i + 2] = colour[2];
  }

  /** Mixes `colour` over the pixel with weight `alpha` (0..1). */
  blend(x: number, y: number, colour: Rgb, alpha: number): void {
    if (x < this.clipX0 || x >= this.clipX1 || y < this.clipY0 || y >= this.clipY1) return;
    const i = (y * this.width + x) * 3;
    for (let c = 0; c < 3; c++) {
      const v = this.data[i + c] as number;
      this.data[i + c] = Math.round(v + ((colour[c] as number) - v) * alpha);
    }
  }

  /** Fills the pixels [x0, x1) x [y0, y1), rounded to whole pixels. */
  fillRect(x0: number, y0: number, x1: number, y1: number, colour: Rgb): void {
    const xa = Math.max(this.clipX0, Math.round(x0));
    const xb = Math.min(this.clipX1, Math.round(x1));
    for (let y = Math.max(this.clipY0, Math.round(y0)), yb = Math.min(this.clipY1, Math.round(y1)); y < yb; y++) {
      this.span(y, xa, xb, colour);
    }
  }

  /** Outlines the rectangle [x0, x1) x [y0, y1) with a `width`-pixel line inside it. */
  strokeRect(x0: number, y0: number, x1: number, y1: number, colour: Rgb, width = 1): void {
    this.fillRect(x0, y0, x1, y0 + width, colour);
    this.fillRect(x0, y1 - width, x1, y1, colour);
    this.fillRect(x0, y0, x0 + width, y1, colour);
    this.fillRect(x1 - width, y0, x1, y1, colour);
  }

  /** Fills the pixels whose centres lie within `r` of (cx, cy). */
  disc(cx: number, cy: number, r: number, colour: Rgb): void {
    for (let y = Math.ceil(cy - r - 0.5); y + 0.5 <= cy + r; y++) {
      const half = Math.sqrt(Math.max(0, r * r - (y + 0.5 - cy) ** 2));
      this.span(y, Math.ceil(cx - half - 0.5), Math.floor(cx + half - 0.5) + 1, colour);
    }
  }

  /**
   * A straight line (Bresenham) `width` pixels thick, clipped first so that a segment reaching
   * far outside the canvas costs no more than its visible part.
   */
  line(x0: number, y0: number, x1: number, y1: number, colour: Rgb, width = 1): void {
    const [minX, minY] = [this.clipX0 - width, this.clipY0 - width];
    const clipped = clipSegment(x0, y0, x1, y1, minX, minY, this.clipX1 + width, this.clipY1 + width);
    if (!clipped) return;
    let x = Math.floor(clipped[0]);
    let y = Math.floor(clipped[1]);
    const xEnd = Math.floor(clipped[2]);
    const yEnd = Math.floor(clipped[3]);
    const dx = Math.abs(xEnd - x);
    const dy = -Math.abs(yEnd - y);
    const sx = x < xEnd ? 1 : -1;
    const sy = y < yEnd ? 1 : -1;
    const lo = -((width - 1) >> 1);
    let err = dx + dy;
    for (;;) {
      if (width === 1) this.pixel(x, y, colour);
      else this.fillRect(x + lo, y + lo, x + lo + width, y + lo + width, colour);
      if (x === xEnd && y === yEnd) return;
      const e2 = 2 * err;
      if (e2 >= dy) {
        err += dy;
        x += sx;
      }
      if (e2 <= dx) {
        err += dx;
        y += sy;
      }
    }
  }

  /** A vertical line at column x over rows [y0, y1), mixed in with weight `alpha`. */
  blendColumn(x: number, y0: number, y1: number, colour: Rgb, alpha: number): void {
    for (let y = Math.max(this.clipY0, Math.round(y0)); y < Math.min(this.clipY1, Math.round(y1)); y++) {
      this.blend(Math.floor(x), y, colour, alpha);
    }
  }

  /** A horizontal line at row y over columns [x0, x1), mixed in with weight `alpha`. */
  blendRow(y: number, x0: number, x1: number, colour: Rgb, alpha: number): void {
    for (let x = Math.max(this.clipX0, Math.round(x0)); x < Math.min(this.clipX1, Math.round(x1)); x++) {
      this.blend(x, Math.floor(y), colour, alpha);
    }
  }

  /** A copy to draw on, e.g. of a cached background. */
  clone(): Canvas {
    const copy = new Canvas(this.width, this.height);
    copy.data.set(this.data);
    return copy;
  }

  /** Makes this canvas what `from.clone()` would be (same size): its pixels, and no clip. */
  copyFrom(from: Canvas): void {
    if (from.width !== this.width || from.height !== this.height) {
      throw new RangeError(`a ${from.width}x${from.height} canvas does not fit a ${this.width}x${this.height} one`);
    }
    this.data.set(from.data);
    this.clip();
  }

  png(): Promise<Buffer> {
    return this.image().png({ compressionLevel: PNG_COMPRESSION, adaptiveFiltering: false }).toBuffer();
  }

  /** The pixels as a sharp image, to encode otherwise (model-jpeg.ts). */
  image(): Sharp {
    return sharp(this.data, { raw: { width: this.width, height: this.height, channels: 3 } });
  }

  /** Pixels [x0, x1) of row y, clipped. */
  private span(y: number, x0: number, x1: number, colour: Rgb): void {
    if (y < this.clipY0 || y >= this.clipY1) return;
    const from = Math.max(this.clipX0, x0);
    const to = Math.min(this.clipX1, x1);
    const [r, g, b] = colour;
    for (let i = (y * this.width + from) * 3, end = (y * this.width + to) * 3; i < end; i += 3) {
      this.data[i] = r;
      this.data[i + 1] = g;
      this.data[i + 2] = b;
    }
  }
}

/** Liang-Barsky: the part of a segment inside a rectangle, or null. */
function clipSegment(
  x0: number,
  y0: number,
  x1: number,
  y1: number,
  minX: number,
  minY: number,
  maxX: number,
  maxY: number,
): [number, number, number, number] | null {
  const dx = x1 - x0;
  const dy = y1 - y0;
  let t0 = 0;
  let t1 = 1;
  for (const [p, q] of [
    [-dx, x0 - minX],
    [dx, maxX - x0],
    [-dy, y0 - minY],
    [dy, maxY - y0],
  ] as const) {
    if (p === 0) {
      if (q < 0) return null;
    } else {
      const t = q / p;
      if (p < 0) t0 = Math.max(t0, t);
      else t1 = Math.min(t1, t);
      if (t0 > t1) return null;
    }
  }
  return [x0 + t0 * dx, y0 + t0 * dy, x0 + t1 * dx, y0 + t1 * dy];
}

/**
 * Fills, inside `rect`, the even-odd interior of closed outlines given as edges (x1, y1, x2, y2
 * in rect-local pixels, `count` of them), sampling at pixel centres. The outlines may be cut by
 * the rect: each row starts from its parity at the left edge, i.e. how many edges cross the
 * vertical x = 0 above the row centre, plus `aboveParity` for outlines crossing it wholly above the
 * rect that the caller did not pass. Both walks use the same half-open rules, so a row's start
 * state and its crossings never disagree.
 */
export function fillEvenOdd(
  canvas: Canvas,
  rect: Rect,
  edges: Float64Array,
  count: number,
  aboveParity: number,
  colour: Rgb,
): void {
  const rows = rect.height;
  const startToggle = new Uint8Array(rows + 1);
  startToggle[0] = aboveParity & 1;
  const perRow = new Int32Array(rows + 1);
  for (let e = 0; e < count; e++) {
    const x1 = edges[4 * e] as number;
    const y1 = edges[4 * e + 1] as number;
    const x2 = edges[4 * e + 2] as number;
    const y2 = edges[4 * e + 3] as number;
    if (x1 > 0 !== x2 > 0) {
      const yc = y1 + ((0 - x1) * (y2 - y1)) / (x2 - x1);
      // Rows whose centre r + 0.5 lies below the crossing.
      const r = Math.min(rows, Math.max(0, Math.floor(yc - 0.5) + 1));
      startToggle[r] = (startToggle[r] as number) ^ 1;
    }
    const [r0, r1] = rowRange(y1, y2, rows);
    for (let r = r0; r < r1; r++) perRow[r + 1] = (perRow[r + 1] as number) + 1;
  }
  for (let r = 0; r < rows; r++) perRow[r + 1] = (perRow[r + 1] as number) + (perRow[r] as number);
  const crossings = new Float64Array(perRow[rows] as number);
  const next = perRow.slice(0, rows);
  for (let e = 0; e < count; e++) {
    const x1 = edges[4 * e] as number;
    const y1 = edges[4 * e + 1] as number;
    const x2 = edges[4 * e + 2] as number;
    const y2 = edges[4 * e + 3] as number;
    const [r0, r1] = rowRange(y1, y2, rows);
    const slope = (x2 - x1) / (y2 - y1);
    for (let r = r0; r < r1; r++) {
      const at = next[r] as number;
      crossings[at] = x1 + (r + 0.5 - y1) * slope;
      next[r] = at + 1;
    }
  }
  let inside = 0;
  for (let r = 0; r < rows; r++) {
    inside ^= startToggle[r] as number;
    const row = crossings.subarray(perRow[r] as number, perRow[r + 1] as number).sort();
    let state = inside;
    let from = 0;
    const y = rect.y + r;
    for (const x of row) {
      if (x <= 0) continue;
      if (state) canvas.fillRect(rect.x + from, y, rect.x + Math.min(rect.width, Math.ceil(x - 0.5)), y + 1, colour);
      if (x >= rect.width) {
        state = 0;
        break;
      }
      state ^= 1;
      from = Math.ceil(x - 0.5);
    }
    if (state) canvas.fillRect(rect.x + from, y, rect.x + rect.width, y + 1, colour);
  }
}

/** Rows [r0, r1) whose centres y = r + 0.5 an edge from y1 to y2 crosses (half-open in y). */
function rowRange(y1: number, y2: number, rows: number): [number, number] {
  const lo = Math.min(y1, y2);
  const hi = Math.max(y1, y2);
  return [Math.max(0, Math.ceil(lo - 0.5)), Math.min(rows, Math.ceil(hi - 0.5))];
}
