/**
 * The real binary in a real terminal (tmux), started without CI so Ink draws live frames: a person
 * steps through a recorded demo episode in the Player, and plays a task with keys and a typed guess.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, geolab } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { TmuxPane } from '../helpers/tmux.js';

const HOME = tempDir('geolab-e2e-home-');
const panes: TmuxPane[] = [];
afterEach(() => panes.splice(0).forEach((p) => p.kill()));

function open(args: string[]): TmuxPane {
  const pane = new TmuxPane([process.execPath, BIN, ...args], { GEOLAB_HOME: HOME, TERM: 'xterm-256color' });
  panes.push(pane);
  return pane;
}

let scripted: { id: string; distance: number };
beforeAll(() => {
  // Creating the workspace imports the demo episodes; pick the scripted model's.
  const list = JSON.parse(geolab(['episodes', 'list', '--json'], { home: HOME }).stdout) as {
    episode_id: string;
    model: string;
    distance_km: number;
  }[];
  const row = list.find((e) => e.model === 'scripted-demo');
  if (!row) throw new Error(`no scripted-demo episode in ${JSON.stringify(list)}`);
  scripted = { id: row.episode_id, distance: row.distance_km };
});

describe('Home in a real terminal', () => {
  it('redraws every frame in place: the header stays on the top line and no line of an earlier screen stays behind', async () => {
    const pane = open([]);
    // The workspace opens after the first frame; under load a key pressed before it is open would
    // come back to a Home that is rightly still "opening the workspace".
    await pane.waitFor((s) => s.includes('Watch a model') && / geolab {2}workspace /.test(s));
    pane.send(['Enter']);
    await pane.waitFor(/EPISODES · \d+/);
    pane.send(['q']);
    const home = await pane.waitFor((s) => s.includes('Watch a model') && !s.includes('EPISODES'));
    const lines = home.split('\n');
    expect(lines[0]).toMatch(/^ geolab {2}workspace /);
    expect(lines.filter((line) => line.includes('geolab'))).toHaveLength(1);
    expect(home).not.toContain('opening the workspace');
    expect(home).toContain('Splits     none saved · played: the demo as train/eval, each task set by name');
    expect(home).not.toMatch(/\bid +model +task/); // the Episodes column titles
    pane.send(['q']);
  });
});

describe('the Player in a real terminal', () => {
  it('opens an episode, steps through it, and ends on the distance and verdict', async () => {
    const pane = open(['episodes', 'show', scripted.id.slice(0, 8)]);
    await pane.waitFor(`episode ${scripted.id.slice(0, 8)}`);
    const first = await pane.waitFor('turn 0/5');
    for (const tool of ['look(', 'zoom(', 'move(', 'pin(', 'guess(']) expect(first).toContain(tool);
    pane.send(['Right']);
    const second = await pane.waitFor('turn 1/5');
    expect(second).toMatch(/Facing 90° \(E\)/);
    pane.send(['Right']);
    await pane.waitFor('turn 2/5');
    pane.send(['G']);
    const last = await pane.waitFor('turn 5/5');
    expect(last).toContain('Right region');
    expect(last).toContain(`${Math.round(scripted.distance)} km`);
    pane.send(['q']);
  });
});

describe('playing a task as a person', () => {
  it('pans with the arrow keys and guesses with a typed "lat, lon"', async () => {
    const pane = open(['play', '--split', 'eval', '--task', '0']);
    await pane.waitFor('Your move: turn 1.');
    pane.send(['Right']);
    const turned = await pane.waitFor('steps left 23');
    expect(turned).toContain('heading 45°');
    pane.send(['g']);
    await pane.waitFor('enter guess');
    pane.send(['10, 10'], true);
    await pane.waitFor('10, 10');
    pane.send(['Enter']);
    const end = await pane.waitFor('11,958 km');
    expect(end).toContain('Wrong continent');
    expect(end).toContain('guess 10.0000, 10.0000');
    // The person's episode is recorded like any other.
    const list = JSON.parse(geolab(['episodes', 'list', '--json'], { home: HOME }).stdout) as { distance_km: number }[];
    expect(list[0]?.distance_km).toBeCloseTo(11958, -1);
  });
});
