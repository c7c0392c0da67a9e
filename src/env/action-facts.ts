/**
 * What geolab knows of an action without validating it: what each op costs, and the points an
 * action names (pin, guess, view_map, measure's two ends), read from its arguments as they are: the
 * audit and the leak guard take them as the agent's own. Kept apart from the action checks
 * (actions.ts): what reads prompts and feedback (the audit, `geolab audit`'s whole path) needs
 * none of them.
 */
import type { LatLon } from '../core/geodesy.js';
import { toNumber } from '../core/values.js';
import type { Op } from './types.js';

/**
 * Costs in hundredths, kept as integers so that 24 looks cost exactly 0.24 (a float sum would
 * drift, and a perfect guess after a look and a pin must score exactly 0.97). A costed action also
 * spends one step; a free one (0) spends none. Measure's cost applies only after its free calls.
 */
export const COST_HUNDREDTHS: Readonly<Record<Op, number>> = {
  look: 1,
  pan: 1,
  zoom: 1,
  move: 5,
  pin: 2,
  view_map: 1,
  measure: 1,
  list_pins: 0,
  clear_pins: 0,
  reverse_geocode: 0,
  guess: 0,
};

/** The points an action names: the agent's own, so their echo in feedback is not a leak (docs/audit.md item 2). */
export function pointsOfAction(action: Record<string, unknown> | null | undefined): LatLon[] {
  if (!action) return [];
  const points: LatLon[] = [];
  for (const [latKey, lonKey] of [
    ['lat', 'lon'],
    ['lat_a', 'lon_a'],
    ['lat_b', 'lon_b'],
  ] as const) {
    const lat = toNumber(action[latKey]);
    const lon = toNumber(action[lonKey]);
    if (lat !== undefined && lon !== undefined) points.push({ lat, lon });
  }
  return points;
}
