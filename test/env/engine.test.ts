import { describe, expect, it } from 'vitest';
import { destinationPoint, haversineKm } from '../../src/core/geodesy.js';
import { truthOf } from '../../src/core/tasks.js';
import { DEMO_TASKS_FILE } from '../../src/paths.js';
import { loadTasksStrict } from '../../src/tasks/load.js';
import { walk } from '../../src/env/episode-rules.js';
import { HALLSTATT, makeEpisode } from './helpers/episodes.js';
import { cameraColour, imageFormat, meanColour } from './helpers/renderers.js';

const TRUTH = truthOf(HALLSTATT);

describe('scoring', () => {
  it('a perfect guess after one look and one pin scores exactly 0.97 on game/subtract', async () => {
    const { episode } = makeEpisode();
    await episode.reset({ index: 0 });
    await episode.step({ op: 'look', heading_deg: 90 });
    await episode.step({ op: 'pin', lat: 35.68, lon: 139.65 });
    const end = await episode.step({ op: 'guess', lat: TRUTH.lat, lon: TRUTH.lon });

    expect(end.reward).toBe(0.97);
    expect(end.done).toBe(true);
    expect(end.observation).toMatchObject({ distance_km: 0, score: 1, action_cost: 0.03, parsed_ok: true });
    expect(end.observation.true_lat).toBe(TRUTH.lat);
    expect(end.observation.true_lon).toBe(TRUTH.lon);
    expect(end.observation.feedback).toMatch(/^Perfect: your guess 47\.5622, 13\.6493 is 0 km from the true location 47\.5622, 13\.6493 \(Austria\)\./);
    expect(end.observation.feedback).toContain('Score 1.0000 (5,000 points), cost 0.03, reward 0.9700.');
    expect(end.metadata).toMatchObject({ verdict: 'Perfect', country_hit: true, region_hit: true, guess_country: 'Austria' });
  });

  it('multiply mode and the mixture curve charge the same cost their own way', async () => {
    for (const config of [{ mode: 'multiply' as const }, { curve: 'mixture' as const }]) {
      const { episode } = makeEpisode({ config });
      await episode.reset({ index: 0 });
      await episode.step({ op: 'move', meters: 10 });
      const end = await episode.step({ op: 'guess', lat: TRUTH.lat, lon: TRUTH.lon });
      expect(end.reward).toBeCloseTo(0.95, 12);
    }
  });

  it('scores the game curve at the check distance of docs/scoring.md (d = 1348.52 km, score 0.4052)', async () => {
    const { episode } = makeEpisode();
    await episode.reset({ index: 0 });
    await episode.step({ op: 'move' });
    const guess = destinationPoint(TRUTH.lat, TRUTH.lon, 250, 1348.52);
    const end = await episode.step({ op: 'guess', lat: guess.lat, lon: guess.lon });
    expect(end.observation.distance_km).toBeCloseTo(1348.52, 6);
    expect(end.observation.score).toBeCloseTo(0.4052, 4);
    expect(end.reward).toBeCloseTo((end.observation.score as number) - 0.05, 12);
    expect(end.metadata.verdict).toBe('Right region');
  });

  it('reads a free-text response with the guess parser', async () => {
    const { episode } = makeEpisode();
    await episode.reset({ index: 0 });
    const end = await episode.step({ op: 'guess', response: 'Alpine lake, German signs. <guess>47.5622, 13.6493</guess>' });
    expect(end.reward).toBe(1);
    expect(end.observation.parsed_ok).toBe(true);
    expect(end.metadata.guess).toEqual([47.5622, 13.6493]);
  });

  it('an unusable response scores 0 with the parser note and reveals with no guess', async () => {
    const { episode, maps } = makeEpisode();
    await episode.reset({ index: 0 });
    const end = await episode.step({ op: 'guess', response: 'Somewhere in the Alps, I think.' });
    expect(end).toMatchObject({ reward: 0, done: true });
    expect(end.observation).toMatchObject({ parsed_ok: false, distance_km: null, score: 0, true_lat: TRUTH.lat });
    expect(end.observation.feedback).toMatch(/^No usable guess\. No latitude and longitude found in the reply\. Reply with/);
    expect(end.observation.feedback).toContain('Scored 0.');
    expect(end.metadata).toMatchObject({ guess: null, guess_country: null, verdict: null, no_guess: true, end: 'unusable_guess' });
    expect(maps.reveals).toEqual([{ guess: null, truth: TRUTH, pins: [] }]);
  });

  it('a perfect guess is a country hit on every demo task (guess and truth share one geocoder)', async () => {
    const { tasks } = await loadTasksStrict(DEMO_TASKS_FILE);
    const { episode } = makeEpisode({ splits: new Map([['demo', tasks]]) });
    for (let index = 0; index < tasks.length; index++) {
      await episode.reset({ index });
      const truth = truthOf(tasks[index]!);
      const end = await episode.step({ op: 'guess', lat: truth.lat, lon: truth.lon });
      expect(end.metadata, tasks[index]!.task_id).toMatchObject({ verdict: 'Perfect', country_hit: true, region_hit: true });
      expect(end.reward).toBe(1);
    }
  });
});

describe('camera', () => {
  it('look sets the camera absolutely with the heading taken mod 360, and draws that view', async () => {
    const { episode, views } = makeEpisode();
    await episode.reset({ index: 0 });
    const turn = await episode.step({ op: 'look', heading_deg: -90, pitch_deg: 20, fov_deg: 60 });
    expect(turn.observation).toMatchObject({ heading_deg: 270, pitch_deg: 20, fov_deg: 60, image_kind: 'view', steps_remaining: 23 });
    expect(turn.observation.feedback).toBe('Facing 270° (W), pitch 20°, field of view 60°. 23 actions left.');
    expect(views.calls.at(-1)).toEqual({
      pano: { imageId: 'test-0-f2', compassAngle: 30 },
      camera: { headingDeg: 270, pitchDeg: 20, fovDeg: 60 },
      sizePx: 64,
    });
    const colour = await meanColour(turn.observation.image_base64 as string);
    const expected = cameraColour({ headingDeg: 270, pitchDeg: 20, fovDeg: 60 });
    for (const channel of ['r', 'g', 'b'] as const) expect(Math.abs(colour[channel] - expected[channel])).toBeLessThanOrEqual(2);
    expect(await imageFormat(turn.observation.image_base64 as string)).toBe('jpeg');
    expect(turn.observation.image_base64).not.toMatch(/^data:/);

    expect((await episode.step({ op: 'look', heading_deg: 765 })).observation).toMatchObject({ heading_deg: 45, pitch_deg: 0, fov_deg: 90 });
  });

  it('pan turns from the current heading and zoom keeps it', async () => {
    const { episode } = makeEpisode();
    await episode.reset({ index: 0 });
    await episode.step({ op: 'look', heading_deg: 300 });
    const pan = await episode.step({ op: 'pan', delta_deg: 100 });
    expect(pan.observation.heading_deg).toBe(40);
    expect(pan.observation.feedback).toBe('Turned 100° right; now facing 40° (NE). 22 actions left.');
    expect((await episode.step({ op: 'pan', delta_deg: -50 })).observation.feedback).toBe('Turned 50° left; now facing 350° (N). 21 actions left.');
    const zoom = await episode.step({ op: 'zoom', fov_deg: 30 });
    expect(zoom.observation).toMatchObject({ heading_deg: 350, fov_deg: 30, action_cost: 0.04 });
    expect(zoom.observation.feedback).toBe('Field of view now 30°, facing 350° (N). 20 actions left.');
  });
});

describe('move', () => {
  it('walks frame by frame until at least the asked metres are covered', async () => {
    const { episode, views } = makeEpisode();
    await episode.reset({ index: 0 });
    const forward = await episode.step({ op: 'move', meters: 15 });
    expect(episode.state().frame_index).toBe(4);
    expect(forward.observation.moved_meters).toBeCloseTo(20, 1);
    expect(forward.observation.feedback).toBe('Moved 20 m forward (20 m moved in total). 23 actions left.');
    expect(views.calls.at(-1)?.pano.imageId).toBe('test-0-f4');

    const back = await episode.step({ op: 'move', direction: 'backward', meters: 30 });
    expect(episode.state().frame_index).toBe(1);
    expect(back.observation).toMatchObject({ total_moved_meters: 50, can_move_forward: true, can_move_backward: true, action_cost: 0.1 });
  });

  it('stops at the end of the sequence and says the road ends there', async () => {
    const { episode } = makeEpisode();
    await episode.reset({ index: 0 });
    const far = await episode.step({ op: 'move', meters: 500 });
    expect(episode.state().frame_index).toBe(5);
    expect(far.observation).toMatchObject({ can_move_forward: false, can_move_backward: true });
    expect(far.observation.feedback).toBe('Moved 30 m forward; the captured road ends here going forward (30 m moved in total). 23 actions left.');
  });

  it('a dead end is charged 0.05 and a step, moves nothing and still shows the view', async () => {
    const { episode } = makeEpisode();
    await episode.reset({ index: 1 });
    const stuck = await episode.step({ op: 'move', direction: 'backward' });
    expect(stuck.observation).toMatchObject({
      action_cost: 0.05,
      steps_remaining: 23,
      moved_meters: 0,
      image_kind: 'view',
      can_move_forward: false,
      can_move_backward: false,
    });
    expect(stuck.observation.feedback).toBe('Dead end: the captured road ends here going backward, so you did not move (0 m moved in total). 23 actions left.');
  });

  it('walk() covers the sequence in both directions', () => {
    const frames = HALLSTATT.frames;
    expect(walk(frames, 0, 'forward', 25)).toMatchObject({ frameIndex: 3, atEnd: false });
    expect(walk(frames, 3, 'backward', 10)).toMatchObject({ frameIndex: 2, atEnd: false });
    expect(walk(frames, 0, 'backward', 10)).toEqual({ frameIndex: 0, movedMeters: 0, atEnd: true });
    const span = haversineKm(frames[0]!.lat, frames[0]!.lon, frames[5]!.lat, frames[5]!.lon) * 1000;
    expect(walk(frames, 0, 'forward', 500).movedMeters).toBeCloseTo(span, 6);
  });
});

describe('pins, maps and measures', () => {
  it('a pin is numbered, drawn centred on itself with every pin, and described with its nearest city', async () => {
    const { episode, maps } = makeEpisode();
    await episode.reset({ index: 0 });
    const first = await episode.step({ op: 'pin', lat: 35.6762, lon: 139.6503, label: 'Tokyo?' });
    expect(first.observation.feedback).toMatch(/^Pin 1 placed at 35\.6762, 139\.6503 - Japan \(Eastern Asia\), ~[\d.]+ km [NESW]{1,2} of [^.]+\. 23 actions left\.$/);
    const second = await episode.step({ op: 'pin', lat: 37.5665, lon: 126.978, span_deg: 2 });
    expect(second.observation.feedback).toMatch(/^Pin 2 placed at 37\.5665, 126\.9780 - South Korea \(Eastern Asia\), .*\. 1,1\d\d km from pin 1\. 22 actions left\.$/);
    expect(second.observation).toMatchObject({ image_kind: 'map', action_cost: 0.04 });
    expect(await imageFormat(second.observation.image_base64 as string)).toBe('png');
    expect(second.observation.pins).toEqual([
      { index: 1, lat: 35.6762, lon: 139.6503, label: 'Tokyo?', description: expect.stringMatching(/^Japan \(Eastern Asia\), ~/) },
      { index: 2, lat: 37.5665, lon: 126.978, label: null, description: expect.stringMatching(/^South Korea/) },
    ]);
    expect(maps.maps).toEqual([
      { centerLat: 35.6762, centerLon: 139.6503, spanDeg: 7, pins: [{ index: 1, lat: 35.6762, lon: 139.6503 }] },
      {
        centerLat: 37.5665,
        centerLon: 126.978,
        spanDeg: 2,
        pins: [
          { index: 1, lat: 35.6762, lon: 139.6503 },
          { index: 2, lat: 37.5665, lon: 126.978 },
        ],
      },
    ]);
  });

  it('a pin at sea says open water', async () => {
    const { episode } = makeEpisode();
    await episode.reset({ index: 0 });
    const pin = await episode.step({ op: 'pin', lat: -30, lon: -140 });
    expect(pin.observation.feedback).toMatch(/^Pin 1 placed at -30\.0000, -140\.0000 - open water, ~[\d,]+ km [NESW]{1,2} of /);
  });

  it('view_map draws anywhere without adding a pin; list, clear and reverse_geocode are free', async () => {
    const { episode, maps } = makeEpisode();
    await episode.reset({ index: 0 });
    await episode.step({ op: 'pin', lat: 48.8566, lon: 2.3522 });
    const map = await episode.step({ op: 'view_map', lat: 40.4168, lon: -3.7038, span_deg: 3 });
    expect(map.observation.feedback).toBe('Map centred at 40.4168, -3.7038 - Spain; 6° wide. 22 actions left.');
    expect(map.observation.pins).toHaveLength(1);
    expect(maps.maps.at(-1)).toEqual({ centerLat: 40.4168, centerLon: -3.7038, spanDeg: 3, pins: [{ index: 1, lat: 48.8566, lon: 2.3522 }] });

    const listed = await episode.step({ op: 'list_pins' });
    expect(listed.observation.feedback).toMatch(/^Pin 1 at 48\.8566, 2\.3522 - France \(Western Europe\), /);
    const place = await episode.step({ op: 'reverse_geocode', lat: -33.8688, lon: 151.2093 });
    expect(place.observation.feedback).toMatch(/^-33\.8688, 151\.2093 - Australia \(Australia and New Zealand\), ~[\d.]+ km [NESW]{1,2} of Sydney\.$/);
    const cleared = await episode.step({ op: 'clear_pins' });
    expect(cleared.observation.feedback).toBe('Cleared 1 pin (their cost is not refunded).');
    expect(cleared.observation).toMatchObject({ pins: [], steps_remaining: 22, action_cost: 0.03, image_kind: 'none', image_base64: null });
    const again = await episode.step({ op: 'pin', lat: 41.9, lon: 12.5 });
    expect(again.observation.feedback).toMatch(/^Pin 1 placed at 41\.9000, 12\.5000 - Italy/);
  });

  it('measure is free for 24 calls, says when the free ones are spent, then costs 0.01 and a step', async () => {
    const { episode } = makeEpisode();
    await episode.reset({ index: 0 });
    const measure = { op: 'measure', lat_a: 0, lon_a: 0, lat_b: 0, lon_b: 1 };
    for (let i = 1; i <= 23; i++) {
      const turn = await episode.step(measure);
      expect(turn.observation).toMatchObject({ steps_remaining: 24, action_cost: 0 });
      expect(turn.observation.feedback).toBe('From 0.0000, 0.0000 to 0.0000, 1.0000: 111 km.');
    }
    const last = await episode.step(measure);
    expect(last.observation.feedback).toBe(
      'From 0.0000, 0.0000 to 0.0000, 1.0000: 111 km. That was the last of 24 free measures; more cost 0.01 and one action each.',
    );
    const paid = await episode.step(measure);
    expect(paid.observation).toMatchObject({ steps_remaining: 23, action_cost: 0.01, image_kind: 'none' });
    expect(paid.observation.feedback).toBe('From 0.0000, 0.0000 to 0.0000, 1.0000: 111 km. The free measures are spent: this one cost 0.01 and one action. 23 actions left.');
    expect(paid.metadata).toMatchObject({ step_cost: 0.01, step_count: 25, steps_used: 1 });
  });
});

describe('budget', () => {
  it('the action that spends the last step takes effect, then ends the episode with reward 0 and no guess', async () => {
    const { episode, maps } = makeEpisode();
    const reset = await episode.reset({ index: 0 });
    expect(reset.observation.steps_remaining).toBe(24);
    for (let i = 1; i < 24; i++) expect((await episode.step({ op: 'pan', delta_deg: 10 })).done).toBe(false);
    const last = await episode.step({ op: 'look', heading_deg: 180 });
    expect(last).toMatchObject({ done: true, reward: 0 });
    expect(last.observation).toMatchObject({
      steps_remaining: 0,
      heading_deg: 180,
      image_kind: 'view',
      distance_km: null,
      score: 0,
      parsed_ok: false,
      true_lat: TRUTH.lat,
      available_tools: [],
    });
    expect(last.observation.feedback).toBe('Facing 180° (S), pitch 0°, field of view 90°. Out of actions. No guess was made, so the episode scores 0.');
    expect(last.metadata).toMatchObject({ end: 'out_of_actions', no_guess: true, guess: null, verdict: null, steps_used: 24, action_cost: 0.24 });
    expect(maps.reveals).toHaveLength(0);

    const late = await episode.step({ op: 'guess', lat: TRUTH.lat, lon: TRUTH.lon });
    expect(late).toMatchObject({ done: true, reward: null });
    expect(late.observation.feedback).toMatch(/^The episode is over/);
  });

  it('honours a configured budget, with a pin as the last action', async () => {
    const { episode } = makeEpisode({ config: { maxSteps: 2 } });
    const reset = await episode.reset({ index: 0 });
    expect(reset.observation.prompt).toContain('You have 2 actions.');
    expect((await episode.step({ op: 'move' })).observation.feedback).toMatch(/ 1 actions left\.$/);
    const last = await episode.step({ op: 'pin', lat: 10, lon: 10 });
    expect(last).toMatchObject({ done: true, reward: 0 });
    expect(last.observation.image_kind).toBe('map');
    expect(last.observation.feedback).toMatch(/^Pin 1 placed at 10\.0000, 10\.0000 - .* Out of actions\./);
  });

  it('one guess per episode: a second one is refused without re-scoring', async () => {
    const { episode, maps } = makeEpisode();
    await episode.reset({ index: 0 });
    const first = await episode.step({ op: 'guess', lat: 47, lon: 13 });
    expect(first.done).toBe(true);
    const second = await episode.step({ op: 'guess', lat: TRUTH.lat, lon: TRUTH.lon });
    expect(second).toMatchObject({ done: true, reward: null });
    expect(second.observation.feedback).toBe('The episode is over: nothing more can be done in it. Reset to start a new episode.');
    expect(second.observation.distance_km).toBe(first.observation.distance_km);
    expect(second.metadata).toMatchObject({ refused: true });
    expect(second.metadata).not.toHaveProperty('country');
    expect(maps.reveals).toHaveLength(1);
    expect(episode.state()).toMatchObject({ done: true, step_count: 1 });
  });
});
