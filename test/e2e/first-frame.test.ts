/**
 * Home's first frame in a real terminal loads no other screen: the Player, Live, Episodes and Watch
 * screens (and the images, maps and reveal they draw) are imported when first opened (docs/budgets.md:
 * the first frame within 1.2x of a bare Ink app).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { loadedSources } from '../helpers/bundle.js';
import { BIN } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { TmuxPane } from '../helpers/tmux.js';

const MODULE_LOG = fileURLToPath(new URL('../helpers/module-log.mjs', import.meta.url));

let pane: TmuxPane | undefined;
afterEach(() => pane?.kill());

describe("Home's first frame", () => {
  it('imports no other screen until it is opened', async () => {
    const dir = tempDir('geolab-e2e-first-frame-');
    const log = join(dir, 'modules.log');
    pane = new TmuxPane([process.execPath, '--import', MODULE_LOG, BIN], { GEOLAB_HOME: join(dir, 'ws'), GEOLAB_MODULE_LOG: log, TERM: 'xterm-256color' });
    await pane.waitFor('Watch a model');
    // The bundle's chunks, as the source modules they hold (their source maps say).
    const tuiSources = () => loadedSources(readFileSync(log, 'utf8').split('\n')).filter((file) => file.includes('/src/tui/'));
    const loaded = tuiSources();
    expect(loaded.some((file) => file.endsWith('/screens/HomeScreen.tsx'))).toBe(true);
    const others = /\/src\/tui\/(screens\/(Episodes|Player|Live|Watch)Screen|hooks\/(useImage|useLiveEpisode|usePlayback)|components\/(InlineImage|Reveal|WorldMap)|map\/)/;
    expect(loaded.filter((file) => others.test(file))).toEqual([]);

    pane.send(['Enter']);
    await pane.waitFor('EPISODES');
    expect(tuiSources().some((file) => file.endsWith('/src/tui/screens/EpisodesScreen.tsx'))).toBe(true);
  });
});
