/**
 * `geolab train watch RUN` in a real terminal on the real binary: the Train screen follows a running
 * stand-in trainer (launched with `geolab train launch`) to its end; Home lists the run and opens it.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { BIN, geolab } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { StartedGroups } from '../helpers/processes.js';
import { TmuxPane } from '../helpers/tmux.js';

const TRAINER = fileURLToPath(new URL('../fixtures/fake-trainer.py', import.meta.url));
const panes: TmuxPane[] = [];
const groups = new StartedGroups();
afterEach(() => panes.splice(0).forEach((p) => p.kill()));
afterAll(() => groups.killAll());

describe('the Train screen in a real terminal', () => {
  it('`train watch` follows a run to its end; Home lists it and opens it with t', async () => {
    const home = tempDir('geolab-e2e-home-');
    const config = join(tempDir(), 'e2e.json');
    writeFileSync(config, JSON.stringify({ version: 1, name: 'e2e', output_dir: 'out', python: 'python3', grpo: { max_steps: 12, save_steps: 4 } }));
    const env = { FAKE_STEP_S: '0.5' };
    const launched = geolab(['train', 'launch', config, '--no-preflight', '--trainer', TRAINER, '--json'], { home, env });
    expect(launched.code, launched.stderr).toBe(0);
    const record = JSON.parse(launched.stdout) as { pid: number; start_time: number; env_server: { pid: number; start_time: number } };
    groups.addLaunch(record);

    const pane = new TmuxPane([process.execPath, BIN, 'train', 'watch', 'e2e'], { GEOLAB_HOME: home, TERM: 'xterm-256color' });
    panes.push(pane);
    const live = await pane.waitFor(/TRAIN · e2e · running · training · step \d+\/12/);
    expect(live).toContain('recent rollouts (traces/rollouts.jsonl)');
    const done = await pane.waitFor('TRAIN · e2e · done · done · step 12/12', 30_000);
    expect(done).toMatch(/reward +0\.700 +[▁▂▃▄▅▆▇█]{8,}/);
    expect(done).toContain('› step 12  train/0  reward 0.700');
    pane.send(['q']);
    await pane.waitFor((s) => !s.includes('TRAIN ·'));

    const menu = new TmuxPane([process.execPath, BIN], { GEOLAB_HOME: home, TERM: 'xterm-256color' });
    panes.push(menu);
    await menu.waitFor('Training   e2e done 12/12');
    menu.send(['t']);
    await menu.waitFor(/› e2e +done +12\/12/);
    menu.send(['Enter']);
    await menu.waitFor('TRAIN · e2e · done');
  }, 120_000);
});
