/**
 * The reveal in a real terminal (tmux, 200x60): a person pins, switches between the pin's map and
 * the last view without a step, guesses 13 km off, and explores the regional reveal before leaving.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { TmuxPane } from '../helpers/tmux.js';

const HOME = tempDir('geolab-e2e-reveal-');
const panes: TmuxPane[] = [];
afterEach(() => panes.splice(0).forEach((p) => p.kill()));

async function typeAt(pane: TmuxPane, key: string, prompt: string, text: string): Promise<void> {
  pane.send([key]);
  await pane.waitFor(prompt);
  pane.send([text], true);
  await pane.waitFor(text);
  pane.send(['Enter']);
}

describe('the reveal in a real terminal', () => {
  it('keeps the view one key away from the map, then shows guess and truth apart on a regional map', async () => {
    const pane = new TmuxPane([process.execPath, BIN, 'play', '--split', 'eval', '--task', '0'], { GEOLAB_HOME: HOME, TERM: 'xterm-256color' }, { columns: 200, rows: 60 });
    panes.push(pane);
    await pane.waitFor('Your move: turn 1.');
    await typeAt(pane, 'p', 'enter pin', '43.7, -116.1');
    await pane.waitFor('Showing the map around the pin');
    const pinned = await pane.waitFor('Your move: turn 2.');
    const budget = /steps left \d+ · cost [\d.]+/.exec(pinned)![0];
    pane.send(['m']);
    const view = await pane.waitFor('Showing the last view · m shows the map around the pin');
    expect(view).toContain(budget);
    expect(view).toContain('Your move: turn 2.');

    await typeAt(pane, 'g', 'enter guess', '43.70, -116.1');
    const reveal = await pane.waitFor('Showing the reveal');
    expect(reveal).toMatch(/✕ guess · ● truth · ⠒⠒ great circle 13 km · 1 pin · one cell ≈ \d+ m across/);
    expect(reveal).toContain('✕ guess  United States of America');
    expect(reveal).toMatch(/● truth {2}United States of America \(Northern America\), ~[\d.]+ km \w+ of Boise/);
    // Both marks on the map itself, apart: the legend and the places hold one of each.
    expect(reveal.split('✕')).toHaveLength(4);
    expect(reveal.split('●')).toHaveLength(4);
    pane.send(['m']);
    await pane.waitFor('Showing the last view · m shows the reveal');
    pane.send(['Up']);
    await pane.waitFor((s) => /pin\(lat=43\.7, lon=-116\.1\).*◀/.test(s));
    pane.send(['q']);
    await pane.waitFor((s) => !s.includes('Showing the last view'));
  });
});
