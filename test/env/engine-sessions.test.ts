/** Reset, the episode's lifecycle, ordering and isolation. */
import { describe, expect, it } from 'vitest';
import type { Task } from '../../src/core/tasks.js';
import { DEFAULT_ENGINE_CONFIG } from '../../src/env/engine-config.js';
import { Episode } from '../../src/env/engine.js';
import { MCP_TOOL_NAMES } from '../../src/env/actions.js';
import { HALLSTATT, makeEpisode, NAIROBI, VALPARAISO } from './helpers/episodes.js';
import { RecordingViewRenderer } from './helpers/renderers.js';

describe('reset', () => {
  it('opens at the start frame facing true north, with the view and the prompt', async () => {
    const { episode, views } = makeEpisode();
    const start = await episode.reset({ index: 0 });
    expect(start).toMatchObject({ reward: null, done: false });
    expect(start.observation).toMatchObject({
      image_kind: 'view',
      heading_deg: 0,
      pitch_deg: 0,
      fov_deg: 90,
      steps_remaining: 24,
      action_cost: 0,
      pins: [],
      feedback: 'You have 24 actions.',
      captured_at: '2024-06',
      can_move_forward: true,
      can_move_backward: true,
    });
    expect(views.calls).toEqual([
      { pano: { imageId: 'test-0-f2', compassAngle: 30 }, camera: { headingDeg: 0, pitchDeg: 0, fovDeg: 90 }, sizePx: 64 },
    ]);
    const prompt = start.observation.prompt as string;
    expect(prompt).toContain('You have 24 actions.');
    expect(prompt).toContain('says nothing about whether you are right');
    expect(prompt.trimEnd().endsWith('Finish with submit_guess.')).toBe(true);
    for (const tool of MCP_TOOL_NAMES) expect(prompt).toContain(`- ${tool}: `);
    expect(start.metadata).toMatchObject({ op: 'reset', step_count: 0, steps_remaining: 24, action_cost: 0 });
  });

  it('defaults to the train split, else the first split served', async () => {
    const { episode } = makeEpisode();
    await episode.reset({ seed: 0 });
    expect(episode.state()).toMatchObject({ split: 'train', index: 0 });

    const noTrain = makeEpisode({ splits: new Map<string, readonly Task[]>([['eval', [NAIROBI]], ['holdout', [HALLSTATT]]]) });
    await noTrain.episode.reset({ index: 0 });
    expect(noTrain.episode.state()).toMatchObject({ split: 'eval', index: 0 });
  });

  it('takes index exactly and wraps seed modulo the split size, negative seeds included', async () => {
    const { episode } = makeEpisode();
    const cases: [Record<string, unknown>, number][] = [
      [{ index: 2 }, 2],
      [{ seed: 4 }, 1],
      [{ seed: 3 }, 0],
      [{ seed: -1 }, 2],
      [{ index: 1, seed: 0 }, 1],
    ];
    for (const [request, index] of cases) {
      await episode.reset(request);
      expect(episode.state().index, JSON.stringify(request)).toBe(index);
    }
  });

  it('picks a task at random when neither index nor seed is given', async () => {
    const { episode } = makeEpisode({ random: () => 0.999 });
    await episode.reset();
    expect(episode.state()).toMatchObject({ split: 'train', index: 2 });
    await episode.reset({ split: 'eval' });
    expect(episode.state()).toMatchObject({ split: 'eval', index: 0 });
  });

  it('refuses an unknown split, an index out of range and a split without tasks', async () => {
    const { episode } = makeEpisode({ splits: new Map<string, readonly Task[]>([['train', [HALLSTATT, NAIROBI]], ['empty', []]]) });
    await expect(episode.reset({ split: 'test' })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      message: 'unknown split "test": expected one of train, empty',
    });
    await expect(episode.reset({ index: 2 })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      message: 'index 2 is out of range: split "train" has tasks 0 to 1',
    });
    await expect(episode.reset({ split: 'empty', seed: 1 })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(episode.reset({ index: -1 })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(episode.step({ op: 'look' })).rejects.toMatchObject({ code: 'EXECUTION_ERROR' });
  });

  it('uses the given episode id, else a random uuid', async () => {
    const { episode } = makeEpisode();
    const named = await episode.reset({ index: 0, episode_id: 'run7-ep3' });
    expect(named.metadata.episode_id).toBe('run7-ep3');
    const anonymous = await episode.reset({ index: 0 });
    expect(anonymous.metadata.episode_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('a second reset starts over, even after the end', async () => {
    const { episode } = makeEpisode();
    await episode.reset({ index: 0 });
    await episode.step({ op: 'pin', lat: 1, lon: 1 });
    await episode.step({ op: 'guess', lat: 1, lon: 1 });
    expect(episode.done).toBe(true);
    const again = await episode.reset({ index: 2 });
    expect(episode.done).toBe(false);
    expect(again.observation).toMatchObject({ steps_remaining: 24, action_cost: 0, pins: [], can_move_backward: false });
    expect(episode.state()).toMatchObject({ index: 2, step_count: 0, pins: [], frame_index: VALPARAISO.start_frame });
  });
});

describe('lifecycle', () => {
  it('a step or state before any reset is an EXECUTION_ERROR; an invalid action is still a VALIDATION_ERROR', async () => {
    const { episode } = makeEpisode();
    expect(episode.done).toBe(false);
    await expect(episode.step({ op: 'look' })).rejects.toMatchObject({ code: 'EXECUTION_ERROR' });
    expect(() => episode.state()).toThrow(expect.objectContaining({ code: 'EXECUTION_ERROR' }));
    await expect(episode.step({ op: 'fly' })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    expect((await episode.reset({ index: 0 })).done).toBe(false);
  });

  it('steps after the end are refused with "The episode is over" and reward null, changing nothing', async () => {
    const { episode, views, maps } = makeEpisode();
    await episode.reset({ index: 0 });
    await episode.step({ op: 'guess', lat: 47.5, lon: 13.6 });
    const state = episode.state();
    const drawn = [views.calls.length, maps.maps.length, maps.reveals.length];
    for (const action of [{ op: 'look' }, { op: 'pin', lat: 1, lon: 1 }, { op: 'guess', lat: 47.5622, lon: 13.6493 }, { op: 'list_pins' }]) {
      const refused = await episode.step(action);
      expect(refused).toMatchObject({ reward: null, done: true });
      expect(refused.observation.feedback).toMatch(/^The episode is over/);
      expect(refused.observation).toMatchObject({ image_kind: 'none', image_base64: null, available_tools: [] });
    }
    expect(episode.state()).toEqual(state);
    expect([views.calls.length, maps.maps.length, maps.reveals.length]).toEqual(drawn);
  });

  it('a renderer failure is an EXECUTION_ERROR that names no file and changes nothing', async () => {
    const { episode, views } = makeEpisode();
    await episode.reset({ index: 0 });
    const before = episode.state();
    views.failNext = true;
    const error = await episode.step({ op: 'move', meters: 20 }).catch((err: unknown) => err);
    expect(error).toMatchObject({ code: 'EXECUTION_ERROR' });
    expect((error as Error).message).not.toContain('test-0');
    expect(((error as Error).cause as Error).message).toContain('not in the cache');
    expect(episode.state()).toEqual(before);
    expect((await episode.step({ op: 'move', meters: 20 })).observation).toMatchObject({ steps_remaining: 23, action_cost: 0.05 });
  });

  it('pipelined steps run one at a time in arrival order, whatever order their views finish in', async () => {
    // Early calls are the slowest, so without serialisation later steps would overtake them.
    const views = new RecordingViewRenderer((call) => (call === 0 ? 0 : 60 - call * 10));
    const { episode } = makeEpisode({ views });
    await episode.reset({ index: 0 });
    const headings = [10, 20, 30, 40, 50];
    const results = await Promise.all(headings.map((heading_deg) => episode.step({ op: 'look', heading_deg })));
    expect(results.map((r) => r.observation.steps_remaining)).toEqual([23, 22, 21, 20, 19]);
    expect(results.map((r) => r.observation.heading_deg)).toEqual(headings);
    expect(views.calls.slice(1).map((c) => c.camera.headingDeg)).toEqual(headings);

    // A failing step in the middle of a pipeline leaves the ones after it alone.
    const mixed = await Promise.allSettled([
      episode.step({ op: 'pan', delta_deg: 10 }),
      episode.step({ op: 'zoom', fov_deg: 500 }),
      episode.step({ op: 'pan', delta_deg: 10 }),
    ]);
    expect(mixed.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(episode.state()).toMatchObject({ steps_remaining: 17, camera: { heading_deg: 70 } });
  });

  it('two episodes on the same splits are isolated', async () => {
    const pristine = structuredClone(HALLSTATT);
    const a = makeEpisode();
    const b = makeEpisode();
    await Promise.all([a.episode.reset({ index: 0 }), b.episode.reset({ index: 0 })]);
    await a.episode.step({ op: 'pin', lat: 10, lon: 10 });
    await a.episode.step({ op: 'move', meters: 20 });
    await a.episode.step({ op: 'guess', lat: 10, lon: 10 });
    expect(a.episode.done).toBe(true);
    expect(b.episode.done).toBe(false);
    expect(b.episode.state()).toMatchObject({ pins: [], steps_remaining: 24, frame_index: 2, action_cost: 0 });
    expect((await b.episode.step({ op: 'look' })).observation.steps_remaining).toBe(23);
    expect(HALLSTATT).toEqual(pristine);
  });
});

describe('configuration', () => {
  it('defaults match docs/protocol.md and bad values are refused at construction', () => {
    expect(DEFAULT_ENGINE_CONFIG).toEqual({ maxSteps: 24, viewSizePx: 640, curve: 'game', mode: 'subtract', showIdentity: false, freeMeasures: 24 });
    const { episode } = makeEpisode({ config: { maxSteps: 12 } });
    expect(episode.config).toMatchObject({ maxSteps: 12, viewSizePx: 64, freeMeasures: 24 });
    const views = new RecordingViewRenderer();
    const deps = { splits: new Map(), views, maps: makeEpisode().maps };
    expect(() => new Episode({ ...deps, config: { maxSteps: 0 } })).toThrow(RangeError);
    expect(() => new Episode({ ...deps, config: { freeMeasures: 1.5 } })).toThrow(RangeError);
    expect(() => new Episode({ ...deps, config: { curve: 'reference' as 'game' } })).toThrow(/curve/);
  });

  it('an environment without splits refuses resets', async () => {
    const { episode } = makeEpisode({ splits: new Map() });
    await expect(episode.reset()).rejects.toMatchObject({ code: 'VALIDATION_ERROR', message: 'the environment serves no splits' });
  });
});
