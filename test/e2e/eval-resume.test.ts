/**
 * Resuming a sweep from the Eval board (docs/sweeps.md, 'Resuming from the Eval board'): a real
 * `geolab eval run` against a scripted OpenAI-compatible endpoint is interrupted (SIGINT), the app
 * opens in a real terminal (tmux, a private server), `u` on the board runs the sweep again in the
 * app, and it reaches done with each (task, sample) recorded once.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, spawnGeolab } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { sweepRecords } from '../helpers/sweep-tree.js';
import { startScriptedOpenAI, toolCall, toolSteps, type ScriptedOpenAI } from '../helpers/scripted-openai.js';
import { TmuxPane } from '../helpers/tmux.js';

const TASKS = 3;
const PASSES = 2;
const panes: TmuxPane[] = [];
const servers: ScriptedOpenAI[] = [];
afterEach(async () => {
  panes.splice(0).forEach((p) => p.kill());
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

type Row = { model_name: string; task: { index: number; sample: number }; outcome?: unknown; failure?: string };

describe('the Eval board resumes an interrupted sweep', () => {
  it('u runs it again in the app, to done, with no episode twice', async () => {
    const home = tempDir('geolab-resume-home-');
    const dir = tempDir('geolab-resume-');
    const out = join(dir, 'sweep');
    const server = await startScriptedOpenAI({ script: toolSteps(toolCall('look', { heading_deg: 90 }), toolCall('guess', { lat: 45.5, lon: 9.2 })), models: [{ id: 'qwen-vl' }] });
    servers.push(server);
    const models = join(dir, 'models.json');
    writeFileSync(models, JSON.stringify([{ name: 'qwen', model: 'qwen-vl', base_url: server.baseUrl }]));

    const args = ['eval', 'run', '--models', models, '--limit', String(TASKS), '--passes', String(PASSES), '--out', out, '--run-id', 'resume-1', '--concurrency', '1'];
    const first = spawnGeolab(args, { home, timeoutMs: 200_000 });
    while (!(existsSync(out) && sweepRecords<Row>(out).length >= 2)) {
      if (first.child.exitCode !== null) throw new Error('the sweep ended before it could be interrupted');
      await new Promise((r) => setTimeout(r, 10));
    }
    first.child.kill('SIGINT');
    const interrupted = await first.done;
    expect(interrupted.code, interrupted.stderr).toBe(130);
    const before = sweepRecords<Row>(out).filter((r) => r.outcome !== undefined).length;
    expect(before).toBeLessThan(TASKS * PASSES);

    const pane = new TmuxPane([process.execPath, BIN], { GEOLAB_HOME: home, TERM: 'xterm-256color' }, { columns: 200, rows: 40 });
    panes.push(pane);
    await pane.waitFor('Watch a model');
    pane.send(['v']);
    await pane.waitFor(/resume-1 · interrupted/);
    pane.send(['u']);
    await pane.waitFor(`sweep resume-1: done · qwen: ${TASKS * PASSES}/${TASKS * PASSES} recorded, 0 failed, 0 aborted`, 120_000);
    // The panel follows at the board's next read of sweep.json (once a second).
    await pane.waitFor(/resume-1 · done/);
    // The sweep ran in the app: sweep.json names its process, done.
    const status = JSON.parse(readFileSync(join(out, 'sweep.json'), 'utf8')) as { status: string; pid: number };
    expect(status.status).toBe('done');
    expect(status.pid).not.toBe(first.child.pid);

    const all = sweepRecords<Row>(out);
    expect(all.filter((r) => r.outcome === undefined)).toEqual([]);
    const keys = all.map((r) => `${r.task.index}#${r.task.sample}`).sort();
    expect(keys).toEqual(Array.from({ length: TASKS }, (_, i) => Array.from({ length: PASSES }, (_, p) => `${i}#${p}`)).flat().sort());
    pane.send(['q', 'q']);
  }, 240_000);
});
