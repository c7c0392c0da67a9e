import { afterEach, describe, expect, it, vi } from 'vitest';

// Chalk decides its colour level when first imported, and a test process has no terminal: force
// colours on, so that "no colour codes" under NO_COLOR is a real finding and not a given.
vi.hoisted(() => {
  process.env.FORCE_COLOR = '1';
});

import { cleanup } from 'ink-testing-library';
import { GUESS_MARK, TRUTH_MARK } from '../../src/tui/map/world-map.js';
import { colourFromEnv } from '../../src/tui/theme.js';
import { makeEpisode, memoryWorkspace } from './fixtures.js';
import { renderApp } from './render.js';

/** An SGR sequence with a colour parameter (30-49, 90-107; 38 and 48 start extended colours); bold is no colour. */
const ESC = String.fromCharCode(27);
const COLOUR_CODE = new RegExp(`${ESC}\\[(?:[0-9;]*;)?(?:3\\d|4\\d|9[0-7]|10[0-7])(?:;[0-9;]*)?m`);

afterEach(() => cleanup());

async function lastTurn(colour: boolean) {
  const fixture = await makeEpisode();
  const app = await renderApp({
    route: { screen: 'player', episodeId: fixture.episode.episode_id },
    services: { openWorkspace: async () => memoryWorkspace([fixture.episode], fixture.images) },
    colour,
  });
  await app.waitFor((f) => f.includes('turn 0/3'));
  return app;
}

describe('colour', () => {
  it('NO_COLOR set to anything but the empty string turns colour off', () => {
    expect(colourFromEnv({ NO_COLOR: '1' })).toBe(false);
    expect(colourFromEnv({ NO_COLOR: '' })).toBe(true);
    expect(colourFromEnv({})).toBe(true);
  });

  it('the reveal draws guess and truth in their own colours, the truth not in the land\'s green', async () => {
    const app = await lastTurn(true);
    await app.press('G');
    // The regional map waits for the geography (loaded lazily, slow on a loaded machine).
    await app.waitFor((f) => f.includes(TRUTH_MARK) && f.includes(GUESS_MARK));
    // The SGR codes right before each mark: blueBright (94) for the truth, redBright (91) for the guess.
    const codesBefore = (mark: string) => new RegExp(`((?:${ESC}\\[[0-9;]*m)+)${mark}`).exec(app.frame())?.[1] ?? '';
    expect(codesBefore(TRUTH_MARK)).toContain(`${ESC}[94m`);
    expect(codesBefore(GUESS_MARK)).toContain(`${ESC}[91m`);
    expect(codesBefore(TRUTH_MARK)).not.toContain(`${ESC}[32m`);
  });

  it('with colour, verdicts, the map and the image are coloured', async () => {
    const app = await lastTurn(true);
    await app.waitFor((f) => f.includes('▀'));
    expect(app.frame()).toMatch(COLOUR_CODE);
    await app.press('G');
    expect(app.frame()).toMatch(COLOUR_CODE);
  });

  it('under NO_COLOR no frame carries a colour code, and the image says why it is not drawn', async () => {
    const app = await lastTurn(colourFromEnv({ NO_COLOR: '1' }));
    expect(app.frame()).toContain('image hidden (NO_COLOR)');
    await app.press('?', '?', 'l', 'r', 'G', 'm', 'm');
    for (const frame of app.frames) expect(frame).not.toMatch(COLOUR_CODE);
  });
});
