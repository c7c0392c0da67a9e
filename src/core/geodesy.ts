/** Great-circle geometry on a spherical Earth. The one haversine of the project. */

/** Mean Earth radius (IUGG), the value the GeoGuesser environment scores with. */
export const EARTH_RADIUS_KM = 6371.0088;

const RAD = Math.PI / 180;

export interface LatLon {
  lat: number;
  lon: number;
}

/** Great-circle distance in kilometres (haversine). */
export function haversineKm(latA: number, lonA: number, latB: number, lonB: number): number {
  const dLat = (latB - latA) * RAD;
  const dLon = (lonB - lonA) * RAD;
  const h =
    Math.sin(dLat / 2) ** 2 + Math.cos(latA * RAD) * Math.cos(latB * RAD) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** Initial bearing from A to B in degrees clockwise from true north, in [0, 360). */
export function initialBearingDeg(latA: number, lonA: number, latB: number, lonB: number): number {
  const phiA = latA * RAD;
  const phiB = latB * RAD;
  const dLon = (lonB - lonA) * RAD;
  const y = Math.sin(dLon) * Math.cos(phiB);
  const x = Math.cos(phiA) * Math.sin(phiB) - Math.sin(phiA) * Math.cos(phiB) * Math.cos(dLon);
  return normalizeDeg(Math.atan2(y, x) / RAD);
}

export const COMPASS_8 = ['N', 'NE', 'E', 'SE', 'S', 'SW', 'W', 'NW'] as const;
export type Compass8 = (typeof COMPASS_8)[number];

/** The 8-point compass word for a bearing: each word covers 45 degrees centred on its direction. */
export function compass8(bearingDeg: number): Compass8 {
  return COMPASS_8[Math.round(normalizeDeg(bearingDeg) / 45) % 8] as Compass8;
}

/** The point reached by travelling `distanceKm` from a start along an initial bearing. */
export function destinationPoint(lat: number, lon: number, bearingDeg: number, distanceKm: number): LatLon {
  const delta = distanceKm / EARTH_RADIUS_KM;
  const theta = bearingDeg * RAD;
  const phi1 = lat * RAD;
  const lambda1 = lon * RAD;
  const sinPhi2 = Math.sin(phi1) * Math.cos(delta) + Math.cos(phi1) * Math.sin(delta) * Math.cos(theta);
  const phi2 = Math.asin(Math.max(-1, Math.min(1, sinPhi2)));
  const lambda2 =
    lambda1 +
    Math.atan2(Math.sin(theta) * Math.sin(delta) * Math.cos(phi1), Math.cos(delta) - Math.sin(phi1) * sinPhi2);
  return { lat: phi2 / RAD, lon: normalizeLon(lambda2 / RAD) };
}

/** An angle in degrees mapped into [0, 360). */
export function normalizeDeg(deg: number): number {
  const d = deg % 360;
  return d < 0 ? d + 360 : d === 360 ? 0 : d;
}

/** A longitude mapped into [-180, 180). */
export function normalizeLon(lon: number): number {
  return normalizeDeg(lon + 180) - 180;
}

/** Kilometres per degree of great-circle arc: a degree of latitude, or of longitude at the equator. */
export const KM_PER_DEG = EARTH_RADIUS_KM * RAD;

/**
 * `count` points from a to b along the great circle, ends included (spherical interpolation).
 * Antipodes have no one great circle: their points are interpolated straight.
 */
export function greatCirclePoints(a: LatLon, b: LatLon, count: number): LatLon[] {
  const toVector = (p: LatLon): [number, number, number] => [
    Math.cos(p.lat * RAD) * Math.cos(p.lon * RAD),
    Math.cos(p.lat * RAD) * Math.sin(p.lon * RAD),
    Math.sin(p.lat * RAD),
  ];
  const u = toVector(a);
  const v = toVector(b);
  const omega = Math.acos(Math.min(1, Math.max(-1, u[0] * v[0] + u[1] * v[1] + u[2] * v[2])));
  const sinOmega = Math.sin(omega);
  return Array.from({ length: count }, (_, i) => {
    const t = i / (count - 1);
    const wa = sinOmega < 1e-9 ? 1 - t : Math.sin((1 - t) * omega) / sinOmega;
    const wb = sinOmega < 1e-9 ? t : Math.sin(t * omega) / sinOmega;
    const [x, y, z] = [0, 1, 2].map((k) => wa * (u[k] as number) + wb * (v[k] as number)) as [number, number, number];
    return { lat: Math.atan2(z, Math.hypot(x, y)) / RAD, lon: Math.atan2(y, x) / RAD };
  });
}

/** Points along the great circle from a to b, about `stepDeg` of arc apart (4000 steps at most). */
export function greatCircleEvery(a: LatLon, b: LatLon, stepDeg: number): LatLon[] {
  const arcDeg = haversineKm(a.lat, a.lon, b.lat, b.lon) / KM_PER_DEG;
  const steps = Math.min(4000, Math.max(1, Math.ceil(arcDeg / stepDeg)));
  return greatCirclePoints(a, b, steps + 1);
}

/** Longitudes made continuous along a path (no jump of 360 at the antimeridian), from its first. */
export function unwrapLons(points: readonly LatLon[]): LatLon[] {
  let lon = points[0]?.lon ?? 0;
  return points.map((p) => {
    lon += normalizeLon(p.lon - lon);
    return { lat: p.lat, lon };
  });
}
