/**
 * Gnomonic (rectilinear) views of an equirectangular panorama: one ray per output pixel, pitch about
 * x then yaw about y, longitude 0 at the centre column increasing to the right, row 0 at +90 latitude
 * (the geometry of shared/bench/numpy_remap.py), sampled bilinearly with horizontal wrap-around and
 * vertical clamp.
 *
 * Why it is fast (docs/budgets.md wants it several times faster than the vectorised numpy version):
 * - Yaw about the vertical axis only adds to longitude: it is a column offset, not a rotation.
 * - Pitch about x mixes only y and z, so each output row has a single (y, z) pair; longitude is
 *   then atan2(x, z) and latitude atan2(y, hypot(x, z)): no normalisation, no asin.
 * - Columns j and size-1-j have opposite x, hence opposite longitudes and equal latitudes, so each
 *   angle pair serves two pixels; atan is a short polynomial instead of Math.atan2.
 * - Source positions are fixed point with 7 fractional bits, so sampling is integer-only and two
 *   8-bit channels share one multiply (see sampleRow). 1/128 px is far below what a JPEG view shows.
 * - Panoramas are kept packed, one RGBA pixel per 32-bit word (PackedPanorama), so a bilinear tap
 *   is one read instead of three.
 * - The caller owns the output: a renderer reuses its view buffers (allocating and faulting in a
 *   fresh 1.2 MB per view cost as much as a third of the reprojection).
 * Integer arithmetic also makes the output exact: the same input always gives the same bytes.
 */

export interface RgbImage {
  /** Row-major RGB, 3 bytes per pixel, no padding. */
  data: Uint8Array;
  width: number;
  height: number;
}

/**
 * A panorama as reprojectRows reads it: row-major pixels, one per word, red in the low byte and then
 * green, blue and alpha: RGBA bytes (as sharp's `.ensureAlpha().raw()` gives them) seen through a
 * Uint32Array on a little-endian machine.
 */
export interface PackedPanorama {
  data: Uint32Array;
  width: number;
  height: number;
}

/** Packed pixels need the platform's byte order to put red in the low byte. */
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** RGBA bytes (4 per pixel, no padding) as a PackedPanorama sharing their memory, or copied when unaligned. */
export function packedFromRgba(rgba: Uint8Array, width: number, height: number): PackedPanorama {
  if (!LITTLE_ENDIAN) throw new Error('packed panoramas assume a little-endian machine');
  if (rgba.length !== width * height * 4) throw new RangeError(`panorama data (${rgba.length} bytes) is not ${width}x${height} RGBA`);
  const aligned = rgba.byteOffset % 4 === 0 ? rgba : rgba.slice();
  return { data: new Uint32Array(aligned.buffer, aligned.byteOffset, width * height), width, height };
}

/** An RGB image packed for reprojectRows (a copy). */
export function packRgb({ data, width, height }: RgbImage): PackedPanorama {
  if (data.length !== width * height * 3) throw new RangeError(`image data (${data.length} bytes) is not ${width}x${height} RGB`);
  const rgba = new Uint8Array(width * height * 4);
  for (let i = 0, j = 0; i < data.length; i += 3, j += 4) {
    rgba[j] = data[i]!;
    rgba[j + 1] = data[i + 1]!;
    rgba[j + 2] = data[i + 2]!;
    rgba[j + 3] = 255;
  }
  return packedFromRgba(rgba, width, height);
}

const DEG = Math.PI / 180;
const HALF_PI = Math.PI / 2;
const FRACTION_BITS = 7;
const ONE = 1 << FRACTION_BITS;
const FRACTION_MASK = ONE - 1;
/** Two 8-bit channels 16 bits apart in one int32 (and the rounding half for each). */
const LANES = 0xff00ff;
const LANE_HALF = (ONE / 2) * 0x10001;
const MAX_SIDE = 1 << 22;

/**
 * atan(a) for 0 <= a <= 1: an odd polynomial fitted near-minimax on [0, 1], |error| <= 1.2e-5 rad,
 * i.e. 0.004 px on a 2048-px-wide panorama and 0.03 px on a 16384-px one.
 */
function atanUnit(a: number): number {
  const s = a * a;
  return a * (0.999866368 + s * (-0.3303054291 + s * (0.1801620675 + s * (-0.0851606446 + s * 0.02084728362))));
}

/**
 * Rows [rowStart, rowEnd) of the view at yaw `yawDeg` (from the panorama's centre column, positive
 * to the right), pitch `pitchDeg` (positive up) and field of view `fovDeg` (horizontal = vertical),
 * into `out` (sizePx * sizePx RGB bytes, which the caller reuses): workers each draw a band of one
 * view into shared memory, so a single view uses every core.
 */
export function reprojectRows(
  pano: PackedPanorama,
  yawDeg: number,
  pitchDeg: number,
  fovDeg: number,
  sizePx: number,
  out: Uint8Array,
  rowStart: number,
  rowEnd: number,
): void {
  checkViewArgs(pano, yawDeg, pitchDeg, fovDeg, sizePx);
  if (out.length !== sizePx * sizePx * 3 || !(0 <= rowStart && rowStart <= rowEnd && rowEnd <= sizePx)) {
    throw new RangeError(`rows ${rowStart}..${rowEnd} or an output of ${out.length} bytes do not fit a ${sizePx} px view`);
  }
  const { data, width: w, height: h } = pano;
  const us = new Int32Array(sizePx);
  const vs = new Int32Array(sizePx);
  const focal = (0.5 * sizePx) / Math.tan((fovDeg * DEG) / 2);
  const cosP = Math.cos(pitchDeg * DEG);
  const sinP = Math.sin(pitchDeg * DEG);
  const uPerRad = (w / (2 * Math.PI)) * ONE;
  const vPerRad = (h / Math.PI) * ONE;
  const wFixed = w << FRACTION_BITS;
  const vMax = (h - 1) << FRACTION_BITS;
  // Bilinear taps sit on pixel centres (pixel k spans [k, k+1)), hence the -0.5; +0.5 / ONE rounds.
  // One extra turn keeps every column positive, so wrapping is two conditional subtractions.
  const yawTurns = (((yawDeg / 360) % 1) + 1) % 1;
  const uCentre = (w / 2 - 0.5 + yawTurns * w + w) * ONE + 0.5;
  const vTop = (h / 2 - 0.5) * ONE + 0.5;
  const half = (sizePx + 1) >> 1;

  for (let row = rowStart; row < rowEnd; row++) {
    const y = sizePx / 2 - 0.5 - row;
    const y2 = y * cosP + focal * sinP;
    const z2 = focal * cosP - y * sinP;
    const ay2 = Math.abs(y2);
    const az2 = Math.abs(z2);
    for (let j = 0; j < half; j++) {
      const x = sizePx / 2 - 0.5 - j; // |x| of column j and of its mirror
      let lon = x > az2 ? HALF_PI - atanUnit(az2 / x) : az2 > 0 ? atanUnit(x / az2) : 0; // straight up or down
      if (z2 < 0) lon = Math.PI - lon;
      const r = Math.sqrt(x * x + z2 * z2);
      let lat = ay2 > r ? HALF_PI - atanUnit(r / ay2) : atanUnit(ay2 / r); // r = 0 implies ay2 > 0
      if (y2 < 0) lat = -lat;
      let v = (vTop - lat * vPerRad) | 0;
      if (v < 0) v = 0;
      else if (v > vMax) v = vMax;
      const du = lon * uPerRad;
      let left = (uCentre - du) | 0;
      let right = (uCentre + du) | 0;
      if (left >= wFixed) left -= wFixed;
      if (left >= wFixed) left -= wFixed;
      if (right >= wFixed) right -= wFixed;
      if (right >= wFixed) right -= wFixed;
      us[j] = left;
      us[sizePx - 1 - j] = right;
      vs[j] = vs[sizePx - 1 - j] = v;
    }
    sampleRow(data, w, h, us, vs, out, row * sizePx * 3);
  }
}

/** Throws a RangeError naming the first argument reprojectRows cannot work with. */
export function checkViewArgs(pano: PackedPanorama, yawDeg: number, pitchDeg: number, fovDeg: number, sizePx: number): void {
  const { data, width: w, height: h } = pano;
  // Fixed-point coordinates (up to three turns) and byte offsets must fit an int32.
  const sized = Number.isInteger(w) && Number.isInteger(h) && w >= 1 && h >= 1 && w <= MAX_SIDE && h <= MAX_SIDE;
  if (!sized || data.length !== w * h || data.length >= 2 ** 31) {
    throw new RangeError(`panorama data (${data.length} pixels) is not ${w}x${h}, or larger than ${MAX_SIDE} px or 2^31 pixels`);
  }
  if (!Number.isInteger(sizePx) || sizePx < 1) throw new RangeError(`view size must be a positive integer, got ${sizePx}`);
  if (!(fovDeg > 0 && fovDeg < 180)) throw new RangeError(`field of view must be in (0, 180) degrees, got ${fovDeg}`);
  if (!Number.isFinite(yawDeg) || !Number.isFinite(pitchDeg)) throw new RangeError('yaw and pitch must be finite numbers');
}

/**
 * Bilinear samples at fixed-point source positions (us[k], vs[k]) into consecutive output pixels.
 * Red and blue travel together as r | b << 16 (and the top and bottom greens likewise), so one
 * multiply weighs two channels; 7-bit weights keep 255 << 16 times a weight inside an int32, and
 * Math.imul multiplies int32s without the overflow check that `*` needs.
 */
function sampleRow(data: Uint32Array, w: number, h: number, us: Int32Array, vs: Int32Array, out: Uint8Array, o: number): void {
  const n = us.length;
  for (let k = 0; k < n; k++, o += 3) {
    const u = us[k]!;
    const v = vs[k]!;
    const x0 = u >> FRACTION_BITS;
    const y0 = v >> FRACTION_BITS;
    const fx = u & FRACTION_MASK;
    const fy = v & FRACTION_MASK;
    const gx = ONE - fx;
    const gy = ONE - fy;
    const i00 = Math.imul(y0, w) + x0;
    const i01 = x0 + 1 === w ? i00 - x0 : i00 + 1;
    const down = y0 + 1 < h ? w : 0;
    const p00 = data[i00]!;
    const p01 = data[i01]!;
    const p10 = data[i00 + down]!;
    const p11 = data[i01 + down]!;
    const rbTop = ((Math.imul(p00 & LANES, gx) + Math.imul(p01 & LANES, fx) + LANE_HALF) >> FRACTION_BITS) & LANES;
    const rbBottom = ((Math.imul(p10 & LANES, gx) + Math.imul(p11 & LANES, fx) + LANE_HALF) >> FRACTION_BITS) & LANES;
    const gLeft = ((p00 >> 8) & 0xff) | ((p10 & 0xff00) << 8);
    const gRight = ((p01 >> 8) & 0xff) | ((p11 & 0xff00) << 8);
    const gTopBottom = ((Math.imul(gLeft, gx) + Math.imul(gRight, fx) + LANE_HALF) >> FRACTION_BITS) & LANES;
    const rb = (Math.imul(rbTop, gy) + Math.imul(rbBottom, fy) + LANE_HALF) >> FRACTION_BITS;
    out[o] = rb;
    out[o + 1] = (Math.imul(gTopBottom & 0xff, gy) + Math.imul(gTopBottom >> 16, fy) + ONE / 2) >> FRACTION_BITS;
    out[o + 2] = rb >> 16;
  }
}
