/**
 * What a demo panorama shows, as data: per-country clues (driving side, road-line colours, sign
 * style), per-climate palettes, the noon sun, and the resolved scene of one frame. Pure: no I/O.
 *
 * Road frame used throughout: `along` (s, metres) runs in the direction of travel (the road bearing),
 * measured from the task's start frame; `lateral` (u, metres) is measured from the centre line,
 * positive to the RIGHT when looking along the road bearing. The camera drives in its own lane, so
 * it sits at u = +1.75 in right-hand traffic and u = -1.75 in left-hand traffic; a car driving ahead
 * of us in our direction is in that same lane, i.e. to the right of the centre line (as seen looking
 * forward) in right-hand traffic and to the left in left-hand traffic; oncoming cars use the other
 * lane; the direction sign stands on the verge of our side.
 */
import { haversineKm, initialBearingDeg, normalizeDeg } from '../core/geodesy.js';
import { hashString, seededRandom } from '../core/random.js';
import { DEMO_SITES, type Climate, type DemoSite } from './sites.js';

export type RGB = readonly [number, number, number];

/** Linear blend of two colours: t = 0 gives `a`, t = 1 gives `b`. */
export function mixRgb(a: RGB, b: RGB, t: number): RGB {
  return [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t];
}
export type DrivingSide = 'right' | 'left';
export type LineColour = 'white' | 'yellow';

export interface CountryClues {
  drivingSide: DrivingSide;
  centreLine: LineColour;
  /** `dashed` single line, or `double` solid lines (North American no-passing style). */
  centreLineStyle: 'dashed' | 'double';
  /** Solid edge lines, or none. */
  edgeLine: LineColour | null;
  sign: { background: RGB; text: RGB };
}

const GREEN_SIGN = { background: [16, 110, 62], text: [255, 255, 255] } as const satisfies CountryClues['sign'];
const BLUE_SIGN = { background: [20, 72, 160], text: [255, 255, 255] } as const satisfies CountryClues['sign'];
const WHITE_SIGN = { background: [240, 240, 236], text: [20, 20, 20] } as const satisfies CountryClues['sign'];

const right = (
  centreLine: LineColour,
  edgeLine: LineColour | null,
  sign: CountryClues['sign'],
  centreLineStyle: CountryClues['centreLineStyle'] = 'dashed',
): CountryClues => ({ drivingSide: 'right', centreLine, centreLineStyle, edgeLine, sign });
const left = (edgeLine: LineColour | null, sign: CountryClues['sign']): CountryClues =>
  ({ drivingSide: 'left', centreLine: 'white', centreLineStyle: 'dashed', edgeLine, sign });

/**
 * Road-marking conventions as commonly documented for each country's main two-lane roads: yellow
 * lines separate opposing traffic in the Americas and in Norway; Europe otherwise uses white;
 * Ireland, South Africa and Israel paint their edge lines yellow. Sign colours follow the usual
 * guide-sign colour of ordinary main roads.
 */
export const COUNTRY_CLUES: Readonly<Record<string, CountryClues>> = {
  'United States of America': right('yellow', 'white', GREEN_SIGN, 'double'),
  Canada: right('yellow', 'white', GREEN_SIGN, 'double'),
  Brazil: right('yellow', 'white', GREEN_SIGN, 'double'),
  Argentina: right('yellow', 'white', GREEN_SIGN),
  Norway: right('yellow', 'white', BLUE_SIGN),
  'United Kingdom': left('white', GREEN_SIGN),
  Ireland: left('yellow', GREEN_SIGN),
  'Republic of Serbia': right('white', 'white', BLUE_SIGN),
  Greece: right('white', 'white', BLUE_SIGN),
  Russia: right('white', 'white', BLUE_SIGN),
  Georgia: right('white', 'white', BLUE_SIGN),
  Armenia: right('white', 'white', BLUE_SIGN),
  Israel: right('white', 'yellow', GREEN_SIGN),
  Morocco: right('white', 'white', WHITE_SIGN),
  'South Africa': left('yellow', GREEN_SIGN),
  Kenya: left(null, GREEN_SIGN),
  Australia: left('white', GREEN_SIGN),
  'New Zealand': left('white', GREEN_SIGN),
};

export type TreeKind = 'broadleaf' | 'conifer' | 'cypress' | 'shrub' | 'acacia';

export interface Palette {
  skyZenith: RGB;
  skyHorizon: RGB;
  ground: RGB;
  groundAlt: RGB;
  /** The unpaved strip beside the asphalt. */
  verge: RGB;
  asphalt: RGB;
  hills: RGB;
  foliage: RGB;
  foliageDark: RGB;
  trunk: RGB;
  trees: readonly TreeKind[];
  treeCount: number;
  hillHeightDeg: number;
  /** Height of a continuous far tree line on the horizon (0: open country). */
  treelineDeg: number;
  clouds: number;
  /** Distance at which the air has hidden about 63% of a colour. */
  hazeM: number;
}

const TRUNK: RGB = [88, 66, 46];
const ASPHALT: RGB = [78, 79, 82];

/** Vegetation, soil and sky by climate: arid ochre, temperate green, boreal dark green, tropical lush. */
export const PALETTES: Readonly<Record<Climate, Palette>> = {
  temperate: {
    skyZenith: [62, 112, 196], skyHorizon: [184, 208, 232], ground: [92, 138, 60], groundAlt: [120, 156, 72],
    verge: [118, 112, 92], asphalt: ASPHALT, hills: [98, 128, 112], foliage: [62, 112, 46], foliageDark: [38, 80, 34],
    trunk: TRUNK, trees: ['broadleaf', 'broadleaf', 'broadleaf', 'shrub', 'conifer'], treeCount: 90,
    hillHeightDeg: 2.5, treelineDeg: 1.2, clouds: 7, hazeM: 1400,
  },
  boreal: {
    skyZenith: [52, 104, 200], skyHorizon: [176, 204, 234], ground: [78, 112, 56], groundAlt: [98, 124, 62],
    verge: [112, 106, 90], asphalt: ASPHALT, hills: [70, 98, 92], foliage: [36, 78, 48], foliageDark: [22, 54, 36],
    trunk: TRUNK, trees: ['conifer', 'conifer', 'conifer', 'broadleaf'], treeCount: 240,
    hillHeightDeg: 3, treelineDeg: 2.2, clouds: 6, hazeM: 1600,
  },
  mediterranean: {
    skyZenith: [60, 116, 204], skyHorizon: [196, 214, 232], ground: [150, 146, 88], groundAlt: [126, 132, 76],
    verge: [170, 150, 112], asphalt: ASPHALT, hills: [132, 136, 112], foliage: [96, 118, 66], foliageDark: [52, 78, 44],
    trunk: TRUNK, trees: ['broadleaf', 'cypress', 'shrub', 'shrub'], treeCount: 45,
    hillHeightDeg: 4, treelineDeg: 0, clouds: 3, hazeM: 1800,
  },
  semiarid: {
    skyZenith: [70, 122, 200], skyHorizon: [202, 214, 226], ground: [176, 162, 106], groundAlt: [150, 142, 92],
    verge: [176, 150, 110], asphalt: ASPHALT, hills: [150, 140, 118], foliage: [104, 116, 64], foliageDark: [74, 88, 50],
    trunk: TRUNK, trees: ['shrub', 'shrub', 'broadleaf'], treeCount: 60,
    hillHeightDeg: 2, treelineDeg: 0, clouds: 3, hazeM: 2200,
  },
  arid: {
    skyZenith: [84, 134, 204], skyHorizon: [214, 216, 218], ground: [196, 140, 92], groundAlt: [176, 120, 78],
    verge: [204, 162, 118], asphalt: ASPHALT, hills: [170, 128, 100], foliage: [118, 122, 72], foliageDark: [90, 96, 58],
    trunk: TRUNK, trees: ['shrub', 'shrub', 'shrub', 'acacia'], treeCount: 22,
    hillHeightDeg: 3, treelineDeg: 0, clouds: 1, hazeM: 2600,
  },
  savanna: {
    skyZenith: [66, 118, 200], skyHorizon: [200, 212, 226], ground: [184, 162, 96], groundAlt: [160, 146, 84],
    verge: [168, 104, 70], asphalt: ASPHALT, hills: [122, 128, 104], foliage: [78, 104, 50], foliageDark: [54, 80, 40],
    trunk: TRUNK, trees: ['acacia', 'acacia', 'shrub', 'broadleaf'], treeCount: 40,
    hillHeightDeg: 2.5, treelineDeg: 0, clouds: 5, hazeM: 2000,
  },
  tropical: {
    skyZenith: [78, 132, 206], skyHorizon: [200, 216, 230], ground: [58, 128, 46], groundAlt: [84, 146, 52],
    verge: [164, 92, 60], asphalt: ASPHALT, hills: [82, 120, 92], foliage: [40, 108, 40], foliageDark: [24, 78, 30],
    trunk: TRUNK, trees: ['broadleaf', 'broadleaf', 'shrub'], treeCount: 110,
    hillHeightDeg: 2.5, treelineDeg: 1.6, clouds: 10, hazeM: 1200,
  },
};

export interface SunPosition {
  azimuthDeg: number;
  elevationDeg: number;
}

/** Day of year of the 15th of each month (non-leap year). */
const MID_MONTH_DAY = [15, 46, 74, 105, 135, 166, 196, 227, 258, 288, 319, 349] as const;

/** Solar declination at mid-month, by the usual cosine approximation (good to about 1 degree). */
export function solarDeclinationDeg(month: number): number {
  const day = MID_MONTH_DAY[(month - 1 + 12) % 12] ?? 166;
  return -23.44 * Math.cos(((2 * Math.PI) / 365) * (day + 10));
}

/** The sun at local solar noon: due south when the observer is north of the subsolar latitude. */
export function noonSun(latDeg: number, month: number): SunPosition {
  const declination = solarDeclinationDeg(month);
  return { azimuthDeg: latDeg > declination ? 180 : 0, elevationDeg: 90 - Math.abs(latDeg - declination) };
}

/** The slice of a task the renderer reads (structural, so any task record from the loader fits). */
export interface PanoramaFrame {
  image_id: string;
  lat: number;
  lon: number;
  compass_angle?: number;
  captured_at?: string;
}

export interface PanoramaTask {
  country?: string;
  sequence_id?: string;
  start_frame?: number;
  frames: readonly PanoramaFrame[];
}

export interface Tree {
  kind: TreeKind;
  alongM: number;
  lateralM: number;
  heightM: number;
  radiusM: number;
  foliage: RGB;
}

export interface Cloud {
  azimuthDeg: number;
  elevationDeg: number;
  radiusDeg: number;
}

export interface Scene {
  compassDeg: number;
  roadBearingDeg: number;
  camera: { alongM: number; lateralM: number; heightM: number };
  sun: SunPosition;
  clues: CountryClues;
  palette: Palette;
  sign: { alongM: number; lateralM: number; widthM: number; bottomM: number; topM: number; lines: readonly string[] };
  trees: readonly Tree[];
  clouds: readonly Cloud[];
  /** Phases of the horizon's hill profile, fixed per task so every frame shares the same skyline. */
  hillPhases: readonly [number, number, number];
  noiseSeed: number;
}

export const LANE_WIDTH_M = 3.5;
export const CAMERA_HEIGHT_M = 2.5;
/** The sign stands this far ahead of the start frame, so the first view shows it close enough to read. */
const SIGN_AHEAD_M = 10;
/**
 * Letter size on the sign: about twice a real guide sign's, because a 2048-px panorama has under
 * 6 px per degree and the text is the clue. Boards are sized to their text like real ones.
 */
const SIGN_EM_M = 0.6;
/** DejaVu Sans Bold runs up to about 0.7 em per character in every script the demo uses. */
const EM_PER_CHAR = 0.7;
const SIGN_MAX_WIDTH_M = 7.5;
/** How far a task's start may lie from its site before we refuse to invent clues for it. */
const SITE_RADIUS_KM = 20;

export class DemoSceneError extends Error {
  override name = 'DemoSceneError';
}

function nearestSite(country: string, lat: number, lon: number): DemoSite | undefined {
  let best: DemoSite | undefined;
  let bestKm = SITE_RADIUS_KM;
  for (const site of DEMO_SITES) {
    if (site.country !== country) continue;
    const km = haversineKm(lat, lon, site.lat, site.lon);
    if (km <= bestKm) [best, bestKm] = [site, km];
  }
  return best;
}

function monthOf(capturedAt: string | undefined): number | undefined {
  const month = Number(/^\d{4}-(\d{2})/.exec(capturedAt ?? '')?.[1]);
  return month >= 1 && month <= 12 ? month : undefined;
}

/** Signed distance along the road from `origin` to `frame` (negative: behind). */
function alongRoadM(origin: PanoramaFrame, frame: PanoramaFrame, roadBearingDeg: number): number {
  const metres = haversineKm(origin.lat, origin.lon, frame.lat, frame.lon) * 1000;
  if (metres < 1e-6) return 0;
  const bearing = initialBearingDeg(origin.lat, origin.lon, frame.lat, frame.lon);
  return Math.cos(((bearing - roadBearingDeg) * Math.PI) / 180) >= 0 ? metres : -metres;
}

/** Angular distance in degrees between two directions given as (azimuth, elevation). */
export function angularDistanceDeg(az1: number, el1: number, az2: number, el2: number): number {
  const r = Math.PI / 180;
  const c = Math.sin(el1 * r) * Math.sin(el2 * r) + Math.cos(el1 * r) * Math.cos(el2 * r) * Math.cos((az1 - az2) * r);
  return Math.acos(Math.max(-1, Math.min(1, c))) / r;
}

/** Resolve what frame `frameIndex` of a demo task shows. Throws DemoSceneError for a non-demo task. */
export function demoScene(task: PanoramaTask, frameIndex: number): Scene {
  const frame = task.frames[frameIndex];
  if (!frame) throw new DemoSceneError(`frame ${frameIndex} out of range (task has ${task.frames.length} frames)`);
  const start = task.frames[task.start_frame ?? 0] ?? frame;
  const clues = COUNTRY_CLUES[task.country ?? ''];
  const site = task.country === undefined ? undefined : nearestSite(task.country, start.lat, start.lon);
  if (!clues || !site) {
    const where = `country "${task.country ?? ''}" at ${start.lat}, ${start.lon}`;
    throw new DemoSceneError(`no demo scene for ${where}: not a demo task`);
  }
  const first = task.frames[0] ?? frame;
  const last = task.frames[task.frames.length - 1] ?? frame;
  const roadBearingDeg =
    task.frames.length >= 2 ? initialBearingDeg(first.lat, first.lon, last.lat, last.lon) : site.roadBearingDeg;
  const side = clues.drivingSide === 'right' ? 1 : -1;
  const palette = PALETTES[site.climate];
  const sun = noonSun(frame.lat, monthOf(frame.captured_at) ?? monthOf(site.capturedAt) ?? 6);
  const random = seededRandom(hashString(task.sequence_id ?? first.image_id));
  const cameraAlongs = task.frames.map((f) => alongRoadM(start, f, roadBearingDeg));
  const longest = Math.max(...site.sign.map((line) => [...line].length));
  const widthM = Math.min(SIGN_MAX_WIDTH_M, longest * EM_PER_CHAR * SIGN_EM_M + 0.8);
  const sign = {
    alongM: SIGN_AHEAD_M,
    lateralM: side * (LANE_WIDTH_M + 0.1 + 1 + widthM / 2),
    widthM,
    bottomM: 2,
    topM: 2 + site.sign.length * SIGN_EM_M * 1.25 + 0.4,
    lines: site.sign,
  };
  return {
    compassDeg: frame.compass_angle ?? 0,
    roadBearingDeg,
    camera: { alongM: cameraAlongs[frameIndex] ?? 0, lateralM: side * (LANE_WIDTH_M / 2), heightM: CAMERA_HEIGHT_M },
    sun,
    clues,
    palette,
    sign,
    trees: plantTrees(random, palette, sign, side, roadBearingDeg, sun, cameraAlongs),
    clouds: scatterClouds(random, palette, sun),
    hillPhases: [random() * 2 * Math.PI, random() * 2 * Math.PI, random() * 2 * Math.PI],
    noiseSeed: Math.floor(random() * 0x7fffffff),
  };
}

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}

const TREE_SIZE: Readonly<Record<TreeKind, { heightM: number; radiusM: number }>> = {
  broadleaf: { heightM: 9, radiusM: 3 },
  conifer: { heightM: 13, radiusM: 2.2 },
  cypress: { heightM: 10, radiusM: 1 },
  shrub: { heightM: 1.4, radiusM: 1.2 },
  acacia: { heightM: 6, radiusM: 3.5 },
};

/**
 * Trees in world positions shared by all frames of the task. A tree is left out when it would stand
 * on the road, between the road and the sign, or in front of the sun from any frame (the sun is a
 * clue and must stay visible).
 */
function plantTrees(
  random: () => number,
  palette: Palette,
  sign: Scene['sign'],
  side: number,
  roadBearingDeg: number,
  sun: SunPosition,
  cameraAlongs: readonly number[],
): Tree[] {
  const trees: Tree[] = [];
  for (let i = 0; i < palette.treeCount; i++) {
    const kind = pick(random, palette.trees);
    const scale = 0.7 + 0.6 * random();
    const alongM = -180 + 360 * random();
    const lateralM = (random() < 0.5 ? -1 : 1) * (7 + 110 * random() ** 1.8);
    const tint = random();
    const heightM = TREE_SIZE[kind].heightM * scale;
    const radiusM = TREE_SIZE[kind].radiusM * scale;
    const hidesSign =
      Math.sign(lateralM) === side &&
      Math.abs(lateralM) < Math.abs(sign.lateralM) + sign.widthM / 2 + 5 &&
      alongM > -80 &&
      alongM < sign.alongM + 4;
    if (hidesSign) continue;
    const hidesSun = cameraAlongs.some((cameraAlong) => {
      const ds = alongM - cameraAlong;
      const du = lateralM - side * (LANE_WIDTH_M / 2);
      const dist = Math.hypot(ds, du);
      const azimuthDeg = roadBearingDeg + (Math.atan2(du, ds) * 180) / Math.PI;
      const elevationDeg = (Math.atan2(heightM * 0.6 - CAMERA_HEIGHT_M, dist) * 180) / Math.PI;
      const reachDeg = (Math.atan2(Math.max(heightM * 0.6, radiusM), dist) * 180) / Math.PI;
      return angularDistanceDeg(azimuthDeg, elevationDeg, sun.azimuthDeg, sun.elevationDeg) < reachDeg + 6;
    });
    if (hidesSun) continue;
    trees.push({ kind, alongM, lateralM, heightM, radiusM, foliage: mixRgb(palette.foliage, palette.foliageDark, tint) });
  }
  return trees;
}

function scatterClouds(random: () => number, palette: Palette, sun: SunPosition): Cloud[] {
  const clouds: Cloud[] = [];
  for (let i = 0; i < palette.clouds; i++) {
    const cloud = {
      azimuthDeg: normalizeDeg(random() * 360),
      // Low enough to look like weather, high enough to stay in front of sky only, not hills.
      elevationDeg: 11 + 22 * random() ** 1.5,
      radiusDeg: 3 + 4 * random(),
    };
    const distance = angularDistanceDeg(cloud.azimuthDeg, cloud.elevationDeg, sun.azimuthDeg, sun.elevationDeg);
    if (distance > cloud.radiusDeg * 2.2 + 10) clouds.push(cloud);
  }
  return clouds;
}
