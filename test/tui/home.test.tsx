import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import type { CompletedEpisode } from '../../src/core/episode.js';
import type { LiveSource } from '../../src/tui/live/types.js';
import { failedEpisode, makeEpisode, memoryWorkspace, type EpisodeFixture } from './fixtures.js';
import { KEY, renderApp } from './render.js';

let fixture: EpisodeFixture;

beforeAll(async () => {
  fixture = await makeEpisode();
});

afterEach(() => cleanup());

async function openHome(options: { play?: () => LiveSource; episodes?: readonly CompletedEpisode[] } = {}) {
  const workspace = memoryWorkspace(options.episodes ?? [fixture.episode, failedEpisode()], fixture.images);
  const app = await renderApp({
    route: { screen: 'home' },
    services: { openWorkspace: async () => workspace, newPlay: options.play },
    columns: 80,
    rows: 24,
  });
  await app.waitFor((f) => /Episodes {3}\d/.test(f));
  return { app, workspace };
}

describe('Home', () => {
  it('summarises the workspace', async () => {
    const { app } = await openHome();
    expect(app.frame()).toContain('workspace /tmp/geolab-test');
    expect(app.frame()).toContain('Tasks      32 in 1 set (demo 32)');
    expect(app.frame()).toContain('last: qwen-test on eval/17');
    expect(app.frame()).toContain('Splits     1 saved: world (eval 200, train 1,234)');
  });

  it('shows only what exists: runs by kind, no audit findings while Audit is not there', async () => {
    const { app } = await openHome();
    expect(app.frame()).toContain('Runs       3 agent · 1 play · 1 imported');
    expect(app.frame()).not.toMatch(/open finding|\d+ eval|\d+ training/);
  });

  it('moves through the menu with the arrows and opens Episodes with enter', async () => {
    const { app } = await openHome();
    expect(app.frame()).toContain('› Episodes');
    await app.press(KEY.down);
    expect(app.frame()).toContain('› Play');
    await app.press(KEY.up);
    expect(app.frame()).toContain('› Episodes');
    await app.press(KEY.enter);
    await app.waitFor((f) => f.includes('EPISODES · 2 recorded'));
  });

  it('says what is not there yet instead of opening it', async () => {
    const { app } = await openHome();
    await app.press(KEY.down, KEY.down, KEY.down);
    expect(app.frame()).toContain('› Eval board');
    expect(app.frame()).toContain('compare models (no workspace)');
    await app.press(KEY.enter);
    expect(app.frame()).toContain('Eval board: no workspace.');
    expect(app.frame()).toContain('› Eval board');
  });

  it('plays keys that arrive in one write in turn: enter opens the item the arrows moved to', async () => {
    const { app } = await openHome();
    await app.press(KEY.down + KEY.down + KEY.down + KEY.enter);
    await app.waitFor((f) => f.includes('Eval board: no workspace.'));
    expect(app.frame()).toContain('› Eval board');
  });

  it('takes a linefeed for enter (what enter sends before the terminal is in raw mode)', async () => {
    const { app } = await openHome();
    await app.press('\n');
    await app.waitFor((f) => f.includes('EPISODES · 2 recorded'));
  });

  it('opens Play on the Live screen when an environment is offered', async () => {
    const source: LiveSource = { driver: 'person', who: 'you', prepare: () => new Promise(() => {}) };
    const { app } = await openHome({ play: () => source });
    await app.press(KEY.down, KEY.enter);
    await app.waitFor((f) => f.includes('LIVE · you · starting'));
  });

  it('q quits', async () => {
    const { app } = await openHome();
    await app.press('q');
    await app.waitFor(() => app.exited());
  });
});

describe('Episodes', () => {
  it('lists episodes newest first and opens the chosen one in the Player', async () => {
    const { app } = await openHome();
    await app.press(KEY.enter);
    const frame = app.frame();
    expect(frame).toContain('› qwen-test    eval/17#2');
    expect(frame).toContain('Pinpoint');
    expect(frame).toContain('failed');
    await app.press(KEY.enter);
    await app.waitFor((f) => f.includes('episode 3f9a21c0'));
    await app.press('q');
    expect(app.frame()).toContain('EPISODES · 2 recorded');
  });

  it('reads only the rows on screen, however many episodes there are', async () => {
    const many = await Promise.all(
      Array.from({ length: 500 }, (_, i) =>
        makeEpisode({ episodeId: `ep-${String(i).padStart(4, '0')}`, recordedAt: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString() }),
      ),
    );
    const { app, workspace } = await openHome({ episodes: many.map((m) => m.episode) });
    await app.press(KEY.enter);
    expect(app.frame()).toContain('EPISODES · 500 recorded');
    await app.press(...Array.from({ length: 30 }, () => KEY.down));
    expect(app.frame()).toContain('31/500');
    const calls = workspace.listCalls;
    expect(Math.max(...calls.map((c) => c.limit))).toBeLessThanOrEqual(24);
    expect(calls[calls.length - 1]!.offset).toBeGreaterThan(0);
    const rows = app.frame().split('\n').filter((line) => line.includes('qwen-test'));
    expect(rows.length).toBeLessThanOrEqual(24);
  });
});
