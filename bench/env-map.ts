/** Benches of the environment's map renderer (docs/budgets.md: a pin or view_map map <= 30 ms median). */
import { detailForSpan, MapPainter, type MapRequest, type RevealRequest } from '../src/env/render/map.js';
import { median, round, type Bench } from './harness.js';

/** Places agents pin: coasts, inland, islands, the antimeridian, high latitudes. */
const CENTRES: readonly (readonly [number, number])[] = [
  [36.0, -5.5],
  [48.85, 2.35],
  [-33.9, 18.4],
  [35.7, 139.7],
  [-17.0, 179.0],
  [64.1, -21.9],
  [40.7, -74.0],
  [-23.5, -46.6],
  [55.75, 37.6],
  [1.3, 103.8],
  [-41.3, 174.8],
  [19.4, -99.1],
];

/** Half-widths covering the three detail levels: 110m above 15, 50m from 15 to 2, 10m below 2. */
const SPANS = [180, 60, 20, 14, 7, 3, 1.5, 0.5, 0.1, 0.03];

const SAMPLES = 3;

const REVEALS: RevealRequest[] = [
  { guess: { lat: 52.52, lon: 13.4 }, truth: { lat: 52.5, lon: 13.45 }, pins: [] },
  { guess: { lat: 48.85, lon: 2.35 }, truth: { lat: 40.4, lon: -3.7 }, pins: [{ index: 1, lat: 45, lon: 0 }] },
  { guess: { lat: 35.6, lon: 139.7 }, truth: { lat: 37.7, lon: -122.4 }, pins: [] },
  { guess: { lat: -17.8, lon: 177.4 }, truth: { lat: -13.8, lon: -171.8 }, pins: [] },
  { guess: null, truth: { lat: -33.9, lon: 18.4 }, pins: [] },
];

async function timeMs(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

export const envMapBenches: Bench[] = [
  {
    name: 'env.map_render',
    unit: 'maps',
    async run() {
      const painter = new MapPainter();
      const requests: MapRequest[] = SPANS.flatMap((spanDeg) =>
        CENTRES.map(([centerLat, centerLon], i) => ({
          centerLat,
          centerLon,
          spanDeg,
          pins: [
            { index: 1, lat: centerLat, lon: centerLon },
            { index: 2 + i, lat: centerLat + spanDeg / 4, lon: centerLon - spanDeg / 3 },
          ],
        })),
      );
      // The lazy loads of outlines and towns are not what this figure measures.
      for (const request of requests) await painter.renderMap(request);
      const byDetail: Record<string, number[]> = { '110m': [], '50m': [], '10m': [] };
      for (let s = 0; s < SAMPLES; s++) {
        for (const request of requests) {
          byDetail[detailForSpan(request.spanDeg)]?.push(await timeMs(() => painter.renderMap(request)));
        }
      }
      const ms = median(Object.values(byDetail).flat());
      return {
        median_ms: round(ms),
        per_s: round(1000 / ms, 1),
        ms_110m: round(median(byDetail['110m'] ?? [])),
        ms_50m: round(median(byDetail['50m'] ?? [])),
        ms_10m: round(median(byDetail['10m'] ?? [])),
      };
    },
  },
  {
    name: 'env.reveal_render',
    unit: 'maps',
    async run() {
      const painter = new MapPainter();
      for (const request of REVEALS) await painter.renderReveal(request);
      const times: number[] = [];
      for (let s = 0; s < SAMPLES; s++) {
        for (const request of REVEALS) times.push(await timeMs(() => painter.renderReveal(request)));
      }
      const ms = median(times);
      return { median_ms: round(ms), per_s: round(1000 / ms, 1) };
    },
  },
];
