/** Nothing the environment says before the guess may give the answer away (docs/protocol.md, docs/audit.md). */
import { describe, expect, it } from 'vitest';
import { haversineKm } from '../../src/core/geodesy.js';
import { truthOf } from '../../src/core/tasks.js';
import type { StepResult } from '../../src/env/types.js';
import { HALLSTATT, makeEpisode } from './helpers/episodes.js';
import { allKeys } from '../helpers/values.js';

const TRUTH = truthOf(HALLSTATT);

/** Agent-chosen points: none near the truth, so no number in the feedback can be about it. */
const PLAY: Record<string, unknown>[] = [
  { op: 'look', heading_deg: 120, fov_deg: 50 },
  { op: 'move', meters: 20 },
  { op: 'pin', lat: 35.6762, lon: 139.6503 },
  { op: 'pin', lat: -30, lon: -140, label: 'ocean' },
  { op: 'view_map', lat: 52.52, lon: 13.405, span_deg: 3 },
  { op: 'measure', lat_a: 35.6762, lon_a: 139.6503, lat_b: 52.52, lon_b: 13.405 },
  { op: 'reverse_geocode', lat: 41.9, lon: 12.5 },
  { op: 'list_pins' },
  { op: 'zoom', fov_deg: 20 },
];

async function play(episode: ReturnType<typeof makeEpisode>['episode']): Promise<StepResult[]> {
  const turns = [await episode.reset({ index: 0 })];
  for (const action of PLAY) turns.push(await episode.step(action));
  return turns;
}

/** Everything but the image bytes, as the text a model or a log would see. */
function visibleText(turn: StepResult): string {
  return JSON.stringify({ ...turn, observation: { ...turn.observation, image_base64: null } });
}

describe('before the guess', () => {
  it('no observation or metadata names the country, its region, the identity or the true coordinates', async () => {
    const { episode } = makeEpisode();
    for (const turn of await play(episode)) {
      const text = visibleText(turn);
      for (const secret of ['Austria', 'Western Europe', 'Hallstatt', '47.56', '13.64', HALLSTATT.task_id, HALLSTATT.sequence_id!, 'test-0-f']) {
        expect(text, `${turn.observation.feedback} leaks ${secret}`).not.toContain(secret);
      }
      expect(turn.observation).toMatchObject({ distance_km: null, score: null, true_lat: null, true_lon: null, parsed_ok: null });
      expect(turn.reward).toBeNull();
    }
  });

  it('per-turn metadata has no key that names or hints at the country, and no identity by default', async () => {
    const { episode } = makeEpisode();
    for (const turn of await play(episode)) {
      const keys = allKeys(turn.metadata);
      expect(keys.filter((k) => /country|region|truth|verdict/i.test(k))).toEqual([]);
      for (const identity of ['task_id', 'sequence_id', 'index']) expect(keys).not.toContain(identity);
    }
    const state = episode.state();
    expect(state).not.toHaveProperty('task_id');
    expect(state).not.toHaveProperty('sequence_id');
    expect(JSON.stringify(state)).not.toContain('Austria');
  });

  it('with identity shown, per-turn metadata and state carry it (and still no country)', async () => {
    const { episode } = makeEpisode({ config: { showIdentity: true } });
    for (const turn of await play(episode)) {
      expect(turn.metadata).toMatchObject({ task_id: 'test-00000', sequence_id: HALLSTATT.sequence_id, split: 'train', index: 0 });
      expect(allKeys(turn.metadata).filter((k) => /country/i.test(k))).toEqual([]);
    }
    expect(episode.state()).toMatchObject({ task_id: 'test-00000', sequence_id: HALLSTATT.sequence_id });
  });

  it('a pin describes only the pinned place: Japan for a pin in Japan, open water at sea', async () => {
    const { episode } = makeEpisode();
    const turns = await play(episode);
    const [tokyo, ocean] = [turns[3]!.observation.feedback, turns[4]!.observation.feedback];
    expect(tokyo).toContain('Japan');
    expect(ocean).toContain('- open water, ');
    for (const feedback of [tokyo, ocean]) {
      expect(feedback).not.toMatch(/warm|cold|hot|closer|farther|further|correct|right|wrong/i);
    }
    // The only distances are to the pin's nearest city and from the previous pin, never to the truth.
    const toTruth = Math.round(haversineKm(35.6762, 139.6503, TRUTH.lat, TRUTH.lon));
    expect(tokyo).not.toContain(toTruth.toLocaleString('en-US'));
    expect(tokyo).not.toContain(String(toTruth));
  });

  it('a pin on the truth reads like a pin anywhere else: the place, its city, the budget', async () => {
    const { episode } = makeEpisode();
    await episode.reset({ index: 0 });
    const onTruth = await episode.step({ op: 'pin', lat: TRUTH.lat, lon: TRUTH.lon });
    // It names Austria because the agent put the pin there (an agent-chosen point is not a leak).
    expect(onTruth.observation.feedback).toMatch(
      /^Pin 1 placed at 47\.5622, 13\.6493 - Austria \(Western Europe\), ~[\d.]+ km [NESW]{1,2} of [^.]+\. 23 actions left\.$/,
    );
    expect(onTruth.observation).toMatchObject({ distance_km: null, score: null, true_lat: null });
  });

  it('maps are drawn only around agent-chosen points; the reveal only after scoring', async () => {
    const { episode, maps } = makeEpisode();
    await play(episode);
    expect(maps.reveals).toEqual([]);
    expect(maps.maps.map((m) => [m.centerLat, m.centerLon])).toEqual([
      [35.6762, 139.6503],
      [-30, -140],
      [52.52, 13.405],
    ]);
    for (const call of maps.maps) {
      for (const point of [[call.centerLat, call.centerLon], ...call.pins.map((p) => [p.lat, p.lon])] as [number, number][]) {
        expect(haversineKm(point[0], point[1], TRUTH.lat, TRUTH.lon)).toBeGreaterThan(500);
      }
    }

    await episode.step({ op: 'guess', lat: 47, lon: 13 });
    expect(maps.order.at(-1)).toBe('reveal');
    expect(maps.reveals).toEqual([
      {
        guess: { lat: 47, lon: 13 },
        truth: TRUTH,
        pins: [
          { index: 1, lat: 35.6762, lon: 139.6503 },
          { index: 2, lat: -30, lon: -140 },
        ],
      },
    ]);
  });
});

describe('after the guess', () => {
  it('terminal metadata carries the country, the verdicts, the counters and the identity', async () => {
    const { episode } = makeEpisode();
    await play(episode);
    const end = await episode.step({ op: 'guess', lat: 48.2082, lon: 16.3738, country: 'Austria', confidence: 0.7 });
    expect(end.observation.image_kind).toBe('map');
    expect(end.metadata).toMatchObject({
      country: 'Austria',
      guess: [48.2082, 16.3738],
      guess_country: 'Austria',
      verdict: 'Right region',
      country_hit: true,
      region_hit: true,
      n_looks: 2,
      n_maps: 1,
      n_pins: 2,
      n_moves: 1,
      n_measures: 1,
      steps_used: 6,
      action_cost: 0.12,
      total_moved_meters: 20,
      task_id: 'test-00000',
      sequence_id: HALLSTATT.sequence_id,
      split: 'train',
      index: 0,
    });
    expect(end.metadata.distance_km).toBeCloseTo(end.observation.distance_km as number, 12);
    expect(end.observation.feedback).toMatch(/^Right region: your guess 48\.2082, 16\.3738 is 2\d\d km from the true location 47\.5622, 13\.6493 \(Austria\)\./);
  });

  it('a guess in another country of the same subregion is a region hit only', async () => {
    const { episode } = makeEpisode();
    await episode.reset({ index: 0 });
    const end = await episode.step({ op: 'guess', lat: 48.1351, lon: 11.582 });
    expect(end.metadata).toMatchObject({ guess_country: 'Germany', country_hit: false, region_hit: true });
  });

  it('a guess at sea has no guess country and misses', async () => {
    const { episode } = makeEpisode();
    await episode.reset({ index: 0 });
    const end = await episode.step({ op: 'guess', lat: 0, lon: -30 });
    expect(end.metadata).toMatchObject({ guess_country: null, country_hit: false, region_hit: false, verdict: 'Wrong continent' });
  });
});
