/** The Compare screen: two episodes of one task side by side, stepped with the arrows, the map of both guesses. */
import { cleanup } from 'ink-testing-library';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CompletedEpisode } from '../../src/core/episode.js';
import { saveEpisode } from '../../src/store/episodes.js';
import { helpEntries } from '../../src/tui/keys.js';
import { TRUTH_MARK } from '../../src/tui/map/world-map.js';
import { workspaceView } from '../../src/tui/workspace-view.js';
import { completedRecord } from '../helpers/episodes.js';
import { tempWorkspaces } from '../helpers/workspaces.js';
import { makeEpisode, memoryWorkspace, type EpisodeFixture } from './fixtures.js';
import { KEY, renderApp } from './render.js';

let fixture: EpisodeFixture;
/** The same task as the fixture's, played in two turns: a zoom, then a guess across the border. */
let other: CompletedEpisode;

beforeAll(async () => {
  fixture = await makeEpisode();
  const [start] = fixture.episode.turns;
  other = {
    ...fixture.episode,
    episode_id: '7b00aa11-0000-4000-8000-000000000009',
    model_name: 'other-model',
    turns: [
      start!,
      { turn: 1, status: 'ok', action: { action: 'zoom', fov_deg: 30 }, camera_after: { heading_deg: 0, pitch_deg: 0, fov_deg: 30, frame_index: 0 }, image_kind: 'view', feedback: 'Field of view now 30°. 23 actions left.', action_cost: 0.01 },
      { turn: 2, status: 'ok', action: { action: 'guess', lat: 46.5, lon: 11.3 }, image_kind: 'none', feedback: 'Close: 120 km.', action_cost: 0.01, done: true },
    ],
    outcome: { reward: 0.91, distance_km: 120.5, guess: [46.5, 11.3], truth: [47.2, 10.55], verdict: 'Close', action_cost: 0.01, turns_used: 2 },
  };
});

afterEach(() => cleanup());

async function openCompare(options: { columns?: number; rows?: number } = {}) {
  const workspace = memoryWorkspace([fixture.episode, other], fixture.images);
  const app = await renderApp({
    route: { screen: 'compare', a: { episodeId: fixture.episode.episode_id }, b: { episodeId: other.episode_id } },
    services: { openWorkspace: async () => workspace },
    ...options,
  });
  await app.waitFor((f) => f.includes('turn 0/3'));
  return app;
}

const mixture = (d: number) => 0.5 * Math.exp(-d / 1492.7) + 0.5 * Math.exp(-d / 5000);

describe('Compare', () => {
  it('shows both episodes of the task side by side, each with its outcome on both curves', async () => {
    const app = await openCompare();
    const frame = app.frame();
    expect(frame).toContain('COMPARE eval/17');
    expect(frame).toMatch(/A 3f9a21c0 qwen-test · sample 2 +B 7b00aa11 other-model · sample 2/);
    expect(frame).toMatch(/turn 0 · \+0\.00 \(0\.00 in all\) · \(start\) +turn 0 · \+0\.00 \(0\.00 in all\) · \(start\)/);
    expect(frame).toMatch(/view 0° N, pitch 0°, fov 90°, frame 0 +view 0° N, pitch 0°, fov 90°, frame 0/);
    expect(frame).toMatch(/Pinpoint · 14 km +Close · 121 km/);
    expect(frame).toContain(`reference ${(mixture(14.2) * 0.97).toFixed(4)} · game 0.8999 · cost 0.03`);
    expect(frame).toContain(`reference ${(mixture(120.5) * 0.99).toFixed(4)} · game 0.9100 · cost 0.01`);
  });

  it('steps both sides through the turns with the arrows; a side that ended says so', async () => {
    const app = await openCompare();
    await app.press(KEY.right);
    expect(app.frame()).toContain('turn 1/3');
    expect(app.frame()).toMatch(/turn 1 · \+0\.01 \(0\.01 in all\) · look\(heading_deg=90, fov_d\S* +turn 1 · \+0\.01 \(0\.01 in all\) · zoom\(fov_deg=30\)/);
    expect(app.frame()).toMatch(/view 90° E, pitch 0°, fov 90°, frame 0 +view 0° N, pitch 0°, fov 30°, frame 0/);
    await app.press('l');
    expect(app.frame()).toMatch(/ pin 47\.2000, 10\.3000 ±7° +guess 46\.5000, 11\.3000/);
    await app.press(KEY.left, KEY.left);
    expect(app.frame()).toContain('turn 0/3');
    await app.press('G');
    // The last turn opens the map: both guesses, lettered, and the truth; m closes it.
    expect(app.frame()).toContain('turn 3/3');
    expect(app.frame()).toContain(`A qwen-test · B other-model · ${TRUTH_MARK} truth`);
    await app.press('m');
    expect(app.frame()).toMatch(/turn 3 · \+0\.00 \(0\.03 in all\) · guess\(lat=47\.1, lon=10\.4\) +no such turn: this episode had ended/);
    expect(app.frame()).toContain('guess 47.1000, 10.4000');
  });

  it('lists its keys in the help, and esc leaves', async () => {
    const app = await openCompare();
    await app.press('?');
    for (const entry of helpEntries(['compare'])) expect(app.frame()).toContain(entry.description);
    await app.press(KEY.escape, KEY.escape);
    expect(app.exited()).toBe(true);
  });

  it('shows a record read from a file with the images it names, and refuses two tasks', async () => {
    const fromFile = await renderApp({
      route: { screen: 'compare', a: { label: 'run.jsonl:1', record: fixture.episode, images: fixture.images }, b: { label: 'run.jsonl:2', record: other, images: new Map() } },
      colour: true,
    });
    await fromFile.waitFor((f) => f.includes('turn 0/3') && !f.includes('rendering'));
    // The file's images are drawn (half-blocks); the side without images says so.
    expect(fromFile.frame()).toContain('▀');
    expect(fromFile.frame()).toContain('no image this turn');
    cleanup();
    const mismatch = await renderApp({
      route: { screen: 'compare', a: { label: 'x.jsonl:1', record: fixture.episode, images: new Map() }, b: { label: 'x.jsonl:2', record: { ...other, task: { split: 'eval', index: 3 } }, images: new Map() } },
    });
    await mismatch.waitFor((f) => f.includes('different tasks'));
    expect(mismatch.frame()).toContain('x.jsonl:1 plays eval/17, x.jsonl:2 plays eval/3');
  });
});

describe('Episodes → Compare', () => {
  const workspace = tempWorkspaces();

  it('x marks an episode, x on another of the same task opens both in Compare; another task is refused', async () => {
    const ws = await workspace();
    const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString();
    saveEpisode(ws.db, completedRecord({ id: 'aaaa0001', index: 4, model: 'base', recordedAt: at(2) }));
    saveEpisode(ws.db, completedRecord({ id: 'bbbb0002', index: 9, model: 'base', recordedAt: at(1) }));
    saveEpisode(ws.db, completedRecord({ id: 'cccc0003', index: 4, model: 'tuned', distanceKm: 3, recordedAt: at(0) }));
    const view = workspaceView(ws);
    const app = await renderApp({ route: { screen: 'episodes' }, services: { openWorkspace: async () => view } });
    await app.waitFor((f) => f.includes('aaaa0001'));
    await app.press('x');
    expect(app.frame()).toContain('marked aaaa0001');
    await app.press(KEY.down, 'x');
    expect(app.frame()).toContain('bbbb0002 plays eval/9, the marked aaaa0001 eval/4: compare episodes of one task');
    await app.press(KEY.down, 'x');
    await app.waitFor((f) => f.includes('COMPARE eval/4'));
    expect(app.frame()).toMatch(/A aaaa0001 base@v2 +B cccc0003 tuned@v2/);
    await app.press(KEY.escape);
    await app.waitFor((f) => f.includes('EPISODES'));
  });
});
