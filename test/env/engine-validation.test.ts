import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ActionSchema } from '../../src/env/action-schemas.js';
import { actionJsonSchema, OPS, parseAction, parseResetRequest } from '../../src/env/actions.js';
import { EnvError, type Action } from '../../src/env/types.js';
import { makeEpisode } from './helpers/episodes.js';

function validationMessage(run: () => unknown): string {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(EnvError);
    expect((err as EnvError).code).toBe('VALIDATION_ERROR');
    return (err as EnvError).message;
  }
  throw new Error('expected a validation error');
}

describe('every range is validated, naming the field and what it accepts', () => {
  it.each([
    [{ op: 'look', fov_deg: 5 }, 'look.fov_deg', 'from 10 to 120', '5'],
    [{ op: 'look', fov_deg: 121 }, 'look.fov_deg', 'from 10 to 120', '121'],
    [{ op: 'look', pitch_deg: -91 }, 'look.pitch_deg', 'from -90 to 90', '-91'],
    [{ op: 'look', heading_deg: 3601 }, 'look.heading_deg', 'from -3600 to 3600', '3601'],
    [{ op: 'look', heading_deg: '90' }, 'look.heading_deg', 'expected a number', '"90"'],
    [{ op: 'pan' }, 'pan.delta_deg', 'from -3600 to 3600', 'nothing'],
    [{ op: 'pan', delta_deg: -3700 }, 'pan.delta_deg', 'from -3600 to 3600', '-3700'],
    [{ op: 'zoom', fov_deg: 9.9 }, 'zoom.fov_deg', 'from 10 to 120', '9.9'],
    [{ op: 'zoom' }, 'zoom.fov_deg', 'from 10 to 120', 'nothing'],
    [{ op: 'move', meters: 0 }, 'move.meters', 'above 0 and at most 500', '0'],
    [{ op: 'move', meters: 501 }, 'move.meters', 'above 0 and at most 500', '501'],
    [{ op: 'move', direction: 'left' }, 'move.direction', '"forward" or "backward"', '"left"'],
    [{ op: 'pin', lat: 95, lon: 0 }, 'pin.lat', 'from -90 to 90', '95'],
    [{ op: 'pin', lat: 0, lon: 181 }, 'pin.lon', 'from -180 to 180', '181'],
    [{ op: 'pin', lat: 0 }, 'pin.lon', 'from -180 to 180', 'nothing'],
    [{ op: 'pin', lat: 0, lon: 0, span_deg: 0.02 }, 'pin.span_deg', 'above 0.02 and at most 180', '0.02'],
    [{ op: 'pin', lat: 0, lon: 0, span_deg: 181 }, 'pin.span_deg', 'above 0.02 and at most 180', '181'],
    [{ op: 'pin', lat: 0, lon: 0, label: 'x'.repeat(81) }, 'pin.label', 'at most 80 characters', '"xxxx'],
    [{ op: 'view_map', lat: 0, lon: 0, span_deg: 0.05 }, 'view_map.span_deg', 'above 0.05 and at most 180', '0.05'],
    [{ op: 'view_map', lat: -91, lon: 0 }, 'view_map.lat', 'from -90 to 90', '-91'],
    [{ op: 'measure', lat_a: 0, lon_a: 0, lat_b: 0 }, 'measure.lon_b', 'from -180 to 180', 'nothing'],
    [{ op: 'measure', lat_a: 100, lon_a: 0, lat_b: 0, lon_b: 0 }, 'measure.lat_a', 'from -90 to 90', '100'],
    [{ op: 'reverse_geocode', lat: 0, lon: -200 }, 'reverse_geocode.lon', 'from -180 to 180', '-200'],
    [{ op: 'guess', lat: 95, lon: 0 }, 'guess.lat', 'from -90 to 90', '95'],
    [{ op: 'guess', lat: 10 }, 'guess.lon', 'lat and lon together', 'nothing'],
    [{ op: 'guess' }, 'guess.lat', 'lat and lon, or a response', 'nothing'],
    [{ op: 'guess', response: 42 }, 'guess.response', 'a string', '42'],
  ])('%j', (action, field, range, got) => {
    const message = validationMessage(() => parseAction(action));
    expect(message).toContain(`${field}: expected`);
    expect(message).toContain(range);
    expect(message).toContain(`got ${got}`);
  });

  it('an unknown or missing op, or a non-object, is a validation error that lists the ops', () => {
    expect(validationMessage(() => parseAction({ op: 'fly' }))).toBe(`unknown op "fly": expected one of ${OPS.join(', ')}`);
    expect(validationMessage(() => parseAction({ heading_deg: 10 }))).toMatch(/^missing "op": expected one of look, pan, /);
    expect(validationMessage(() => parseAction({ op: 7 }))).toMatch(/^unknown op 7/);
    for (const raw of [null, 'look', [{ op: 'look' }], 3]) {
      expect(validationMessage(() => parseAction(raw))).toMatch(/^an action must be a JSON object with an "op" field/);
    }
  });

  it('refuses fields no op knows (a typo is not read as the default)', () => {
    expect(validationMessage(() => parseAction({ op: 'look', heading: 90 }))).toBe(
      'look: unknown field "heading" (look takes heading_deg, pitch_deg, fov_deg)',
    );
    expect(validationMessage(() => parseAction({ op: 'list_pins', foo: 1, bar: 2 }))).toBe(
      'list_pins: unknown fields "foo", "bar" (list_pins takes no fields)',
    );
  });
});

describe('accepted actions', () => {
  it('fills the defaults of docs/protocol.md', () => {
    expect(parseAction({ op: 'look' })).toEqual({ op: 'look', heading_deg: 0, pitch_deg: 0, fov_deg: 90 });
    expect(parseAction({ op: 'move' })).toEqual({ op: 'move', direction: 'forward', meters: 10 });
    expect(parseAction({ op: 'pin', lat: 1, lon: 2 })).toEqual({ op: 'pin', lat: 1, lon: 2, span_deg: 7 });
    expect(parseAction({ op: 'view_map', lat: 1, lon: 2 })).toEqual({ op: 'view_map', lat: 1, lon: 2, span_deg: 7 });
  });

  it('takes the inclusive bounds and just above the exclusive ones', () => {
    const ok: Action[] = [
      { op: 'look', heading_deg: -3600, pitch_deg: 90, fov_deg: 10 },
      { op: 'look', heading_deg: 3600, pitch_deg: -90, fov_deg: 120 },
      { op: 'move', direction: 'backward', meters: 500 },
      { op: 'move', meters: 0.001 },
      { op: 'pin', lat: -90, lon: 180, span_deg: 180 },
      { op: 'pin', lat: 90, lon: -180, span_deg: 0.0201, label: 'x'.repeat(80) },
      { op: 'view_map', lat: 0, lon: 0, span_deg: 0.051 },
      { op: 'guess', response: 'somewhere' },
      { op: 'guess', lat: 0, lon: 0, country: 'Chile', confidence: 0.4, reasoning: 'palms' },
    ];
    for (const action of ok) expect(parseAction(action)).toMatchObject(action);
  });

  it('treats null as absent (Python clients dump unset fields) and ignores the fields of other ops', () => {
    expect(parseAction({ op: 'look', heading_deg: 45, pitch_deg: null, fov_deg: null, lat: null, meters: 20 })).toEqual({
      op: 'look',
      heading_deg: 45,
      pitch_deg: 0,
      fov_deg: 90,
    });
    expect(parseAction({ op: 'list_pins', metadata: { trace: 'abc' } })).toEqual({ op: 'list_pins' });
  });

  it('the action schema converts to JSON Schema, one branch per op with its ranges', () => {
    const schema = actionJsonSchema() as { oneOf: { properties: Record<string, Record<string, unknown>>; required?: string[] }[] };
    expect(schema.oneOf.map((branch) => branch.properties.op?.const)).toEqual(OPS);
    const look = schema.oneOf[0]!;
    expect(look.properties.fov_deg).toMatchObject({ minimum: 10, maximum: 120, default: 90 });
    expect(look.required).toEqual(['op']);
    expect(schema.oneOf[3]!.properties.meters).toMatchObject({ exclusiveMinimum: 0, maximum: 500 });
    expect(() => z.toJSONSchema(ActionSchema)).not.toThrow();
  });
});

describe('a validation error costs nothing and changes nothing', () => {
  it.each([
    { op: 'look', fov_deg: 5 },
    { op: 'pin', lat: 95, lon: 0 },
    { op: 'fly' },
    { heading_deg: 90 },
    { op: 'move', meters: 900 },
    { op: 'guess', lat: 1 },
  ])('%j', async (bad) => {
    const { episode, views, maps } = makeEpisode();
    await episode.reset({ index: 0 });
    await episode.step({ op: 'look', heading_deg: 90 });
    const before = episode.state();
    const drawn = [views.calls.length, maps.maps.length, maps.reveals.length];

    await expect(episode.step(bad)).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(episode.state()).toEqual(before);
    expect([views.calls.length, maps.maps.length, maps.reveals.length]).toEqual(drawn);

    const next = await episode.step({ op: 'pan', delta_deg: 10 });
    expect(next.observation).toMatchObject({ heading_deg: 100, steps_remaining: 22, action_cost: 0.02 });
  });
});

describe('reset data', () => {
  it('is validated like actions, nulls counting as absent and unknown keys ignored', () => {
    expect(parseResetRequest(undefined)).toEqual({});
    expect(parseResetRequest({ split: 'eval', index: null, seed: 3, task_index: null })).toEqual({ split: 'eval', seed: 3 });
    expect(validationMessage(() => parseResetRequest({ split: 'eval', task_index: 3 }))).toBe(
      'reset data: unknown key "task_index" ("task_index" is spelt "index" here); accepted keys are split, index, seed, episode_id',
    );
    expect(validationMessage(() => parseResetRequest({ index: -1 }))).toBe('reset.index: expected an integer >= 0, got -1');
    expect(validationMessage(() => parseResetRequest({ index: 1.5 }))).toContain('reset.index');
    expect(validationMessage(() => parseResetRequest({ seed: 'x' }))).toBe('reset.seed: expected an integer, got "x"');
    expect(validationMessage(() => parseResetRequest([1]))).toBe('reset data must be a JSON object, got an array');
  });
});
