/**
 * Draws a demo panorama: an equirectangular 2:1 JPEG whose centre column faces the frame's
 * compass_angle (docs/protocol.md). Sky, sun, hills and the road surface are computed per pixel by casting
 * each pixel's ray onto a flat ground plane, so the straight road bends into its true sinusoid-like
 * band between the forward and backward vanishing points; trees and cars are projected billboards;
 * the sign's text is an SVG rasterised by sharp (librsvg with Pango, which shapes Arabic and lays
 * Hebrew right-to-left).
 */
import type { OverlayOptions } from 'sharp';
import { normalizeDeg } from '../core/geodesy.js';
import { valueNoise } from '../core/random.js';
import { LANE_WIDTH_M, demoScene, mixRgb, type PanoramaTask, type RGB, type Scene, type Tree } from './scenes.js';
import { sharpModule } from '../vendor/commonjs.js';

const sharp = sharpModule();

export const PANORAMA_WIDTH = 2048;
export const PANORAMA_HEIGHT = 1024;
const W = PANORAMA_WIDTH;
const H = PANORAMA_HEIGHT;
const PX_PER_DEG = W / 360;
const RAD = Math.PI / 180;
/** Angular size of one pixel (the same across and down in an equirectangular image). */
const PIXEL_RAD = (2 * Math.PI) / W;
/** Drawn larger than the real 0.27 degrees so the sun reads at panorama resolution. */
const SUN_RADIUS_DEG = 2;
const JPEG_QUALITY = 85;
/** Unpaved strip between the asphalt and the fields. */
const VERGE_M = 0.9;
const WHITE_PAINT: RGB = [236, 236, 230];
const YELLOW_PAINT: RGB = [236, 184, 30];
/** Tops out well below white, so the sun's disc stays the only white in the sky. */
const SUN_GLOW: RGB = [255, 244, 212];
/** Likewise a little grey, even in full light. */
const CLOUD: RGB = [236, 237, 240];
/** A car drives ahead of us in our lane, another comes toward us in the other lane. */
const CAR_AHEAD_M = 12;
const CAR_ONCOMING_M = 22;
const CAR_AHEAD_PAINT: RGB = [172, 26, 32];
const CAR_ONCOMING_PAINT: RGB = [28, 58, 150];
const TYRE: RGB = [30, 30, 32];
const GLASS: RGB = [46, 54, 66];
const TAIL_LIGHT: RGB = [220, 30, 28];
const HEAD_LIGHT: RGB = [240, 236, 214];
const POST: RGB = [150, 152, 156];
const SIGN_BACK: RGB = [132, 134, 138];

/** Column (fractional, in [0, W)) where a true azimuth appears: x = W/2 + (A - compass)/360 W, mod W. */
export function columnOfAzimuth(azimuthDeg: number, compassDeg: number): number {
  return normalizeDeg(180 + azimuthDeg - compassDeg) * PX_PER_DEG;
}

/** Row (fractional) of an elevation: y = H/2 - elevation/180 H (horizon in the middle, up is up). */
export function rowOfElevation(elevationDeg: number): number {
  return H / 2 - (elevationDeg / 180) * H;
}

/** Render frame `frameIndex` of a demo task. Deterministic: the same task and frame give the same bytes. */
export async function renderDemoPanorama(task: PanoramaTask, frameIndex: number): Promise<Buffer> {
  const scene = demoScene(task, frameIndex);
  // Clamped, so colour arithmetic that overshoots saturates instead of wrapping around.
  const pixels = new Uint8ClampedArray(W * H * 3);
  paintSkyAndGround(pixels, scene);
  paintClouds(pixels, scene);
  const overlays: OverlayOptions[] = [];
  for (const draw of objectsFarToNear(scene)) draw(pixels, overlays);
  // sharp writes no EXIF/XMP unless asked (withMetadata), so the file carries no GPS or maker tags.
  return sharp(pixels, { raw: { width: W, height: H, channels: 3 } })
    .composite(overlays)
    .jpeg({ quality: JPEG_QUALITY })
    .toBuffer();
}

const lerp = (a: number, b: number, t: number): number => a + (b - a) * t;
const clamp01 = (t: number): number => (t < 0 ? 0 : t > 1 ? 1 : t);
const wrapColumn = (x: number): number => ((x % W) + W) % W;
const wrap180 = (deg: number): number => normalizeDeg(deg + 180) - 180;

/** Fraction of the footprint [u - fp/2, u + fp/2] covered by the band [a, b]: a box-filtered edge. */
function coverage(u: number, fp: number, a: number, b: number): number {
  return Math.max(0, Math.min(u + fp / 2, b) - Math.max(u - fp / 2, a)) / fp;
}

/** Painted length of [0, x] under dashes `dash` long every `period` metres. */
function paintedUpTo(x: number, dash: number, period: number): number {
  const cycles = Math.floor(x / period);
  return cycles * dash + Math.min(x - cycles * period, dash);
}

/** Fraction of [s - fp/2, s + fp/2] painted by dashes `dash` long every `period` metres. */
function dashCoverage(s: number, fp: number, dash: number, period: number): number {
  return (paintedUpTo(s + fp / 2, dash, period) - paintedUpTo(s - fp / 2, dash, period)) / fp;
}

function hillProfile(azimuthDeg: number, phases: Scene['hillPhases']): number {
  const a = azimuthDeg * RAD;
  return clamp01(0.5 + 0.32 * Math.sin(2 * a + phases[0]) + 0.14 * Math.sin(5 * a + phases[1]) + 0.06 * Math.sin(13 * a + phases[2]));
}

function paintSkyAndGround(pixels: Uint8ClampedArray, scene: Scene): void {
  const { palette, clues, camera, sun } = scene;
  const roadCos = new Float64Array(W);
  const roadSin = new Float64Array(W);
  const sunCos = new Float64Array(W);
  const hillTop = new Float64Array(W);
  const treelineTop = new Float64Array(W);
  for (let x = 0; x < W; x++) {
    const azimuthDeg = scene.compassDeg + ((x + 0.5) / W - 0.5) * 360;
    roadCos[x] = Math.cos((azimuthDeg - scene.roadBearingDeg) * RAD);
    roadSin[x] = Math.sin((azimuthDeg - scene.roadBearingDeg) * RAD);
    sunCos[x] = Math.cos((azimuthDeg - sun.azimuthDeg) * RAD);
    // Skyline in true azimuth, so it stays put between frames.
    hillTop[x] = palette.hillHeightDeg * hillProfile(azimuthDeg, scene.hillPhases);
    const bumps = valueNoise(azimuthDeg * 0.9, 0.5, scene.noiseSeed) * 0.6 + valueNoise(azimuthDeg * 4, 3.5, scene.noiseSeed) * 0.4;
    treelineTop[x] = palette.treelineDeg * (0.45 + 0.55 * bumps);
  }
  const sunSin = Math.sin(sun.elevationDeg * RAD);
  const sunCosEl = Math.cos(sun.elevationDeg * RAD);
  const sunDiscCos = Math.cos(SUN_RADIUS_DEG * RAD);
  const centre = clues.centreLine === 'yellow' ? YELLOW_PAINT : WHITE_PAINT;
  const edge = clues.edgeLine === 'yellow' ? YELLOW_PAINT : WHITE_PAINT;
  const roadHalf = LANE_WIDTH_M;
  const treeline = mixRgb(palette.foliageDark, palette.skyHorizon, 0.45);
  const hills = mixRgb(palette.hills, palette.skyHorizon, 0.35);

  let i = 0;
  for (let y = 0; y < H; y++) {
    const elevationDeg = (H / 2 - (y + 0.5)) * (180 / H);
    if (elevationDeg >= 0) {
      const sinE = Math.sin(elevationDeg * RAD);
      const cosE = Math.cos(elevationDeg * RAD);
      const t = Math.pow(elevationDeg / 90, 0.55);
      const skyR = lerp(palette.skyHorizon[0], palette.skyZenith[0], t);
      const skyG = lerp(palette.skyHorizon[1], palette.skyZenith[1], t);
      const skyB = lerp(palette.skyHorizon[2], palette.skyZenith[2], t);
      for (let x = 0; x < W; x++, i += 3) {
        if (elevationDeg < treelineTop[x]!) {
          set(pixels, i, treeline, 0.85 + 0.15 * (elevationDeg / treelineTop[x]!));
        } else if (elevationDeg < hillTop[x]!) {
          set(pixels, i, hills, 0.92 + 0.08 * (elevationDeg / hillTop[x]!));
        } else {
          const cosToSun = sinE * sunSin + cosE * sunCosEl * sunCos[x]!;
          if (cosToSun >= sunDiscCos) {
            pixels[i] = pixels[i + 1] = pixels[i + 2] = 255;
          } else {
            const fromSunDeg = Math.acos(Math.max(-1, cosToSun)) / RAD;
            const g = 0.6 * Math.exp(-(fromSunDeg - SUN_RADIUS_DEG) / 4) + 0.25 * Math.exp(-fromSunDeg / 30);
            pixels[i] = lerp(skyR, SUN_GLOW[0], g);
            pixels[i + 1] = lerp(skyG, SUN_GLOW[1], g);
            pixels[i + 2] = lerp(skyB, SUN_GLOW[2], g);
          }
        }
      }
      continue;
    }
    // Ground: the ray through this row meets the flat ground `distance` metres away.
    const down = -elevationDeg * RAD;
    const distance = camera.heightM / Math.tan(down);
    const radialFp = (PIXEL_RAD * camera.heightM) / Math.sin(down) ** 2;
    const tangentialFp = distance * PIXEL_RAD;
    const haze = 1 - Math.exp(-distance / palette.hazeM);
    const texture = 1 / (1 + tangentialFp * 1.5);
    for (let x = 0; x < W; x++, i += 3) {
      const c = roadCos[x]!;
      const s = roadSin[x]!;
      const along = camera.alongM + distance * c;
      const lateral = camera.lateralM + distance * s;
      const fpU = Math.max(1e-4, Math.abs(s) * radialFp + Math.abs(c) * tangentialFp);
      const fpS = Math.max(1e-4, Math.abs(c) * radialFp + Math.abs(s) * tangentialFp);
      const n = texture > 0.03 ? (valueNoise(along * 0.45, lateral * 0.45, scene.noiseSeed) - 0.5) * texture : 0;
      const grass = 0.5 + 1.6 * n;
      let r = lerp(palette.ground[0], palette.groundAlt[0], grass);
      let g = lerp(palette.ground[1], palette.groundAlt[1], grass);
      let b = lerp(palette.ground[2], palette.groundAlt[2], grass);
      const verge = coverage(lateral, fpU, -roadHalf - VERGE_M, roadHalf + VERGE_M);
      if (verge > 0) {
        r = lerp(r, palette.verge[0], verge);
        g = lerp(g, palette.verge[1], verge);
        b = lerp(b, palette.verge[2], verge);
        const road = coverage(lateral, fpU, -roadHalf, roadHalf);
        if (road > 0) {
          const grain = 1 + 0.35 * n;
          r = lerp(r, palette.asphalt[0] * grain, road);
          g = lerp(g, palette.asphalt[1] * grain, road);
          b = lerp(b, palette.asphalt[2] * grain, road);
          const centreCover =
            clues.centreLineStyle === 'double'
              ? coverage(lateral, fpU, -0.22, -0.08) + coverage(lateral, fpU, 0.08, 0.22)
              : coverage(lateral, fpU, -0.08, 0.08) * dashCoverage(along, fpS, 3, 12); // 3 m dash, 9 m gap
          const edgeCover = clues.edgeLine
            ? coverage(lateral, fpU, roadHalf - 0.25, roadHalf - 0.1) + coverage(lateral, fpU, -roadHalf + 0.1, -roadHalf + 0.25)
            : 0;
          if (centreCover > 0) {
            r = lerp(r, centre[0], centreCover);
            g = lerp(g, centre[1], centreCover);
            b = lerp(b, centre[2], centreCover);
          }
          if (edgeCover > 0) {
            r = lerp(r, edge[0], edgeCover);
            g = lerp(g, edge[1], edgeCover);
            b = lerp(b, edge[2], edgeCover);
          }
        }
      }
      pixels[i] = lerp(r, palette.skyHorizon[0], haze);
      pixels[i + 1] = lerp(g, palette.skyHorizon[1], haze);
      pixels[i + 2] = lerp(b, palette.skyHorizon[2], haze);
    }
  }
}

function set(pixels: Uint8ClampedArray, i: number, colour: RGB, shade = 1): void {
  pixels[i] = colour[0] * shade;
  pixels[i + 1] = colour[1] * shade;
  pixels[i + 2] = colour[2] * shade;
}

function blend(pixels: Uint8ClampedArray, x: number, y: number, colour: RGB, alpha: number): void {
  if (y < 0 || y >= H || alpha <= 0) return;
  const i = (y * W + wrapColumn(x)) * 3;
  const a = Math.min(1, alpha);
  pixels[i] = lerp(pixels[i]!, colour[0], a);
  pixels[i + 1] = lerp(pixels[i + 1]!, colour[1], a);
  pixels[i + 2] = lerp(pixels[i + 2]!, colour[2], a);
}

/** Filled ellipse with a one-pixel soft edge; columns wrap around the seam. */
function fillEllipse(pixels: Uint8ClampedArray, cx: number, cy: number, rx: number, ry: number, colour: RGB, maxRow = H - 1): void {
  rx = Math.max(rx, 0.5);
  ry = Math.max(ry, 0.5);
  const y0 = Math.max(0, Math.floor(cy - ry));
  const y1 = Math.min(H - 1, Math.ceil(cy + ry), Math.floor(maxRow));
  for (let y = y0; y <= y1; y++) {
    const dy = (y + 0.5 - cy) / ry;
    if (Math.abs(dy) >= 1) continue;
    const half = rx * Math.sqrt(1 - dy * dy);
    const x0 = Math.floor(cx - half);
    const x1 = Math.ceil(cx + half);
    for (let x = x0; x <= x1; x++) blend(pixels, x, y, colour, clamp01(half - Math.abs(x + 0.5 - cx) + 0.5));
  }
}

/** Filled convex polygon (pixel coordinates, no wrap crossing needed by callers' small shapes). */
function fillPolygon(pixels: Uint8ClampedArray, points: readonly (readonly [number, number])[], colour: RGB): void {
  const ys = points.map((p) => p[1]);
  const y0 = Math.max(0, Math.floor(Math.min(...ys)));
  const y1 = Math.min(H - 1, Math.ceil(Math.max(...ys)));
  for (let y = y0; y <= y1; y++) {
    const yc = y + 0.5;
    let left = Infinity;
    let right = -Infinity;
    for (let k = 0; k < points.length; k++) {
      const [ax, ay] = points[k]!;
      const [bx, by] = points[(k + 1) % points.length]!;
      if ((ay <= yc && by > yc) || (by <= yc && ay > yc)) {
        const x = ax + ((yc - ay) / (by - ay)) * (bx - ax);
        left = Math.min(left, x);
        right = Math.max(right, x);
      }
    }
    if (left > right) continue;
    for (let x = Math.floor(left); x < Math.ceil(right); x++) {
      blend(pixels, x, y, colour, clamp01(Math.min(x + 1 - left, right - x)));
    }
  }
}

function fillRect(pixels: Uint8ClampedArray, x0: number, y0: number, x1: number, y1: number, colour: RGB): void {
  fillPolygon(pixels, [[x0, y0], [x1, y0], [x1, y1], [x0, y1]], colour);
}

const CUMULUS_PUFFS = [[-1.1, 0.15, 0.6], [-0.45, -0.25, 0.8], [0.3, -0.35, 0.9], [1.0, 0.05, 0.65], [0.1, 0.2, 0.7]] as const;

function paintClouds(pixels: Uint8ClampedArray, scene: Scene): void {
  for (const cloud of scene.clouds) {
    const cx = columnOfAzimuth(cloud.azimuthDeg, scene.compassDeg);
    const cy = rowOfElevation(cloud.elevationDeg);
    const stretch = 1 / Math.cos(cloud.elevationDeg * RAD);
    const r = cloud.radiusDeg * PX_PER_DEG;
    // A cumulus: a flat greyer base with brighter puffs (offset x, offset y, size in radii) on top.
    const base = mixRgb(CLOUD, scene.palette.skyHorizon, 0.35);
    fillEllipse(pixels, cx, cy + r * 0.35, r * 1.9 * stretch, r * 0.35, base, H / 2 - 1);
    for (const [dx, dy, size] of CUMULUS_PUFFS) {
      fillEllipse(pixels, cx + dx * r * stretch, cy + dy * r, size * r * stretch, size * r * 0.8, CLOUD, H / 2 - 1);
    }
  }
}

interface Projected {
  x: number;
  y: number;
  distanceM: number;
}

/** Where a world point (along, lateral, height above ground) lands in this frame's panorama. */
function project(scene: Scene, alongM: number, lateralM: number, heightM: number): Projected {
  const ds = alongM - scene.camera.alongM;
  const du = lateralM - scene.camera.lateralM;
  const distanceM = Math.hypot(ds, du);
  const azimuthDeg = scene.roadBearingDeg + Math.atan2(du, ds) / RAD;
  const elevationDeg = Math.atan2(heightM - scene.camera.heightM, distanceM) / RAD;
  return { x: columnOfAzimuth(azimuthDeg, scene.compassDeg), y: rowOfElevation(elevationDeg), distanceM };
}

/** Column x moved by whole turns next to `ref`, so a shape straddling the seam stays in one piece. */
function near(ref: number, x: number): number {
  return ref + wrap180((x - ref) / PX_PER_DEG) * PX_PER_DEG;
}

type Draw = (pixels: Uint8ClampedArray, overlays: OverlayOptions[]) => void;

function objectsFarToNear(scene: Scene): Draw[] {
  const items: { distanceM: number; draw: Draw }[] = [];
  for (const tree of scene.trees) {
    const base = project(scene, tree.alongM, tree.lateralM, 0);
    items.push({ distanceM: base.distanceM, draw: (pixels) => drawTree(pixels, scene, tree) });
  }
  const { sign } = scene;
  const signCentre = project(scene, sign.alongM, sign.lateralM, 0);
  items.push({ distanceM: signCentre.distanceM, draw: (pixels, overlays) => drawSign(pixels, overlays, scene) });
  // Our lane is the camera's; the other lane mirrors it across the centre line.
  const { alongM, lateralM } = scene.camera;
  items.push({
    distanceM: CAR_AHEAD_M,
    draw: (pixels) => drawCar(pixels, scene, alongM + CAR_AHEAD_M, lateralM, CAR_AHEAD_PAINT, 'rear'),
  });
  items.push({
    distanceM: CAR_ONCOMING_M,
    draw: (pixels) => drawCar(pixels, scene, alongM + CAR_ONCOMING_M, -lateralM, CAR_ONCOMING_PAINT, 'front'),
  });
  return items.sort((a, b) => b.distanceM - a.distanceM).map((item) => item.draw);
}

function hazed(scene: Scene, colour: RGB, distanceM: number): RGB {
  return mixRgb(colour, scene.palette.skyHorizon, 1 - Math.exp(-distanceM / scene.palette.hazeM));
}

function drawTree(pixels: Uint8ClampedArray, scene: Scene, tree: Tree): void {
  const base = project(scene, tree.alongM, tree.lateralM, 0);
  if (base.distanceM < 2) return;
  const pxPerM = (W / (2 * Math.PI)) / base.distanceM;
  const yAt = (h: number): number => project(scene, tree.alongM, tree.lateralM, h).y;
  const foliage = hazed(scene, tree.foliage, base.distanceM);
  const light = hazed(scene, mixRgb(tree.foliage, [200, 220, 120], 0.22), base.distanceM);
  const trunk = hazed(scene, scene.palette.trunk, base.distanceM);
  const { heightM: h, radiusM: r } = tree;
  const x = base.x;
  switch (tree.kind) {
    case 'conifer': {
      fillRect(pixels, x - 0.12 * r * pxPerM, yAt(h * 0.2), x + 0.12 * r * pxPerM, base.y, trunk);
      for (const [bottom, top, width] of [[0.12, 0.7, 1], [0.38, 0.88, 0.75], [0.62, 1, 0.5]] as const) {
        fillPolygon(pixels, [[x, yAt(h * top)], [x + width * r * pxPerM, yAt(h * bottom)], [x - width * r * pxPerM, yAt(h * bottom)]], foliage);
      }
      return;
    }
    case 'cypress':
      fillRect(pixels, x - 0.15 * r * pxPerM, yAt(h * 0.2), x + 0.15 * r * pxPerM, base.y, trunk);
      fillEllipse(pixels, x, (yAt(h) + yAt(h * 0.1)) / 2, r * pxPerM, (yAt(h * 0.1) - yAt(h)) / 2, foliage);
      return;
    case 'shrub':
      fillEllipse(pixels, x, yAt(h * 0.45), r * pxPerM, (yAt(0) - yAt(h)) / 2, foliage);
      fillEllipse(pixels, x - 0.25 * r * pxPerM, yAt(h * 0.6), 0.55 * r * pxPerM, (yAt(0) - yAt(h)) / 3, light);
      return;
    case 'acacia': {
      fillRect(pixels, x - 0.08 * r * pxPerM, yAt(h * 0.8), x + 0.08 * r * pxPerM, base.y, trunk);
      const crown = yAt(h * 0.88);
      const thickness = (yAt(h * 0.72) - yAt(h)) / 2;
      fillEllipse(pixels, x, crown, r * pxPerM, thickness, foliage);
      fillEllipse(pixels, x + 0.2 * r * pxPerM, crown - thickness * 0.3, 0.6 * r * pxPerM, thickness * 0.6, light);
      return;
    }
    case 'broadleaf': {
      fillRect(pixels, x - 0.1 * r * pxPerM, yAt(h * 0.55), x + 0.1 * r * pxPerM, base.y, trunk);
      const cy = yAt(h - r);
      const ry = (yAt(h - 2 * r) - yAt(h)) / 2;
      fillEllipse(pixels, x, cy, r * pxPerM, ry, foliage);
      fillEllipse(pixels, x - 0.45 * r * pxPerM, cy + ry * 0.2, 0.6 * r * pxPerM, ry * 0.6, foliage);
      fillEllipse(pixels, x + 0.5 * r * pxPerM, cy + ry * 0.15, 0.55 * r * pxPerM, ry * 0.55, foliage);
      fillEllipse(pixels, x - 0.15 * r * pxPerM, cy - ry * 0.35, 0.5 * r * pxPerM, ry * 0.45, light);
      return;
    }
  }
}

/**
 * The direction sign faces oncoming traffic, i.e. us while we approach it. Ahead: its face with the
 * text (an SVG overlay); once passed: its plain grey back; abreast: edge-on, so only the posts.
 */
function drawSign(pixels: Uint8ClampedArray, overlays: OverlayOptions[], scene: Scene): void {
  const { sign } = scene;
  const ds = sign.alongM - scene.camera.alongM;
  const leftU = sign.lateralM - sign.widthM / 2;
  const rightU = sign.lateralM + sign.widthM / 2;
  const centre = project(scene, sign.alongM, sign.lateralM, 0);
  for (const u of [leftU + 0.6, rightU - 0.6]) {
    const foot = project(scene, sign.alongM, u, 0);
    const top = project(scene, sign.alongM, u, sign.bottomM);
    const half = Math.max(0.6, (0.06 / foot.distanceM) * (W / (2 * Math.PI)));
    const x = near(centre.x, foot.x);
    fillRect(pixels, x - half, top.y, x + half, foot.y, hazed(scene, POST, foot.distanceM));
  }
  if (Math.abs(ds) < 2) return;
  // Seen from behind the board's left and right swap, but its bounding box is the same.
  const xs = [project(scene, sign.alongM, leftU, 0).x, project(scene, sign.alongM, rightU, 0).x].map((x) => near(centre.x, x));
  const x0 = Math.min(...xs);
  const x1 = Math.max(...xs);
  const y0 = project(scene, sign.alongM, sign.lateralM, sign.topM).y;
  const y1 = project(scene, sign.alongM, sign.lateralM, sign.bottomM).y;
  if (ds < 0) {
    fillRect(pixels, x0, y0, x1, y1, hazed(scene, SIGN_BACK, centre.distanceM));
    return;
  }
  const left = Math.round(x0);
  const top = Math.round(y0);
  const width = Math.round(x1) - left;
  const height = Math.round(y1) - top;
  if (width < 6 || height < 4 || left < 0 || left + width > W || top < 0 || top + height > H) {
    fillRect(pixels, x0, y0, x1, y1, scene.clues.sign.background);
    return;
  }
  overlays.push({ input: Buffer.from(signSvg(width, height, sign.lines, scene.clues.sign)), left, top });
}

const css = (c: RGB): string => `rgb(${c.map((v) => Math.round(v)).join(',')})`;
const escapeXml = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function signSvg(width: number, height: number, lines: readonly string[], style: Scene['clues']['sign']): string {
  const border = Math.max(1, height * 0.05);
  const longest = Math.max(...lines.map((line) => [...line].length));
  // DejaVu Sans Bold runs up to about 0.7 em per character: fit both the height and the width.
  const fontPx = Math.min((height - 4 * border) / (lines.length * 1.2), (width - 4 * border) / (0.7 * longest));
  const lineGap = (height - 2 * border) / lines.length;
  const texts = lines.map(
    (line, k) =>
      `<text x="${width / 2}" y="${(border + lineGap * (k + 0.5) + fontPx * 0.36).toFixed(2)}" font-family="DejaVu Sans" font-weight="bold" font-size="${fontPx.toFixed(2)}" fill="${css(style.text)}" text-anchor="middle">${escapeXml(line)}</text>`,
  );
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
    `<rect x="0" y="0" width="${width}" height="${height}" rx="${border * 1.5}" fill="${css(style.text)}"/>` +
    `<rect x="${border}" y="${border}" width="${width - 2 * border}" height="${height - 2 * border}" rx="${border}" fill="${css(style.background)}"/>` +
    texts.join('') +
    `</svg>`
  );
}

/**
 * A car as two boxes (body and cabin) seen from the camera's height: we see the face nearer to us
 * (the rear of a car ahead, the front of an oncoming one) and the tops of both boxes.
 */
function drawCar(pixels: Uint8ClampedArray, scene: Scene, alongM: number, lateralM: number, paint: RGB, face: 'rear' | 'front'): void {
  const half = 0.9;
  const length = 4.4;
  const ref = project(scene, alongM, lateralM, 0).x;
  const p = (s: number, u: number, z: number): [number, number] => {
    const q = project(scene, s, u, z);
    return [near(ref, q.x), q.y];
  };
  const quadAt = (s0: number, s1: number, w: number, z0: number, z1: number): [number, number][] => [
    p(s0, lateralM - w, z1), p(s0, lateralM + w, z1), p(s1, lateralM + w, z0), p(s1, lateralM - w, z0),
  ];
  const top = mixRgb(paint, [255, 255, 255], 0.12);
  const far = alongM + length;
  const cabinNear = alongM + (face === 'rear' ? 0.9 : 1.4);
  const cabinFar = far - (face === 'rear' ? 1.4 : 0.9);
  // Body top, then the cabin's window face and roof, then the body face nearest to us.
  fillPolygon(pixels, quadAt(alongM, far, half, 1.0, 1.0), top);
  fillPolygon(pixels, [p(cabinNear, lateralM - 0.75, 1.0), p(cabinNear, lateralM + 0.75, 1.0), p(cabinNear, lateralM + 0.7, 1.45), p(cabinNear, lateralM - 0.7, 1.45)], GLASS);
  fillPolygon(pixels, quadAt(cabinNear, cabinFar, 0.7, 1.45, 1.45), paint);
  for (const u of [lateralM - half + 0.25, lateralM + half - 0.25]) {
    const [x0, y0] = p(alongM + 0.3, u - 0.22, 0.4);
    const [x1, y1] = p(alongM + 0.3, u + 0.22, 0);
    fillRect(pixels, x0, y0, x1, y1, TYRE);
  }
  const [bx0, by0] = p(alongM, lateralM - half, 1.0);
  const [bx1, by1] = p(alongM, lateralM + half, 0.3);
  fillRect(pixels, bx0, by0, bx1, by1, paint);
  const lamp = face === 'rear' ? TAIL_LIGHT : HEAD_LIGHT;
  for (const u of [lateralM - half + 0.05, lateralM + half - 0.35]) {
    const [x0, y0] = p(alongM, u, 0.85);
    const [x1, y1] = p(alongM, u + 0.3, 0.7);
    fillRect(pixels, x0, y0, x1, y1, lamp);
  }
}
