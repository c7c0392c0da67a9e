import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { driveSide, iso1A2Code } from '@rapideditor/country-coder';
import { describe, expect, it } from 'vitest';
import { destinationPoint, haversineKm, initialBearingDeg } from '../../src/core/geodesy.js';
import { DEMO_TASKS_FILE } from '../../src/paths.js';
import { COUNTRY_CLUES } from '../../src/demo/scenes.js';
import { buildDemoTasks, toJsonl } from '../../src/demo/tasks.js';
import { LEFT_DRIVING, readDemoTasks, readDemoTasksText } from './pixels.js';

/** Natural Earth ADMIN name -> ISO alpha-2 and continent, for the countries the demo uses. */
const COUNTRIES: Record<string, { iso: string; continent: string }> = {
  'United States of America': { iso: 'US', continent: 'North America' },
  Canada: { iso: 'CA', continent: 'North America' },
  Brazil: { iso: 'BR', continent: 'South America' },
  Argentina: { iso: 'AR', continent: 'South America' },
  'United Kingdom': { iso: 'GB', continent: 'Europe' },
  Ireland: { iso: 'IE', continent: 'Europe' },
  'Republic of Serbia': { iso: 'RS', continent: 'Europe' },
  Greece: { iso: 'GR', continent: 'Europe' },
  Norway: { iso: 'NO', continent: 'Europe' },
  Russia: { iso: 'RU', continent: 'Europe' },
  Georgia: { iso: 'GE', continent: 'Asia' },
  Armenia: { iso: 'AM', continent: 'Asia' },
  Israel: { iso: 'IL', continent: 'Asia' },
  Morocco: { iso: 'MA', continent: 'Africa' },
  'South Africa': { iso: 'ZA', continent: 'Africa' },
  Kenya: { iso: 'KE', continent: 'Africa' },
  Australia: { iso: 'AU', continent: 'Oceania' },
  'New Zealand': { iso: 'NZ', continent: 'Oceania' },
};

const tasks = readDemoTasks();

describe('datasets/demo/tasks.jsonl', () => {
  it('is exactly what the seeded builder makes, at the path the package exports', () => {
    expect(readDemoTasksText()).toBe(toJsonl(buildDemoTasks()));
    expect(readFileSync(DEMO_TASKS_FILE, 'utf8')).toBe(readDemoTasksText());
  });

  it('follows the public task schema', () => {
    const rawLines = readDemoTasksText().trimEnd().split('\n');
    expect(rawLines).toHaveLength(tasks.length);
    tasks.forEach((task, index) => {
      expect(Object.keys(task).sort()).toEqual(
        ['attribution', 'country', 'frames', 'meta', 'provider', 'sequence_id', 'start_frame', 'task_id', 'task_index'].sort(),
      );
      expect(task.task_index).toBe(index);
      expect(task.task_id).toMatch(/^demo-\d{5}$/);
      expect(task.sequence_id).toMatch(/^[A-Za-z0-9]{22}$/);
      expect(task.provider).toBe('synthetic');
      expect(Number.isInteger(task.start_frame)).toBe(true);
      expect(task.start_frame).toBeGreaterThanOrEqual(0);
      expect(task.start_frame).toBeLessThan(task.frames.length);
      expect(task.frames.length).toBeGreaterThanOrEqual(3);
      expect(task.frames.length).toBeLessThanOrEqual(6);
      for (const frame of task.frames) {
        expect(Object.keys(frame).sort()).toEqual(['captured_at', 'compass_angle', 'image_id', 'is_pano', 'lat', 'lon']);
        expect(frame.image_id).toMatch(/^[A-Za-z0-9_-]+$/);
        expect(Math.abs(frame.lat)).toBeLessThanOrEqual(90);
        expect(Math.abs(frame.lon)).toBeLessThanOrEqual(180);
        expect(frame.compass_angle).toBeGreaterThanOrEqual(0);
        expect(frame.compass_angle).toBeLessThan(360);
        expect(frame.captured_at).toMatch(/^\d{4}-(0[1-9]|1[0-2])$/);
        expect(frame.is_pano).toBe(true);
      }
      expect(task.attribution).toEqual({
        creator_username: 'geolab-synthetic',
        creator_id: '0',
        licence: 'CC0-1.0',
        source: 'geolab synthetic demo',
      });
      expect(task.meta).toMatchObject({ camera_make: 'synthetic', camera_model: 'geolab-demo-v1', offline_ready: true, synthetic: true });
      expect(task.meta.quality_score).toBeGreaterThan(0);
      expect(task.meta.quality_score).toBeLessThanOrEqual(1);
    });
  });

  it('has unique ids and start frames that are not always 0', () => {
    const unique = <T>(values: T[]): number => new Set(values).size;
    expect(unique(tasks.map((t) => t.task_id))).toBe(tasks.length);
    expect(unique(tasks.map((t) => t.sequence_id))).toBe(tasks.length);
    const imageIds = tasks.flatMap((t) => t.frames.map((f) => f.image_id));
    expect(unique(imageIds)).toBe(imageIds.length);
    expect(tasks.some((t) => t.start_frame > 0)).toBe(true);
    expect(tasks.some((t) => t.start_frame === 0)).toBe(true);
  });

  it('covers enough of the world: tasks, countries, continents, hemispheres, driving sides', () => {
    expect(tasks.length).toBeGreaterThanOrEqual(24);
    const perCountry = new Map<string, number>();
    for (const task of tasks) perCountry.set(task.country, (perCountry.get(task.country) ?? 0) + 1);
    expect(perCountry.size).toBeGreaterThanOrEqual(12);
    expect([...perCountry.values()].filter((n) => n >= 2).length).toBeGreaterThanOrEqual(5);
    for (const country of perCountry.keys()) expect(COUNTRIES, `unknown ADMIN name ${country}`).toHaveProperty([country]);
    expect(new Set(tasks.map((t) => COUNTRIES[t.country]?.continent)).size).toBeGreaterThanOrEqual(5);
    const starts = tasks.map((t) => t.frames[t.start_frame]!);
    expect(starts.some((f) => f.lat > 0) && starts.some((f) => f.lat < 0)).toBe(true);
    expect(tasks.some((t) => LEFT_DRIVING.has(t.country)) && tasks.some((t) => !LEFT_DRIVING.has(t.country))).toBe(true);
  });

  it('walks each sequence along a straight road, frames 3-20 m apart, camera facing along it', () => {
    for (const task of tasks) {
      const first = task.frames[0]!;
      const last = task.frames[task.frames.length - 1]!;
      const road = initialBearingDeg(first.lat, first.lon, last.lat, last.lon);
      for (let k = 1; k < task.frames.length; k++) {
        const a = task.frames[k - 1]!;
        const b = task.frames[k]!;
        const metres = haversineKm(a.lat, a.lon, b.lat, b.lon) * 1000;
        expect(metres, `${task.task_id} frames ${k - 1}-${k}`).toBeGreaterThanOrEqual(3);
        expect(metres, `${task.task_id} frames ${k - 1}-${k}`).toBeLessThanOrEqual(20);
        const step = initialBearingDeg(a.lat, a.lon, b.lat, b.lon);
        expect(Math.abs(((step - road + 540) % 360) - 180)).toBeLessThan(1);
      }
      for (const frame of task.frames) expect(Math.abs(((frame.compass_angle - road + 540) % 360) - 180)).toBeLessThanOrEqual(5);
    }
  });

  it('places every start at least 5 km inside its country, away from borders and coasts', () => {
    const land = landPolygons();
    for (const task of tasks) {
      const start = task.frames[task.start_frame]!;
      const iso = COUNTRIES[task.country]!.iso;
      for (let bearing = 0; bearing < 360; bearing += 45) {
        for (const km of [0, 5]) {
          const p = destinationPoint(start.lat, start.lon, bearing, km);
          expect(iso1A2Code([p.lon, p.lat]), `${task.task_id} ${km} km at ${bearing}`).toBe(iso);
          expect(onLand(land, p.lon, p.lat), `${task.task_id} ${km} km at ${bearing} is at sea`).toBe(true);
        }
      }
    }
  });

  it('agrees with an independent source on the driving side', () => {
    for (const task of tasks) {
      const start = task.frames[task.start_frame]!;
      const expected = driveSide([start.lon, start.lat]);
      expect(COUNTRY_CLUES[task.country]?.drivingSide, task.country).toBe(expected);
      expect(LEFT_DRIVING.has(task.country), task.country).toBe(expected === 'left');
    }
  });
});

type Ring = [number, number][];
interface Topology {
  objects: { land: unknown };
}
interface LandCollection {
  features: { geometry: { type: 'Polygon'; coordinates: Ring[] } | { type: 'MultiPolygon'; coordinates: Ring[][] } }[];
}

/** Natural Earth 1:50m land polygons (world-atlas), to prove the starts are not on or near a coast. */
function landPolygons(): Ring[][] {
  const require = createRequire(import.meta.url);
  const { feature } = require('topojson-client') as { feature: (topology: Topology, object: unknown) => LandCollection };
  const topology = JSON.parse(readFileSync(require.resolve('world-atlas/land-50m.json'), 'utf8')) as Topology;
  return feature(topology, topology.objects.land).features.flatMap((f) =>
    f.geometry.type === 'Polygon' ? [f.geometry.coordinates] : f.geometry.coordinates,
  );
}

function inRing(ring: Ring, x: number, y: number): boolean {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i]!;
    const [xj, yj] = ring[j]!;
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

function onLand(polygons: Ring[][], lon: number, lat: number): boolean {
  return polygons.some(([outer, ...holes]) => outer !== undefined && inRing(outer, lon, lat) && !holes.some((h) => inRing(h, lon, lat)));
}
