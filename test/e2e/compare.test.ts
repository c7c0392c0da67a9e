/**
 * `geolab episodes compare` in a real terminal (tmux): the binary opens the Compare screen on the
 * demo's scripted episode and a baseline's of the same task, steps with the arrows, leaves with esc.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, geolab } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { TmuxPane } from '../helpers/tmux.js';

const HOME = tempDir('geolab-e2e-compare-');
const panes: TmuxPane[] = [];
afterEach(() => panes.splice(0).forEach((p) => p.kill()));

let scripted: string;
let baseline: string;
beforeAll(() => {
  // A new workspace holds the demo episodes: the scripted model's plays eval/6, so play it again.
  const played = geolab(['agent', '--json', '--policy', 'random-land', '--split', 'eval', '--task', '6'], { home: HOME });
  expect(played.code, played.stderr).toBe(0);
  baseline = (JSON.parse(played.stdout) as { episode_id: string }).episode_id;
  const list = JSON.parse(geolab(['episodes', 'list', '--json'], { home: HOME }).stdout) as { episode_id: string; model: string }[];
  scripted = list.find((e) => e.model === 'scripted-demo')!.episode_id;
}, 60_000);

describe('the Compare screen in a real terminal', () => {
  it('shows both episodes of the task, steps through the turns and leaves with esc', async () => {
    const pane = new TmuxPane([process.execPath, BIN, 'episodes', 'compare', scripted.slice(0, 8), baseline.slice(0, 8)], { GEOLAB_HOME: HOME, TERM: 'xterm-256color' });
    panes.push(pane);
    const first = await pane.waitFor('turn 0/5');
    expect(first).toContain('COMPARE eval/6 (demo-00013) · Republic of Serbia');
    expect(first).toContain(`A ${scripted.slice(0, 8)} scripted-demo@geolab-tools-1`);
    expect(first).toContain(`B ${baseline.slice(0, 8)} random-land`);
    pane.send(['Right']);
    const second = await pane.waitFor('turn 1/5');
    expect(second).toMatch(/look\(heading_deg=90.*guess\(lat=/);
    pane.send(['Escape']);
    await pane.waitFor((s) => !s.includes('COMPARE'));
  });
});
