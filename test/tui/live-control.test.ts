import { describe, expect, it } from 'vitest';
import { HumanPolicy } from '../../src/agent/policies/human.js';
import type { Policy, PolicyContext } from '../../src/agent/types.js';
import type { Observation } from '../../src/env/types.js';
import { Gate, gatedPolicy } from '../../src/tui/live/gate.js';
import { nextFov, personMove, promptAction } from '../../src/tui/live/person.js';

const context = (signal = new AbortController().signal, turn = 1): PolicyContext => ({
  turn,
  maxTurns: 12,
  turnsLeft: 12 - turn + 1,
  observation: {} as Observation,
  history: [],
  forced: false,
  signal,
});

/** Resolves to whether `promise` settled within a few event-loop turns. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => (done = true),
    () => (done = true),
  );
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  return done;
}

function counting(): Policy & { calls: number } {
  const policy = {
    name: 'counting',
    identity: { provider: 'test' },
    calls: 0,
    async decide() {
      policy.calls++;
      return { action: { op: 'zoom', fov_deg: 30 } as const, status: 'ok' as const };
    },
  };
  return policy;
}

describe('the pause gate', () => {
  it('lets decisions straight through while running', async () => {
    const inner = counting();
    const policy = gatedPolicy(inner, new Gate(), new AbortController().signal);
    await policy.decide(context());
    expect(inner.calls).toBe(1);
    expect(policy.name).toBe('counting');
  });

  it('holds the next decision when paused and tells the listener', async () => {
    const events: string[] = [];
    const gate = new Gate({ held: () => events.push('held'), released: () => events.push('released') });
    const inner = counting();
    gate.pause();
    const decision = gatedPolicy(inner, gate, new AbortController().signal).decide(context());
    expect(await settled(decision)).toBe(false);
    expect(inner.calls).toBe(0);
    gate.resume();
    await decision;
    expect(inner.calls).toBe(1);
    expect(events).toEqual(['held', 'released']);
  });

  it('step lets exactly one decision through, then holds again', async () => {
    const gate = new Gate();
    const inner = counting();
    const policy = gatedPolicy(inner, gate, new AbortController().signal);
    gate.pause();
    const first = policy.decide(context());
    expect(await settled(first)).toBe(false);
    gate.step();
    await first;
    const second = policy.decide(context(undefined, 2));
    expect(await settled(second)).toBe(false);
    expect(inner.calls).toBe(1);
  });

  it('step while running plays the next decision and holds the one after', async () => {
    const gate = new Gate();
    const inner = counting();
    const policy = gatedPolicy(inner, gate, new AbortController().signal);
    gate.step();
    await policy.decide(context());
    expect(await settled(policy.decide(context(undefined, 2)))).toBe(false);
    expect(inner.calls).toBe(1);
  });

  it('abort rejects a held decision without calling the policy', async () => {
    const gate = new Gate();
    const abort = new AbortController();
    const inner = counting();
    gate.pause();
    const decision = gatedPolicy(inner, gate, abort.signal).decide(context());
    abort.abort(new Error('aborted by the user'));
    await expect(decision).rejects.toThrow('aborted by the user');
    expect(inner.calls).toBe(0);
  });
});

describe('HumanPolicy', () => {
  it('decide() waits for the person; submit() answers with the action', async () => {
    const human = new HumanPolicy();
    const seen: (number | undefined)[] = [];
    human.onWaiting((c) => seen.push(c?.turn));
    expect(human.submit({ op: 'pan', delta_deg: 45 })).toBe(false);
    const decision = human.decide(context(undefined, 3));
    expect(human.waiting?.turn).toBe(3);
    expect(human.submit({ op: 'pan', delta_deg: 45 })).toBe(true);
    await expect(decision).resolves.toEqual({ action: { op: 'pan', delta_deg: 45 }, status: 'ok' });
    expect(human.waiting).toBeUndefined();
    expect(seen).toEqual([3, undefined]);
  });

  it('an abort rejects the waiting decision', async () => {
    const human = new HumanPolicy();
    const abort = new AbortController();
    const decision = human.decide(context(abort.signal));
    abort.abort(new Error('quit'));
    await expect(decision).rejects.toThrow('quit');
    expect(human.waiting).toBeUndefined();
  });

  it('refuses a second decide while a turn is waiting', async () => {
    const human = new HumanPolicy();
    void human.decide(context());
    await expect(human.decide(context())).rejects.toThrow('already waiting');
  });
});

describe('a person’s keys', () => {
  const observation = { heading_deg: 135, pitch_deg: 5, fov_deg: 50, pins: [{ index: 1, lat: 47, lon: 10, label: null, description: '' }] } as unknown as Observation;

  it('map to environment actions', () => {
    expect(personMove('person.panLeft', observation)).toEqual({ kind: 'act', action: { op: 'pan', delta_deg: -45 } });
    expect(personMove('person.backward', observation)).toEqual({ kind: 'act', action: { op: 'move', direction: 'backward', meters: 15 } });
    expect(personMove('person.look', observation)).toEqual({ kind: 'act', action: { op: 'look', heading_deg: 135, pitch_deg: 5, fov_deg: 50 } });
    expect(personMove('person.map', observation)).toEqual({ kind: 'act', action: { op: 'view_map', lat: 47, lon: 10 } });
    expect(personMove('person.pin', observation)).toEqual({ kind: 'prompt', purpose: 'pin' });
    expect(personMove('player.next', observation)).toBeNull();
  });

  it('v without a pin says so instead of acting', () => {
    expect(personMove('person.map', { ...observation, pins: [] })).toMatchObject({ kind: 'notice' });
  });

  it('z cycles the field of view 90 -> 50 -> 30 -> 90', () => {
    expect([90, 50, 30].map(nextFov)).toEqual([50, 30, 90]);
    expect(nextFov(120)).toBe(90);
    expect(nextFov(10)).toBe(90);
  });

  it('the prompt reads coordinates the way guesses are parsed', () => {
    expect(promptAction('pin', '47.1, 10.2')).toEqual({ ok: true, action: { op: 'pin', lat: 47.1, lon: 10.2 } });
    expect(promptAction('guess', '48°51\'N 2°17\'E')).toMatchObject({ ok: true, action: { op: 'guess' } });
    expect(promptAction('guess', 'somewhere')).toMatchObject({ ok: false });
  });

  it('a prompt without coordinates speaks to the person who typed it, never of "the reply"', () => {
    expect(promptAction('pin', 'somewhere')).toEqual({ ok: false, message: 'No latitude and longitude in "somewhere". Type "lat, lon", e.g. 47.1, 10.2.' });
    expect(promptAction('pin', '  ')).toEqual({ ok: false, message: 'Nothing typed. Type "lat, lon", e.g. 47.1, 10.2.' });
    const outOfRange = promptAction('guess', '95, 10');
    expect(outOfRange).toMatchObject({ ok: false, message: expect.stringContaining('Latitude 95 is out of range') as unknown });
    expect(JSON.stringify(outOfRange)).not.toContain('reply');
  });
});
