/**
 * Land as a bitmap of dots on an equirectangular grid, from Natural Earth 1:110m land (world-atlas
 * land-110m.json, 55 kB, about 5,000 points: small enough to read on the first map drawn).
 *
 * Each ring is filled by scanlines and the fills are combined with XOR (the even-odd rule over all
 * rings), so lakes cut out of continents stay open. Rings that cross the antimeridian are unwrapped
 * into one continuous longitude range and their fills wrapped back; a ring that winds all the way
 * round the globe (Antarctica) is closed through its pole.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

type Point = readonly [lon: number, lat: number];

interface LandTopology {
  transform: { scale: [number, number]; translate: [number, number] };
  arcs: [number, number][][];
  objects: { land: { geometries: { type: string; arcs: number[][] | number[][][] }[] } };
}

/** Latitude span the world map shows: the far Arctic and Antarctica would take a third of it. */
export const MAP_LAT_TOP = 85;
export const MAP_LAT_BOTTOM = -60;

let rings: Point[][] | undefined;

function landRings(): Point[][] {
  rings ??= decode(JSON.parse(readFileSync(createRequire(import.meta.url).resolve('world-atlas/land-110m.json'), 'utf8')));
  return rings;
}

/** TopoJSON to rings of lon/lat points: arcs are delta-encoded integers, negative indices reversed. */
function decode(topology: LandTopology): Point[][] {
  const [sx, sy] = topology.transform.scale;
  const [tx, ty] = topology.transform.translate;
  const arcs = topology.arcs.map((arc) => {
    let x = 0;
    let y = 0;
    return arc.map(([dx, dy]): Point => [(x += dx) * sx + tx, (y += dy) * sy + ty]);
  });
  const ring = (indices: number[]): Point[] =>
    indices.flatMap((i, n) => {
      const arc = i >= 0 ? arcs[i]! : [...arcs[~i]!].reverse();
      return n === 0 ? arc : arc.slice(1);
    });
  return topology.objects.land.geometries.flatMap((g) =>
    g.type === 'Polygon' ? (g.arcs as number[][]).map(ring) : (g.arcs as number[][][]).flatMap((p) => p.map(ring)),
  );
}

/** Longitudes made continuous along the ring; a ring that winds round the globe is closed via its pole. */
function unwrap(ring: readonly Point[]): Point[] {
  const out: Point[] = [];
  let shift = 0;
  for (const [lon, lat] of ring) {
    const prev = out[out.length - 1];
    if (prev) {
      const step = lon + shift - prev[0];
      if (step > 180) shift -= 360;
      else if (step < -180) shift += 360;
    }
    out.push([lon + shift, lat]);
  }
  const first = out[0]!;
  const last = out[out.length - 1]!;
  if (Math.abs(last[0] - first[0]) > 180) {
    const pole = out.reduce((sum, p) => sum + p[1], 0) < 0 ? -90 : 90;
    out.push([last[0], pole], [first[0], pole]);
  }
  return out;
}

const rasters = new Map<string, Uint8Array>();

/**
 * Land dots of a `widthDots` x `heightDots` grid spanning longitudes -180..180 and latitudes
 * MAP_LAT_TOP..MAP_LAT_BOTTOM: 1 where the dot's centre is on land. Cached per size.
 */
export function landDots(widthDots: number, heightDots: number): Uint8Array {
  const cacheKey = `${widthDots}x${heightDots}`;
  let dots = rasters.get(cacheKey);
  if (!dots) {
    dots = rasterize(landRings().map(unwrap), widthDots, heightDots);
    rasters.set(cacheKey, dots);
  }
  return dots;
}

function rasterize(rings: readonly Point[][], width: number, height: number): Uint8Array {
  const dots = new Uint8Array(width * height);
  const degPerDotX = 360 / width;
  const degPerDotY = (MAP_LAT_TOP - MAP_LAT_BOTTOM) / height;
  for (let y = 0; y < height; y++) {
    const lat = MAP_LAT_TOP - (y + 0.5) * degPerDotY;
    for (const ring of rings) {
      const crossings: number[] = [];
      for (let i = 0; i < ring.length; i++) {
        const [lonA, latA] = ring[i]!;
        const [lonB, latB] = ring[(i + 1) % ring.length]!;
        if (latA > lat !== latB > lat) crossings.push(lonA + ((lat - latA) * (lonB - lonA)) / (latB - latA));
      }
      crossings.sort((a, b) => a - b);
      for (let i = 0; i + 1 < crossings.length; i += 2) {
        // Dots whose centre lies inside [from, to], wrapped onto the grid.
        const from = Math.ceil((crossings[i]! + 180) / degPerDotX - 0.5);
        const to = Math.floor((crossings[i + 1]! + 180) / degPerDotX - 0.5);
        for (let x = from; x <= to; x++) dots[y * width + (((x % width) + width) % width)]! ^= 1;
      }
    }
  }
  return dots;
}
