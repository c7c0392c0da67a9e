/**
 * country-coder's smallest feature at a point, answered from its borders pre-digested at build time.
 *
 * Requiring @rapideditor/country-coder costs ~140 ms of CPU before its first answer: its borders are a
 * 0.7 MB JavaScript object literal to compile and build, then it derives every feature's groups
 * and walks every outer ring for which-polygon's boxes (~35 ms of that alone). `npm run build`
 * (scripts/build.mjs) asks the package once and writes what a point lookup needs to
 * dist/country-coder-borders.bin: the geometry features' properties (id, iso1A2, groups, country,
 * as the package derives them), each polygon's outer-ring box and its rings' coordinates as
 * float64. Loading that is a read and an R-tree bulk load (~5 ms).
 *
 * The answer is the package's own: the same polygons in the same order, loaded into the same rbush
 * (which-polygon's), searched and ray-cast as which-polygon does, so the first containing polygon
 * is the one country-coder's featuresContaining()[0] names (test/geo/coder-borders.test.ts checks
 * the two over the whole globe). The file records the size and mtime of the package file it was
 * made from; when they differ (an upgrade without a rebuild), or without the file (sources run by
 * tsx or vitest before a build), the package itself is loaded as before.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../paths.js';
import { encodeBuildFile, readBuildFile, sameSource, sourceStamp, type SourceStamp } from './build-file.js';

export interface CoderFeature {
  readonly properties: {
    readonly id: string;
    readonly iso1A2?: string;
    readonly groups: readonly string[];
    readonly country?: string;
  };
}

/** The country-coder surface used (its typings need @types/geojson, not installed). */
interface CountryCoderPackage {
  featuresContaining(location: [number, number]): CoderFeature[];
  borders: { features: { geometry: { type: string; coordinates: unknown } | null; properties: CoderFeature['properties'] }[] };
}

/** rbush 2 (which-polygon's), as far as it is used. */
interface RBushItem {
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
  polygon: number;
}
interface RBush {
  load(items: RBushItem[]): RBush;
  search(box: { minX: number; minY: number; maxX: number; maxY: number }): RBushItem[];
}

export const BORDERS_FILE = join(PACKAGE_ROOT, 'dist', 'country-coder-borders.bin');
const MAGIC = 'GCB1';

interface Header {
  /** The package file the borders were read from, to tell a stale file. */
  source: SourceStamp;
  /** Points (x, y pairs) in the coordinates that follow the header. */
  points: number;
  features: CoderFeature['properties'][];
  /** Per polygon: its feature, its outer ring's box, and where its rings start in the coordinates (points), then where the last ends. */
  polygons: { feature: number; box: [number, number, number, number]; rings: number[] }[];
}

const require = createRequire(import.meta.url);

function coderPackagePath(): string {
  return require.resolve('@rapideditor/country-coder');
}

function rbushOf(coderPath: string): () => RBush {
  // which-polygon's own rbush (the version its tree was built with), found as it finds it.
  const whichPolygon = createRequire(coderPath).resolve('which-polygon');
  return createRequire(whichPolygon)('rbush') as () => RBush;
}

/** What `smallest` answers from: 'borders' (the build's file), 'package' (country-coder itself), or null before the first lookup. */
let source: 'borders' | 'package' | null = null;
let lookup: ((lon: number, lat: number) => CoderFeature | null) | undefined;

export function coderSource(): 'borders' | 'package' | null {
  return source;
}

/** country-coder's smallest feature containing the point (its featuresContaining([lon, lat])[0]), or null. */
export function smallestCoderFeature(lon: number, lat: number): CoderFeature | null {
  if (!lookup) {
    const coderPath = coderPackagePath();
    const fromFile = readBorders(BORDERS_FILE, coderPath);
    if (fromFile) {
      lookup = fromFile;
      source = 'borders';
    } else {
      const coder = require(coderPath) as CountryCoderPackage;
      lookup = (x, y) => coder.featuresContaining([x, y])[0] ?? null;
      source = 'package';
    }
  }
  return lookup(lon, lat);
}

/** The file's lookup, or null when it is missing, not this format, or made from another package file. */
export function readBorders(file: string, coderPath: string): ((lon: number, lat: number) => CoderFeature | null) | null {
  const read = readBuildFile<Header>(file, MAGIC);
  if (!read || !sameSource(read.header.source, coderPath)) return null;
  const { header } = read;
  const coords = read.columns([[Float64Array, 2 * header.points]])?.[0] as Float64Array | undefined;
  if (!coords) return null;
  const features: CoderFeature[] = header.features.map((properties) => ({ properties }));
  const { polygons } = header;
  const tree = rbushOf(coderPath)().load(
    polygons.map(({ box }, polygon) => ({ minX: box[0], minY: box[1], maxX: box[2], maxY: box[3], polygon })),
  );
  return (lon, lat) => {
    for (const { polygon } of tree.search({ minX: lon, minY: lat, maxX: lon, maxY: lat })) {
      const p = polygons[polygon] as Header['polygons'][number];
      if (inside(coords, p.rings, lon, lat)) return features[p.feature] as CoderFeature;
    }
    return null;
  };
}

/** which-polygon's ray casting (insidePolygon/rayIntersect), point for point, over rings of x,y pairs. */
function inside(coords: Float64Array, rings: readonly number[], x: number, y: number): boolean {
  let result = false;
  for (let r = 0; r + 1 < rings.length; r++) {
    const first = rings[r] as number;
    const end = rings[r + 1] as number;
    for (let j = first, k = end - 1; j < end; k = j++) {
      const x1 = coords[2 * j] as number;
      const y1 = coords[2 * j + 1] as number;
      const x2 = coords[2 * k] as number;
      const y2 = coords[2 * k + 1] as number;
      if (y1 > y !== y2 > y && x < ((x2 - x1) * (y - y1)) / (y2 - y1) + x1) result = !result;
    }
  }
  return result;
}

/**
 * The file's bytes, from the installed package: its geometry features in its order (which-polygon's
 * input), every polygon of a MultiPolygon on its own as which-polygon indexes them. Run by the build.
 */
export function encodeBorders(coderPath = coderPackagePath()): Buffer {
  const coder = require(coderPath) as CountryCoderPackage;
  const features: Header['features'] = [];
  const polygons: Header['polygons'] = [];
  const points: number[] = [];
  for (const feature of coder.borders.features) {
    const { geometry } = feature;
    if (!geometry) continue;
    const { id, iso1A2, groups, country } = feature.properties;
    const index = features.push({ id, ...(iso1A2 !== undefined ? { iso1A2 } : {}), groups: [...groups], ...(country !== undefined ? { country } : {}) }) - 1;
    const shapes =
      geometry.type === 'Polygon'
        ? [geometry.coordinates as number[][][]]
        : geometry.type === 'MultiPolygon'
          ? (geometry.coordinates as number[][][][])
          : [];
    for (const rings of shapes) {
      // which-polygon's treeItem: the box of the outer ring.
      const box: [number, number, number, number] = [Infinity, Infinity, -Infinity, -Infinity];
      for (const p of rings[0] ?? []) {
        box[0] = Math.min(box[0], p[0] as number);
        box[1] = Math.min(box[1], p[1] as number);
        box[2] = Math.max(box[2], p[0] as number);
        box[3] = Math.max(box[3], p[1] as number);
      }
      const starts: number[] = [];
      for (const ring of rings) {
        starts.push(points.length / 2);
        for (const p of ring) points.push(p[0] as number, p[1] as number);
      }
      starts.push(points.length / 2);
      polygons.push({ feature: index, box, rings: starts });
    }
  }
  const header: Header = { source: sourceStamp(coderPath), features, polygons, points: points.length / 2 };
  return encodeBuildFile(MAGIC, header, [new Float64Array(points)]);
}
