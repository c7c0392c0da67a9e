/**
 * Keys that arrive together (one stdin write: a paste, or typing faster than a redraw) each apply
 * to the state the key before produced, whatever the screen does between them.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import { HumanPolicy } from '../../src/agent/policies/human.js';
import { runEpisode } from '../../src/agent/runner.js';
import { EmbeddedEnvClient } from '../../src/env/client/embedded.js';
import { createEnvironment, type Environment } from '../../src/env/environment.js';
import { demoSplits } from '../../src/env/task-splits.js';
import { tempDir } from '../helpers/fixtures.js';
import { makeEpisode, memoryWorkspace, type EpisodeFixture } from './fixtures.js';
import { KEY, renderApp } from './render.js';

let fixture: EpisodeFixture;
let env: Environment;

beforeAll(async () => {
  fixture = await makeEpisode();
  env = createEnvironment({ splits: await demoSplits(), panoramasDir: tempDir('geolab-tui-burst-'), demo: true, workers: 0 });
});

afterAll(() => env.close());
afterEach(() => cleanup());

describe('a burst of keys in one write', () => {
  it('steps the Player once per arrow, then back once per arrow', async () => {
    const workspace = memoryWorkspace([fixture.episode], fixture.images);
    const app = await renderApp({ route: { screen: 'player', episodeId: fixture.episode.episode_id }, services: { openWorkspace: async () => workspace } });
    await app.waitFor((f) => f.includes('turn 0/3'));
    app.stdin.write(KEY.right.repeat(3) + KEY.left);
    await app.waitFor((f) => f.includes('turn 2/3'));
    app.stdin.write('Gg' + KEY.right);
    await app.waitFor((f) => f.includes('turn 1/3'));
  });

  it('pans a person five times in the environment, each from where the last left the camera', async () => {
    const client = new EmbeddedEnvClient(env);
    const app = await renderApp({
      route: {
        screen: 'live',
        source: { driver: 'person', who: 'you', prepare: async () => ({ client, policy: new HumanPolicy(), split: 'eval', index: 0, maxTurns: 24 }) },
      },
      services: { runEpisode },
    });
    await app.waitFor((f) => f.includes('Your move: turn 1'));
    app.stdin.write(KEY.right.repeat(5));
    const frame = await app.waitFor((f) => f.includes('Your move: turn 6'));
    expect(frame).toContain('heading 225°');
    expect(frame).toContain('steps left 19');
    expect(frame).not.toContain('Wait for the environment');
  });

  it('types a guess and enters it in one write', async () => {
    const inner = new EmbeddedEnvClient(env);
    const app = await renderApp({
      route: {
        screen: 'live',
        source: { driver: 'person', who: 'you', prepare: async () => ({ client: inner, policy: new HumanPolicy(), split: 'eval', index: 0, maxTurns: 24 }) },
      },
      services: { runEpisode },
    });
    await app.waitFor((f) => f.includes('Your move: turn 1'));
    app.stdin.write(`${KEY.right}g10, 10\r`);
    const end = await app.waitFor((f) => f.includes('reference'));
    expect(end).toContain('guess 10.0000, 10.0000');
  });
});
