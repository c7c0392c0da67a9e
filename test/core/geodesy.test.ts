import { describe, expect, it } from 'vitest';
import {
  compass8,
  destinationPoint,
  greatCirclePoints,
  haversineKm,
  initialBearingDeg,
  KM_PER_DEG,
  normalizeLon,
  unwrapLons,
} from '../../src/core/geodesy.js';

describe('geodesy', () => {
  it('measures Paris to London with R = 6371.0088 km', () => {
    expect(haversineKm(48.8566, 2.3522, 51.5074, -0.1278)).toBeCloseTo(343.56, 1);
  });
  it('is zero for the same point and symmetric', () => {
    expect(haversineKm(10, 20, 10, 20)).toBe(0);
    expect(haversineKm(-33.9, 18.4, 35.7, 139.7)).toBeCloseTo(haversineKm(35.7, 139.7, -33.9, 18.4), 9);
  });
  it('gives a quarter meridian for pole to equator', () => {
    expect(haversineKm(90, 0, 0, 0)).toBeCloseTo((Math.PI / 2) * 6371.0088, 6);
  });
  it('gives initial bearings on the cardinal directions', () => {
    expect(initialBearingDeg(0, 0, 1, 0)).toBeCloseTo(0, 9);
    expect(initialBearingDeg(0, 0, 0, 1)).toBeCloseTo(90, 9);
    expect(initialBearingDeg(0, 0, -1, 0)).toBeCloseTo(180, 9);
    expect(initialBearingDeg(0, 0, 0, -1)).toBeCloseTo(270, 9);
  });
  it('names 8-point compass words with 45-degree sectors', () => {
    expect(compass8(0)).toBe('N');
    expect(compass8(22.4)).toBe('N');
    expect(compass8(22.6)).toBe('NE');
    expect(compass8(180)).toBe('S');
    expect(compass8(-45)).toBe('NW');
    expect(compass8(359)).toBe('N');
    expect(compass8(270)).toBe('W');
  });
  it('inverts destinationPoint with haversine and bearing', () => {
    const p = destinationPoint(47.15, 10.23, 123, 0.012);
    expect(haversineKm(47.15, 10.23, p.lat, p.lon)).toBeCloseTo(0.012, 9);
    expect(initialBearingDeg(47.15, 10.23, p.lat, p.lon)).toBeCloseTo(123, 3);
  });
  it('wraps longitudes across the antimeridian', () => {
    expect(normalizeLon(190)).toBe(-170);
    expect(destinationPoint(0, 179.9, 90, 50).lon).toBeLessThan(-179);
  });
  it('unwraps a path across the antimeridian into continuous longitudes, from its first point', () => {
    // Fiji to Samoa: the great circle crosses 180.
    const path = unwrapLons(greatCirclePoints({ lat: -17.8, lon: 177.4 }, { lat: -13.8, lon: -171.8 }, 9));
    expect(path[0]).toEqual({ lat: -17.8, lon: 177.4 });
    expect(path[8]!.lon).toBeCloseTo(188.2, 9);
    for (let i = 1; i < path.length; i++) expect(Math.abs(path[i]!.lon - path[i - 1]!.lon)).toBeLessThan(5);
    expect(unwrapLons([])).toEqual([]);
  });
  it('measures a degree of arc with the one Earth radius', () => {
    expect(KM_PER_DEG).toBeCloseTo(haversineKm(0, 0, 1, 0), 9);
    expect(KM_PER_DEG).toBeCloseTo(haversineKm(0, 10, 0, 11), 9);
  });
});
