import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import { HumanPolicy } from '../../src/agent/policies/human.js';
import { runEpisode } from '../../src/agent/runner.js';
import type { EpisodeSink, Policy } from '../../src/agent/types.js';
import type { EnvClient } from '../../src/env/client/types.js';
import { EmbeddedEnvClient } from '../../src/env/client/embedded.js';
import { createEnvironment, type Environment } from '../../src/env/environment.js';
import { demoSplits } from '../../src/env/task-splits.js';
import type { Action, ResetRequest } from '../../src/env/types.js';
import type { LiveSource } from '../../src/tui/live/types.js';
import { tempDir } from '../helpers/fixtures.js';
import { KEY, renderApp } from './render.js';

/** The real embedded environment, with every action the app sends written down. */
class RecordingClient implements EnvClient {
  readonly kind = 'embedded';
  readonly location = 'embedded';
  readonly steps: Action[] = [];
  private readonly inner: EnvClient;

  constructor(env: Environment) {
    this.inner = new EmbeddedEnvClient(env);
  }
  reset(request?: ResetRequest) {
    return this.inner.reset(request);
  }
  step(action: Action) {
    this.steps.push(action);
    return this.inner.step(action);
  }
  state() {
    return this.inner.state();
  }
  mcp(request: unknown) {
    return this.inner.mcp(request);
  }
  splits() {
    return this.inner.splits();
  }
  close() {
    return this.inner.close();
  }
}

let env: Environment;

beforeAll(async () => {
  env = createEnvironment({ splits: await demoSplits(), panoramasDir: tempDir('geolab-tui-panos-'), demo: true, workers: 0 });
});

afterAll(() => env.close());

afterEach(() => cleanup());

/** `ready`: the run starts only once it resolves (keys pressed before the first decision). */
function source(policy: Policy, client: EnvClient, sink?: EpisodeSink, ready?: Promise<void>): LiveSource {
  const person = policy instanceof HumanPolicy;
  return {
    driver: person ? 'person' : 'model',
    who: person ? 'you' : policy.name,
    prepare: async () => {
      await ready;
      return { client, policy, split: 'eval', index: 0, maxTurns: 24, sink };
    },
  };
}

async function openLive(policy: Policy, size: { columns?: number; rows?: number } = {}, ready?: Promise<void>) {
  const client = new RecordingClient(env);
  let written!: (record: Parameters<EpisodeSink['write']>[0]) => void;
  const recorded = new Promise<Parameters<EpisodeSink['write']>[0]>((resolve) => (written = resolve));
  const sink: EpisodeSink = { write: async (record) => written(record) };
  const app = await renderApp({ route: { screen: 'live', source: source(policy, client, sink, ready) }, services: { runEpisode }, ...size });
  return { app, client, recorded };
}

/** A model that plays a fixed list of actions, then guesses. */
function scripted(actions: Action[]): Policy {
  let next = 0;
  return {
    name: 'scripted-model',
    identity: { provider: 'test' },
    async decide() {
      const action = actions[next++] ?? { op: 'guess', lat: 0, lon: 0 };
      return { action, status: 'ok', model: { reasoning: 'scripted', latency_s: 0.2, tokens: { input: 120, output: 8 } } };
    },
  };
}

describe('Live, a person playing', () => {
  it('right arrow pans 45° in the environment', async () => {
    const { app, client } = await openLive(new HumanPolicy());
    await app.waitFor((f) => f.includes('Your move: turn 1'));
    expect(app.frame()).toContain('LIVE · you · eval/0');
    await app.press(KEY.right);
    await app.waitFor((f) => f.includes('Your move: turn 2'));
    expect(client.steps).toEqual([{ op: 'pan', delta_deg: 45 }]);
    expect(app.frame()).toContain('pan(delta_deg=45)');
  });

  it('p, "47.1, 10.2" and enter place a pin there', async () => {
    const { app, client } = await openLive(new HumanPolicy());
    await app.waitFor((f) => f.includes('Your move: turn 1'));
    await app.press('p');
    expect(app.frame()).toContain('pin at (lat, lon):');
    await app.press(...'47.1, 10.2', KEY.enter);
    await app.waitFor((f) => f.includes('Your move: turn 2'));
    expect(client.steps).toEqual([{ op: 'pin', lat: 47.1, lon: 10.2 }]);
    expect(app.frame()).toContain('Pin 1 placed at 47.1000, 10.2000');
  });

  it('a prompt without coordinates shows the parser note and sends nothing', async () => {
    const { app, client } = await openLive(new HumanPolicy());
    await app.waitFor((f) => f.includes('Your move: turn 1'));
    await app.press('g', ...'nowhere', KEY.enter);
    expect(app.frame()).toContain('Type "lat, lon"');
    await app.press(KEY.escape);
    expect(app.frame()).not.toContain('guess (lat, lon):');
    expect(client.steps).toEqual([]);
  });

  it('z cycles the field of view, up walks forward, and g ends the episode with the reveal', async () => {
    const { app, client } = await openLive(new HumanPolicy(), { columns: 80, rows: 24 });
    await app.waitFor((f) => f.includes('Your move: turn 1'));
    await app.press('z');
    await app.waitFor((f) => f.includes('Your move: turn 2'));
    await app.press('z');
    await app.waitFor((f) => f.includes('Your move: turn 3'));
    await app.press(KEY.up);
    await app.waitFor((f) => f.includes('Your move: turn 4'));
    expect(client.steps).toEqual([
      { op: 'zoom', fov_deg: 50 },
      { op: 'zoom', fov_deg: 30 },
      { op: 'move', direction: 'forward', meters: 15 },
    ]);
    await app.press('g', ...'0, 0', KEY.enter);
    const frame = await app.waitFor((f) => f.includes('reference'));
    expect(frame).toMatch(/game +[█░]+ 0\.\d{4}/);
  });

  it('m switches between the pin\'s map and the last view without a step, then explores the reveal before leaving', async () => {
    const { app, client } = await openLive(new HumanPolicy());
    await app.waitFor((f) => f.includes('Your move: turn 1'));
    await app.press('m');
    expect(app.frame()).toContain('No map yet: p places a pin');
    await app.press('p', ...'47.1, 10.2', KEY.enter);
    let frame = await app.waitFor((f) => f.includes('Your move: turn 2'));
    const budget = /steps left \d+ · cost [\d.]+/.exec(frame)![0];
    expect(frame).toContain('Showing the map around the pin · m shows the last view (no step, costs nothing)');
    await app.press('m');
    frame = app.frame();
    expect(frame).toContain('Showing the last view · m shows the map around the pin');
    await app.press('m', 'm');
    expect(app.frame()).toContain('Showing the last view');
    // Nothing reached the environment: one step (the pin), the same budget, still turn 2.
    expect(client.steps).toEqual([{ op: 'pin', lat: 47.1, lon: 10.2 }]);
    expect(app.frame()).toContain(budget);
    expect(app.frame()).toContain('Your move: turn 2');

    await app.press('g', ...'47.1, 10.2', KEY.enter);
    frame = await app.waitFor((f) => f.includes('reference'));
    expect(frame).toContain('great circle');
    expect(frame).toMatch(/● truth {2}\S/);
    expect(frame).toContain('✕ guess  Austria');
    expect(frame).toContain('Showing the reveal · m shows the last view');
    await app.press('m');
    expect(app.frame()).toContain('Showing the last view · m shows the reveal');
    expect(app.frame()).not.toContain('great circle');
    await app.press('m');
    expect(app.frame()).toContain('great circle');
    // ↑/↓ read the turns again beside the last view; in the environment nothing walks.
    const marked = () => app.frame().split('\n').find((l) => l.includes('◀')) ?? '';
    await app.press(KEY.up);
    expect(app.frame()).toContain('Showing the last view · m shows the reveal · ↑/k ↓/j read the turns again');
    expect(marked()).toContain('pin(lat=47.1, lon=10.2)');
    await app.press(KEY.up, 'j');
    expect(marked()).toContain('guess(lat=47.1, lon=10.2)');
    expect(app.exited()).toBe(false);
    expect(client.steps).toHaveLength(2);
    await app.press('q');
    await app.waitFor(() => app.exited());
  });

  it('q asks before abandoning the episode', async () => {
    const { app } = await openLive(new HumanPolicy());
    await app.waitFor((f) => f.includes('Your move: turn 1'));
    await app.press('q');
    expect(app.frame()).toContain('Quit and abandon this episode? y quits · n/esc stays');
    await app.press('n');
    expect(app.frame()).not.toContain('Quit and abandon');
    await app.press('q', 'y');
    await app.waitFor(() => app.exited());
  });
});

describe('Live, a model playing', () => {
  it('streams tool calls with latency and tokens until the reveal', async () => {
    const { app } = await openLive(scripted([{ op: 'look', heading_deg: 90 }, { op: 'zoom', fov_deg: 30 }]));
    const frame = await app.waitFor((f) => f.includes('reference'));
    expect(frame).toContain('LIVE · scripted-model · eval/0 · 3 actions');
    expect(frame).toContain('0.2 s · 120/8 tok');
    expect(frame).toContain('? help · q leave');
  });

  it('shows the budget the model was told, and the environment\'s beside it, on every turn read again', async () => {
    const told: Policy = {
      name: 'budget-model',
      identity: { provider: 'test' },
      async decide({ turn }) {
        const action: Action = turn === 1 ? { op: 'look', heading_deg: 90 } : { op: 'guess', lat: 0, lon: 0 };
        return { action, status: 'ok', prompt: `Street view. You have ${12 - turn} tool calls left.`, model: { reasoning: 'r', latency_s: 0.1 } };
      },
    };
    const { app } = await openLive(told);
    const end = await app.waitFor((f) => f.includes('reference'));
    expect(end).toContain('told 10 tool calls left · environment 23 steps left');
    await app.press(KEY.up);
    await app.waitFor((f) => f.includes('told 11 tool calls left · environment 24 steps left'));
  });

  it('space pauses before the next decision, n lets exactly one through, a aborts and the episode is recorded as aborted', async () => {
    let start!: () => void;
    const ready = new Promise<void>((resolve) => (start = resolve));
    const { app, client, recorded } = await openLive(scripted([{ op: 'look', heading_deg: 90 }, { op: 'zoom', fov_deg: 30 }]), {}, ready);
    await app.press(' ');
    start();
    await app.waitFor((f) => f.includes('paused before turn 1'));
    expect(app.frame()).toContain('space resume · n next · a abort · r reasoning · ? help · q quit');
    expect(client.steps).toEqual([]);
    await app.press('n');
    await app.waitFor((f) => f.includes('paused before turn 2'));
    expect(client.steps).toEqual([{ op: 'look', heading_deg: 90 }]);
    await app.press('a');
    await app.waitFor((f) => f.includes('Aborted'));
    expect(client.steps).toHaveLength(1);
    expect(await recorded).toMatchObject({ error: 'aborted', failure: 'aborted' });
  });
});
