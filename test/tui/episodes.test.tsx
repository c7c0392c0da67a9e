/** The Episodes screen over a real workspace store (SQLite in a temp dir): filter, sort, clear. */
import { cleanup } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { saveEpisode } from '../../src/store/episodes.js';
import type { EpisodeListQuery, WorkspaceView } from '../../src/tui/services.js';
import type { EpisodeFilter } from '../../src/tui/state/episode-filter.js';
import { workspaceView } from '../../src/tui/workspace-view.js';
import { completedRecord, failedRecord, type EpisodeOptions } from '../helpers/episodes.js';
import { tempWorkspaces } from '../helpers/workspaces.js';
import { KEY, renderApp } from './render.js';

const workspace = tempWorkspaces();

afterEach(() => cleanup());

const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString();

/** Six episodes, recorded a minute apart in this order (the last is the newest). */
const EPISODES: EpisodeOptions[] = [
  { id: 'aaaa0001', index: 1, model: 'base', country: 'Japan', verdict: 'Pinpoint', distanceKm: 12, reward: 0.95, turns: 4 },
  { id: 'aaaa0002', index: 2, model: 'base', country: 'Chile', verdict: 'Close', distanceKm: 300, reward: 0.6, turns: 3 },
  { id: 'aaaa0003', index: 3, model: 'tuned', country: 'Japan', verdict: 'Pinpoint', distanceKm: 5, reward: 0.97, turns: 4 },
  { id: 'aaaa0004', index: 4, model: 'tuned', split: 'train', country: 'Kenya', verdict: 'Wrong continent', distanceKm: 9000, reward: 0.05 },
  { id: 'aaaa0005', index: 5, model: 'base', country: 'United States', verdict: 'Right region', distanceKm: 900, reward: 0.4, turns: 3 },
];

/** A view over the real store that also notes what the screen asked for. */
async function seededView() {
  const ws = await workspace();
  EPISODES.forEach((options, i) => saveEpisode(ws.db, completedRecord({ ...options, recordedAt: at(i) })));
  saveEpisode(ws.db, failedRecord({ id: 'dead0006', index: 6, model: 'base', recordedAt: at(5) }));
  const view = workspaceView(ws);
  const counts: (EpisodeFilter | undefined)[] = [];
  const lists: { query: EpisodeListQuery; offset: number; limit: number }[] = [];
  const spied: WorkspaceView = {
    ...view,
    countEpisodes: (filter) => (counts.push(filter), view.countEpisodes(filter)),
    listEpisodes: (query, offset, limit) => (lists.push({ query, offset, limit }), view.listEpisodes(query, offset, limit)),
  };
  return { view: spied, counts, lists };
}

async function openEpisodes(columns = 120) {
  const seeded = await seededView();
  const app = await renderApp({ route: { screen: 'episodes' }, services: { openWorkspace: async () => seeded.view }, columns, rows: 24 });
  await app.waitFor((f) => f.includes('EPISODES · 6 recorded'));
  return { app, ...seeded };
}

/** The task column of the list's rows, top to bottom ("eval/3"). */
function tasks(frame: string): string[] {
  return frame
    .split('\n')
    .map((line) => /(?:eval|train)\/\d+/.exec(line)?.[0])
    .filter((task): task is string => task !== undefined);
}

/** The line the cursor is on. */
const selectedLine = (frame: string) => frame.split('\n').find((line) => line.includes('› ')) ?? '';

describe('the Episodes screen', () => {
  it('lists the newest first with the columns that matter', async () => {
    const { app } = await openEpisodes();
    const frame = app.frame();
    expect(frame).toContain('EPISODES · 6 recorded · by recent ↓');
    expect(tasks(frame)).toEqual(['eval/6', 'eval/5', 'train/4', 'eval/3', 'eval/2', 'eval/1']);
    const line = frame.split('\n').find((l) => l.includes('eval/3'))!;
    for (const cell of ['aaaa0003', 'tuned', 'Japan', 'Pinpoint', '5.0 km', '0.9700', ' 3 ']) expect(line).toContain(cell);
    expect(frame).toMatch(/id\s+model\s+task\s+country\s+verdict\s+km\s+reward\s+turns\s+age/);
  });

  it('gives the room of a 120-column terminal to the long columns instead of cutting them', async () => {
    const { app } = await openEpisodes(120);
    const frame = app.frame();
    const line = frame.split('\n').find((l) => l.includes('eval/5'))!;
    expect(line).toMatch(/ United States +Right region /);
    expect(frame).not.toContain('…');
    expect(frame.split('\n').every((l) => l.length <= 120)).toBe(true);
    // At 80 columns the country is cut with a visible mark, never run into the next column.
    const narrow = (await openEpisodes(80)).app.frame();
    expect(narrow.split('\n').find((l) => l.includes('eval/5'))).toMatch(/ United Sta… +Right region /);
  });

  it('drops the least important columns on an 80-column terminal, keeping the sorted one', async () => {
    const { app } = await openEpisodes(80);
    let frame = app.frame();
    expect(frame).toMatch(/^ {3}model\s+task\s+country\s+verdict\s+km\s+reward\s+age\s*$/m);
    expect(frame).not.toContain('aaaa0003');
    expect(frame).not.toContain('turns');
    expect(frame.split('\n').every((line) => line.length <= 80)).toBe(true);
    await app.press('s', 's', 's');
    frame = app.frame();
    expect(frame).toContain('by turns ↑');
    expect(frame).toMatch(/^ {3}model\s+task\s+country\s+verdict\s+km\s+reward\s+turns\s*$/m);
  });

  it('filters with what is typed after /, and says so in the header', async () => {
    const { app } = await openEpisodes();
    await app.press('/');
    expect(app.frame()).toContain('filter:');
    await app.press(...'model:base verdict:pinpoint');
    expect(app.frame()).toContain('filter: model:base verdict:pinpoint');
    await app.press(KEY.enter);
    const frame = app.frame();
    expect(frame).toContain('EPISODES · 1 of 6 · model:base verdict:pinpoint · by recent ↓');
    expect(tasks(frame)).toEqual(['eval/1']);
    expect(frame).not.toContain('filter:');
  });

  it('takes a filter pasted with its enter in one write, the enter applying it', async () => {
    const { app } = await openEpisodes();
    await app.press('/', 'model:tuned\r');
    await app.waitFor((f) => f.includes('EPISODES · 2 of 6 · model:tuned'));
    expect(app.frame()).not.toContain('filter:');
  });

  it('searches free text and matches countries whatever the case, with quotes for spaces', async () => {
    const { app } = await openEpisodes();
    await app.press('/', ...'japan', KEY.enter);
    expect(app.frame()).toContain('EPISODES · 2 of 6 · japan');
    expect(tasks(app.frame())).toEqual(['eval/3', 'eval/1']);
    await app.press('c', '/', ...'country:"united states"', KEY.enter);
    expect(app.frame()).toContain('EPISODES · 1 of 6 · country:"united states"');
    expect(tasks(app.frame())).toEqual(['eval/5']);
    await app.press('c', '/', ...'reward:0.5..', KEY.enter);
    expect(tasks(app.frame())).toEqual(['eval/3', 'eval/2', 'eval/1']);
  });

  it('filters by status: and by words of the replies with text:', async () => {
    const { app } = await openEpisodes();
    await app.press('/', ...'status:failed', KEY.enter);
    expect(app.frame()).toContain('EPISODES · 1 of 6 · status:failed · by recent ↓');
    expect(tasks(app.frame())).toEqual(['eval/6']);
    // The fixture's replies are its JSON actions: a pin only in the episodes of four turns.
    await app.press('c', '/', ...'text:"action pin"', KEY.enter);
    expect(app.frame()).toContain('EPISODES · 3 of 6 · text:"action pin"');
    expect(tasks(app.frame())).toEqual(['train/4', 'eval/3', 'eval/1']);
    await app.press('/', ...' status:scored model:base', KEY.enter);
    expect(app.frame()).toContain('EPISODES · 1 of 6 · model:base status:scored text:"action pin"');
    expect(tasks(app.frame())).toEqual(['eval/1']);
  });

  it('names the statuses there are when another is typed', async () => {
    const { app } = await openEpisodes();
    await app.press('/', ...'status:broken', KEY.enter);
    expect(app.frame()).toContain('"status:broken" is not a status: expected scored, failed, aborted or provider-error');
    expect(app.frame()).toContain('EPISODES · 6 recorded');
  });

  it('erases with backspace and cancels with esc, keeping the filter in force', async () => {
    const { app } = await openEpisodes();
    await app.press('/', ...'model:tunedx', KEY.backspace, KEY.enter);
    expect(app.frame()).toContain('EPISODES · 2 of 6 · model:tuned');
    await app.press('/', ...'japan');
    expect(app.frame()).toContain('filter: model:tuned japan');
    await app.press(KEY.escape);
    expect(app.frame()).not.toContain('filter:');
    expect(app.frame()).toContain('EPISODES · 2 of 6 · model:tuned · by recent ↓');
  });

  it('names a term it cannot read and keeps the previous filter', async () => {
    const { app } = await openEpisodes();
    await app.press('/', ...'model:tuned', KEY.enter);
    await app.press('/', ...'reward:abc', KEY.enter);
    const frame = app.frame();
    expect(frame).toContain('"reward:abc" is not a range like reward:0.5..1, reward:..0.2 or reward:0.9..');
    expect(frame).toContain('EPISODES · 2 of 6 · model:tuned · by recent ↓');
    expect(tasks(frame)).toEqual(['train/4', 'eval/3']);
    // The text stays to be corrected.
    await app.press(...Array.from({ length: 3 }, () => KEY.backspace), ...'0.9..', KEY.enter);
    expect(app.frame()).toContain('EPISODES · 1 of 6 · model:tuned reward:0.9.. · by recent ↓');
    expect(app.frame()).not.toContain('is not a range');
  });

  it('s cycles the order and S reverses it, failed episodes last', async () => {
    const { app } = await openEpisodes();
    await app.press('s');
    expect(app.frame()).toContain('EPISODES · 6 recorded · by reward ↓');
    expect(tasks(app.frame())).toEqual(['eval/3', 'eval/1', 'eval/2', 'eval/5', 'train/4', 'eval/6']);
    await app.press('S');
    expect(app.frame()).toContain('by reward ↑');
    expect(tasks(app.frame())).toEqual(['train/4', 'eval/5', 'eval/2', 'eval/1', 'eval/3', 'eval/6']);
    await app.press('s');
    expect(app.frame()).toContain('by distance ↑');
    expect(tasks(app.frame())).toEqual(['eval/3', 'eval/1', 'eval/2', 'eval/5', 'train/4', 'eval/6']);
  });

  it('c clears the filter', async () => {
    const { app } = await openEpisodes();
    await app.press('/', ...'split:train', KEY.enter);
    expect(app.frame()).toContain('EPISODES · 1 of 6 · split:train');
    expect(app.frame()).toContain('c clear');
    await app.press('c');
    expect(app.frame()).toContain('EPISODES · 6 recorded · by recent ↓');
    expect(tasks(app.frame())).toHaveLength(6);
  });

  it('says when nothing matches', async () => {
    const { app } = await openEpisodes();
    await app.press('/', ...'country:Peru', KEY.enter);
    expect(app.frame()).toContain('EPISODES · 0 of 6 · country:Peru');
    expect(app.frame()).toContain('No episode matches country:Peru: c clears the filter, / changes it.');
  });

  it('goes back to the top when the filter or the order changes', async () => {
    const { app } = await openEpisodes();
    await app.press(KEY.down, KEY.down);
    expect(app.frame()).toContain('3/6');
    expect(selectedLine(app.frame())).toContain('train/4');
    await app.press('s');
    expect(app.frame()).toContain('1/6');
    expect(selectedLine(app.frame())).toContain('eval/3');
    await app.press(KEY.down, '/', ...'base', KEY.enter);
    expect(app.frame()).toContain('1/4');
  });

  it('types ? into the filter instead of opening the help', async () => {
    const { app } = await openEpisodes();
    await app.press('/', '?');
    expect(app.frame()).toContain('filter: ?');
    expect(app.frame()).not.toContain('Episodes keys');
    await app.press(KEY.escape, '?');
    expect(app.frame()).toContain('Episodes keys');
    // The help says which terms there are and how they match; its lines wrap inside the box, so the words are read run together.
    const help = app.frame().replace(/[│\s]+/g, ' ');
    expect(help).toContain('filter (model:X split:X country:X verdict:X status:failed text:word reward:0.5..1, or text)');
    expect(help).toContain('names match by their start, any case (verdict:wrong); a country also by its codes, names or demonyms (country:RS)');
    expect(help).toContain('status: scored, failed, aborted, provider-error; text: words of the prompts, replies and reasoning');
  });

  it('reads the counts when the filter changes and only the visible rows', async () => {
    const { app, counts, lists } = await openEpisodes();
    const before = counts.length;
    await app.press('s', 'S');
    // Another order is the same episodes: no count.
    expect(counts.length).toBe(before);
    await app.press('/', ...'base', KEY.enter);
    expect(counts.slice(before)).toEqual([{ search: 'base' }]);
    expect(lists.at(-1)).toEqual({ query: { filter: { search: 'base' }, sort: 'reward', descending: false }, offset: 0, limit: 18 });
    expect(Math.max(...lists.map((l) => l.limit))).toBeLessThanOrEqual(24);
  });

  describe('when a read of the workspace throws (a corrupt or locked database)', () => {
    const busy = () => {
      throw new Error('database is locked');
    };

    async function openFailing(override: Partial<WorkspaceView>) {
      const { view } = await seededView();
      const app = await renderApp({
        route: { screen: 'episodes' },
        services: { openWorkspace: async () => ({ ...view, ...override }) },
        rows: 24,
      });
      return { app, frame: await app.waitFor((f) => f.includes('cannot read the episodes')) };
    }

    it('says so instead of "no episodes recorded"', async () => {
      const { frame } = await openFailing({ countEpisodes: busy });
      expect(frame).toContain('cannot read the episodes: database is locked');
      expect(frame).not.toContain('No episodes recorded');
    });

    it('says so when only the page of rows cannot be read, instead of an empty list', async () => {
      const { frame } = await openFailing({ listEpisodes: busy });
      expect(frame).toContain('EPISODES · 6 recorded');
      expect(frame).toContain('cannot read the episodes: database is locked');
    });

    it('says so when only the filtered count cannot be read, instead of "no episode matches"', async () => {
      const { view } = await seededView();
      const app = await renderApp({
        route: { screen: 'episodes' },
        services: { openWorkspace: async () => ({ ...view, countEpisodes: (filter) => (filter ? busy() : view.countEpisodes()) }) },
        rows: 24,
      });
      await app.waitFor((f) => f.includes('EPISODES · 6 recorded'));
      await app.press('/', 'base', KEY.enter);
      const frame = await app.waitFor((f) => f.includes('cannot read the episodes'));
      expect(frame).toContain('database is locked');
      expect(frame).not.toContain('No episode matches');
    });
  });
});
