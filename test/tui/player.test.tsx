import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import { helpEntries } from '../../src/tui/keys.js';
import { GUESS_MARK, TRUTH_MARK } from '../../src/tui/map/world-map.js';
import { failedEpisode, makeEpisode, memoryWorkspace, type EpisodeFixture } from './fixtures.js';
import { KEY, renderApp } from './render.js';

let fixture: EpisodeFixture;

beforeAll(async () => {
  fixture = await makeEpisode();
});

afterEach(() => cleanup());

async function openPlayer(options: { columns?: number; rows?: number; colour?: boolean } = {}) {
  const workspace = memoryWorkspace([fixture.episode], fixture.images);
  const app = await renderApp({
    route: { screen: 'player', episodeId: fixture.episode.episode_id },
    services: { openWorkspace: async () => workspace },
    ...options,
  });
  await app.waitFor((f) => f.includes('turn 0/3'));
  return app;
}

describe('Player', () => {
  it('starts at the reset turn with the episode in the header', async () => {
    const app = await openPlayer();
    expect(app.frame()).toContain('episode 3f9a21c0 · qwen-test · eval/17 · sample 2');
    expect(app.frame()).toContain('(start)');
  });

  it('right arrow (and l) steps to the next turn, left arrow (and h) back', async () => {
    const app = await openPlayer();
    await app.press(KEY.right);
    expect(app.frame()).toContain('turn 1/3');
    expect(app.frame()).toContain('look(heading_deg=90, fov_deg=90)');
    expect(app.frame()).toMatch(/look\(heading_deg=90, fov_deg=90\)\s+0\.01 ◀/);
    await app.press('l');
    expect(app.frame()).toContain('turn 2/3');
    expect(app.frame()).toMatch(/pin\(lat=47\.2, lon=10\.3\)\s+0\.02 ◀/);
    await app.press(KEY.left, 'h');
    expect(app.frame()).toContain('turn 0/3');
  });

  it('g and G jump to the first and last turn', async () => {
    const app = await openPlayer();
    await app.press('G');
    expect(app.frame()).toContain('turn 3/3');
    await app.press('g');
    expect(app.frame()).toContain('turn 0/3');
  });

  it('r expands and collapses the reasoning', async () => {
    const app = await openPlayer({ columns: 80, rows: 24 });
    await app.press(KEY.right);
    expect(app.frame()).toContain('reasoning (r): German-language sign');
    expect(app.frame()).not.toContain('Looking east first.');
    await app.press('r');
    expect(app.frame()).toContain('Looking east first.');
    await app.press('r');
    expect(app.frame()).not.toContain('Looking east first.');
  });

  it('? shows the help generated from the key table, and closes again', async () => {
    const app = await openPlayer();
    await app.press('?');
    for (const entry of helpEntries(['player'])) {
      expect(app.frame()).toContain(entry.description);
      expect(app.frame()).toContain(entry.keys);
    }
    expect(app.frame()).toContain('←/h');
    await app.press('?');
    expect(app.frame()).not.toContain('show/hide the reasoning');
  });

  it('the last turn shows the map, distance, verdict and both reward curves', async () => {
    const app = await openPlayer();
    await app.press('G');
    const frame = app.frame();
    expect(frame).toContain('Pinpoint · 14 km · guess 47.1000, 10.4000 · truth 47.2000, 10.5500 · country ✓');
    expect(frame).toMatch(/game +█+░* 0\.8999/);
    expect(frame).toMatch(/reference +█+░* 0\.9712/);
    expect(frame).toContain('great circle 14 km');
    await app.press('m');
    expect(app.frame()).not.toContain('great circle 14 km');
  });

  it('the last turn reveals guess and truth 14 km apart on a regional map, with a legend and their places', async () => {
    const app = await openPlayer({ columns: 120, rows: 40 });
    await app.press('G');
    const frame = app.frame();
    const lines = frame.split('\n');
    const at = (mark: string) => {
      const row = lines.findIndex((l) => l.includes(mark));
      return { row, col: row < 0 ? -1 : [...lines[row]!].indexOf(mark) };
    };
    // On a world map the truth hides the guess 14 km away; fitted to both, they are cells apart.
    const guess = at(GUESS_MARK);
    const truth = at(TRUTH_MARK);
    expect(guess.row).toBeGreaterThanOrEqual(0);
    expect(Math.abs(guess.col - truth.col) + Math.abs(guess.row - truth.row)).toBeGreaterThanOrEqual(8);
    // The great circle between them, the legend and the scale.
    expect(lines[truth.row]!.slice(0, 0) + frame).toMatch(/[⠀-⣿]/);
    expect(frame).toMatch(new RegExp(`${GUESS_MARK} guess · ${TRUTH_MARK} truth · ⠒⠒ great circle 14 km · 1 pin · one cell ≈ [\\d.]+ (m|km) across`));
    expect(frame).toContain(`${TRUTH_MARK} truth  Austria (Western Europe), ~64.1 km W of Innsbruck  (47.2000, 10.5500)`);
    expect(frame).toContain(`${GUESS_MARK} guess  Austria (Western Europe), ~66.6 km E of Vaduz  (47.1000, 10.4000)`);
    // Everything fits: the header is still on screen.
    expect(frame).toContain('episode 3f9a21c0');
  });

  it('m shows the pins on the world map at any turn', async () => {
    const app = await openPlayer();
    await app.press(KEY.right, KEY.right, 'm');
    expect(app.frame()).toMatch(/[⠀-⣿]1[⠀-⣿]/);
  });

  it('space autoplays to the end and stops there', async () => {
    const app = await openPlayer();
    await app.press(' ');
    expect(app.frame()).toContain('▶');
    await app.waitFor((f) => f.includes('turn 3/3') && !f.includes('▶'), 8000);
  });

  it('draws the image the model saw once it is rendered', async () => {
    const app = await openPlayer({ colour: true });
    await app.waitFor((f) => f.includes('▄'));
    expect(app.frame()).not.toContain('rendering…');
  });

  it('shows why a failed episode has no turns, and an unknown id', async () => {
    const workspace = memoryWorkspace([failedEpisode()]);
    const failed = await renderApp({ route: { screen: 'player', episodeId: 'dead0000' }, services: { openWorkspace: async () => workspace } });
    await failed.waitFor((f) => f.includes('The episode failed: model endpoint unreachable'));
    const missing = await renderApp({ route: { screen: 'player', episodeId: 'nope' }, services: { openWorkspace: async () => workspace } });
    await missing.waitFor((f) => f.includes('no episode nope in this workspace'));
  });

  it('q leaves the player', async () => {
    const app = await openPlayer();
    await app.press('q');
    await app.waitFor(() => app.exited());
  });
});

describe('keys arriving together', () => {
  it('are played one by one, each on the screen the previous one left', async () => {
    const workspace = memoryWorkspace([fixture.episode], fixture.images);
    const app = await renderApp({ route: { screen: 'player', episodeId: fixture.episode.episode_id }, services: { openWorkspace: async () => workspace } });
    await app.waitFor((f) => f.includes('turn 0/3'));
    await app.press('?');
    app.stdin.write('?ll');
    await app.waitFor((f) => f.includes('turn 2/3'));
  });
});
