/**
 * How the real binary draws the view in a real terminal (tmux), read from the bytes it writes
 * (tmux pipe-pane): half-blocks by default inside tmux even when the outer terminal is kitty.
 */
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
  pane.tmux(['pipe-pane', '-o', '-t', pane.name, `cat >> '${file}'`]);
  return { pane, output: () => readFileSync(file, 'latin1') };
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

  // `--images native` inside tmux (passthrough on: wrapped escapes; off: half-blocks and why) runs in a
  // private tmux server, whose allow-passthrough the test sets: test/tui/tmux-images.test.ts.

  it('--images takes native, blocks or auto: anything else is bad usage before anything is drawn', () => {
    const r = geolab(['--images', 'sixel', 'episodes', 'show', episodeId.slice(0, 8)], { home: HOME });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("option '--images <mode>' argument 'sixel' is invalid. Allowed choices are auto, native, blocks.");
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
