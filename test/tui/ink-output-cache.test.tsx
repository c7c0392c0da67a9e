import { cleanup } from 'ink-testing-library';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { shareInkOutputCaches } from '../../src/tui/ink-output-cache.js';
import { makeEpisode, memoryWorkspace, type EpisodeFixture } from './fixtures.js';
import { KEY, renderApp } from './render.js';

let fixture: EpisodeFixture;

beforeAll(async () => {
  fixture = await makeEpisode();
});

afterEach(() => cleanup());

/** Every frame of a coloured Player stepped forward to the end and back, images drawn. */
async function stepThroughPlayer(): Promise<string[]> {
  const app = await renderApp({
    route: { screen: 'player', episodeId: fixture.episode.episode_id },
    services: { openWorkspace: async () => memoryWorkspace([fixture.episode], fixture.images) },
    colour: true,
  });
  const frames = [await app.waitFor((f) => f.includes('turn 0/3') && !f.includes('rendering'))];
  for (const [key, turn] of [[KEY.right, 1], [KEY.right, 2], [KEY.right, 3], [KEY.left, 2], [KEY.left, 1], [KEY.left, 0]] as const) {
    await app.press(key);
    frames.push(await app.waitFor((f) => f.includes(`turn ${turn}/3`) && !f.includes('rendering')));
  }
  app.unmount();
  return frames;
}

describe('Ink output caches shared between renders', () => {
  // One test: the shim patches Ink for the rest of this file, so the frames without it come first.
  it('applies to the installed Ink and leaves every frame as it was', async () => {
    const before = await stepThroughPlayer();
    expect(new Set(before).size).toBeGreaterThan(3); // the frames differ from turn to turn

    expect(await shareInkOutputCaches()).toBe(true);
    expect(await shareInkOutputCaches()).toBe(true); // once only: a second call changes nothing
    const after = await stepThroughPlayer();
    expect(after).toEqual(before);
  });
});
