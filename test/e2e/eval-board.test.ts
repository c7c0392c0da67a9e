/**
 * The Eval board through the real binary in a real terminal (tmux): Home -> Eval board on a
 * workspace of three arms, the paired comparisons, an arm by country, its worst episode, and the
 * Player on it.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { TmuxPane } from '../helpers/tmux.js';
import { evalWorkspace, threeArms } from '../tui/eval-workspace.js';

const panes: TmuxPane[] = [];
afterEach(() => panes.splice(0).forEach((p) => p.kill()));

describe('the Eval board in a real terminal', () => {
  it('goes Home -> Eval board -> an arm by country -> its worst episode in the Player, and back', async () => {
    const workspace = await evalWorkspace(threeArms());
    await workspace.close();
    const pane = new TmuxPane([process.execPath, BIN], { GEOLAB_HOME: workspace.home, TERM: 'xterm-256color' });
    panes.push(pane);
    await pane.waitFor('Watch a model');
    pane.send(['v']);
    const board = await pane.waitFor('Paired vs alpha@v2');
    expect(board).toContain('EVAL BOARD · 30 episodes · 3 runs · 3 arms · baseline alpha@v2');
    expect(board).toMatch(/beta@v2 +6 +\+0\.\d{4} +0\.\d{4} +\[[-+]0\.\d{4}, [-+]0\.\d{4}\] +4\/6 +2\/6 +0 +no/);
    pane.send(['Down', 'c']);
    await pane.waitFor('EVAL BOARD · beta@v2 by country');
    pane.send(['Down', 'Enter']);
    await pane.waitFor('Austria: worst first');
    pane.send(['Enter']);
    await pane.waitFor('episode beta-t0-');
    pane.send(['q']);
    await pane.waitFor('Austria: worst first');
    pane.send(['q', 'q', 'q']);
    await pane.waitFor('Watch a model');
  });

  it('x on the board writes the arms as CSV into the workspace and names the file', async () => {
    const workspace = await evalWorkspace(threeArms());
    await workspace.close();
    const pane = new TmuxPane([process.execPath, BIN], { GEOLAB_HOME: workspace.home, TERM: 'xterm-256color' }, { columns: 160, rows: 40 });
    panes.push(pane);
    await pane.waitFor('Watch a model');
    pane.send(['v']);
    await pane.waitFor('Paired vs alpha@v2');
    pane.send(['x']);
    const screen = await pane.waitFor(/wrote the arms \(3 rows\) as CSV to \S+\.csv/);
    const file = /as CSV to (\S+\.csv)/.exec(screen)![1]!;
    expect(dirname(file)).toBe(join(workspace.home, 'exports'));
    const lines = readFileSync(file, 'utf8').split('\r\n');
    expect(lines[0]).toMatch(/^arm,tasks,failed,scored,k,mean@k,SE,95% CI,best@k,.*,tok out,flags$/);
    expect(lines.slice(1, 4).map((line) => line.split(',')[0])).toEqual(['alpha@v2', 'beta@v2', 'gamma@v2']);
    // beta's failure: one failed, eleven scored, and its flags in the last field.
    expect(lines[2]).toMatch(/^beta@v2,6,1,11,1\.83,0\.\d{4},0\.\d{4},"\[0\.\d{4}, 0\.\d{4}\]",.*,non_integral_k;failed_episodes$/);
    expect(lines[4]).toBe('');
    pane.send(['q']);
  });
});
