/**
 * How the real binary draws the view in a real terminal (tmux), read from the bytes it writes
 * (tmux pipe-pane): half-blocks by default inside tmux even when the outer terminal is kitty, and
 * kitty's graphics protocol when `--images native` forces it.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, geolab } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { TmuxPane } from '../helpers/tmux.js';

const HOME = tempDir('geolab-e2e-images-');
const panes: TmuxPane[] = [];
afterEach(() => panes.splice(0).forEach((p) => p.kill()));

let episodeId: string;
beforeAll(() => {
  const list = JSON.parse(geolab(['episodes', 'list', '--json'], { home: HOME }).stdout) as { episode_id: string; model: string }[];
  const row = list.find((e) => e.model === 'scripted-demo');
  if (!row) throw new Error(`no scripted-demo episode in ${JSON.stringify(list)}`);
  episodeId = row.episode_id;
});

/** The Player in a pane whose outer terminal claims to be kitty; the bytes it writes from now on go to a file. */
function player(flags: string[]): { pane: TmuxPane; output: () => string } {
  const pane = new TmuxPane([process.execPath, BIN, ...flags, 'episodes', 'show', episodeId.slice(0, 8)], {
    GEOLAB_HOME: HOME,
    TERM: 'xterm-kitty',
    KITTY_WINDOW_ID: '1',
    COLORTERM: 'truecolor',
  });
  panes.push(pane);
  const file = join(tempDir('geolab-e2e-images-out-'), 'pane.bytes');
  writeFileSync(file, '');
  execFileSync('tmux', ['pipe-pane', '-o', '-t', pane.name, `cat >> '${file}'`]);
  return { pane, output: () => readFileSync(file, 'latin1') };
}

const KITTY_TRANSMIT = '\u001b_Ga=T,f=100,';

async function until(ok: () => boolean, what: () => string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('images in a real terminal', () => {
  it('inside tmux the view is half-blocks, though the outer terminal is kitty', async () => {
    const { pane, output } = player([]);
    await pane.waitFor('turn 0/5');
    await pane.waitFor((s) => s.includes('▀'));
    pane.send(['Right']);
    await pane.waitFor('turn 1/5');
    await pane.waitFor((s) => s.includes('▀'));
    expect(output()).not.toContain('\u001b_G');
    pane.send(['q']);
  });

  it('--images native sends the view through kitty\'s protocol over a blank box, and deletes it on the next turn', async () => {
    const { pane, output } = player(['--images', 'native']);
    await pane.waitFor('turn 0/5');
    pane.send(['Right']);
    await pane.waitFor('turn 1/5');
    // Turn 0's image may already be out while turn 1's is still converting: wait for the drawn box.
    await until(
      () => output().includes(KITTY_TRANSMIT) && !pane.screen().includes('rendering…'),
      () => `no kitty image over a blank box in ${JSON.stringify(output().slice(-400))}`,
    );
    const screen = pane.screen();
    expect(screen).not.toContain('▀');
    expect(screen).not.toContain('rendering…');
    const sent = output().length;
    pane.send(['Right']);
    await pane.waitFor('turn 2/5');
    await until(
      () => output().slice(sent).includes(KITTY_TRANSMIT),
      () => `no second kitty image in ${JSON.stringify(output().slice(sent).slice(-400))}`,
    );
    const next = output().slice(sent);
    expect(next.indexOf('\u001b_Ga=d,d=I,')).toBeGreaterThanOrEqual(0);
    expect(next.indexOf('\u001b_Ga=d,d=I,')).toBeLessThan(next.indexOf(KITTY_TRANSMIT));
    pane.send(['q']);
  });

  it('--images takes native, blocks or auto: anything else is bad usage before anything is drawn', () => {
    const r = geolab(['--images', 'sixel', 'episodes', 'show', episodeId.slice(0, 8)], { home: HOME });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("option '--images <mode>' argument 'sixel' is invalid. Allowed choices are auto, native, blocks.");
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
