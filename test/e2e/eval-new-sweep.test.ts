/**
 * Starting a sweep from the Eval board (docs/sweeps.md, 'Starting a sweep from the Eval board'): the
 * real binary in a real terminal (tmux, a private server) on a fresh workspace with the demo data,
 * `n` opens the new-sweep form prefilled with the endpoint (GEOLAB_MODEL, GEOLAB_BASE_URL) and the
 * CLI's defaults, a wrong k is refused in the form with nothing started, then Enter starts the sweep
 * against a scripted OpenAI-compatible endpoint. It plays on while the board is left, reaches done
 * on the board, and its records are in the output folder and the workspace.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, geolab } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { sweepRecords } from '../helpers/sweep-tree.js';
import { startScriptedOpenAI, toolCall, toolSteps, type ScriptedOpenAI } from '../helpers/scripted-openai.js';
import { TmuxPane } from '../helpers/tmux.js';

const TASKS = 2;
const PASSES = 2;
const panes: TmuxPane[] = [];
const servers: ScriptedOpenAI[] = [];
afterEach(async () => {
  panes.splice(0).forEach((p) => p.kill());
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

type Row = { model_name: string; task: { index: number; sample: number }; outcome?: unknown };

describe('the Eval board starts a new sweep', () => {
  it('n opens the form; a wrong k starts nothing; Enter plays the sweep to done, on the board and on disk', async () => {
    const home = tempDir('geolab-new-sweep-home-');
    const out = join(tempDir('geolab-new-sweep-'), 'sweep');
    const server = await startScriptedOpenAI({ script: toolSteps(toolCall('look', { heading_deg: 90 }), toolCall('guess', { lat: 45.5, lon: 9.2 })), models: [{ id: 'qwen-vl' }] });
    servers.push(server);

    const pane = new TmuxPane([process.execPath, BIN], { GEOLAB_HOME: home, GEOLAB_MODEL: 'qwen-vl', GEOLAB_BASE_URL: server.baseUrl, TERM: 'xterm-256color' }, { columns: 200, rows: 40 });
    panes.push(pane);
    await pane.waitFor('Watch a model');
    pane.send(['v']);
    await pane.waitFor(/EVAL BOARD · \d+ episodes/);
    pane.send(['n']);
    // Prefilled: the endpoint from the environment, the eval split, k 4, the workspace's sweeps folder.
    const form = await pane.waitFor((s) => s.includes('Start sweep') && s.includes(server.baseUrl) && s.includes(`${home}/sweeps/<run id>`));
    expect(form).toMatch(/model\s+qwen-vl/);
    expect(form).toMatch(/split\s+eval/);
    expect(form).toMatch(/k \(samples\/task\)\s+4/);

    // Fields: models from, model, base URL, API key env var, split, k, task limit, concurrency, output folder, Start.
    pane.send(['Down', 'Down', 'Down', 'Down', 'Down', 'BSpace']);
    pane.send(['0'], true);
    pane.send(['Down', 'Down', 'Down', 'Down', 'Enter']);
    await pane.waitFor('k (samples per task) must be a whole number from 1 to 1000, got "0"');
    // Nothing started: no model was asked, no folder made.
    expect(server.modelListings).toBe(0);
    expect(existsSync(join(home, 'sweeps'))).toBe(false);

    // The focus went back to k: fix it, then the task limit, the concurrency and the folder; Enter on the last field starts.
    pane.send(['BSpace']);
    pane.send([String(PASSES)], true);
    pane.send(['Down']);
    pane.send([String(TASKS)], true);
    pane.send(['Down']);
    pane.send(['1'], true);
    pane.send(['Down']);
    pane.send([out], true);
    pane.send(['Enter']);
    const started = await pane.waitFor(/sweep (\S+) started in/, 60_000);
    const runId = /sweep (\S+) started in/.exec(started)![1]!;
    // Back on the board, and then off it to Home: the sweep goes on, and says how it ended.
    pane.send(['Escape']);
    await pane.waitFor('Watch a model');
    await pane.waitFor(`sweep ${runId}: done · qwen-vl: ${TASKS * PASSES}/${TASKS * PASSES} recorded, 0 failed, 0 aborted`, 120_000);
    pane.send(['v']);
    await pane.waitFor(`${runId} · done`);
    // Its arm in the table: 2 tasks, none failed, k 2.
    await pane.waitFor(/qwen-vl@\S+\s+2\s+0\s+\d+\s+2\.00/);

    // In the output folder: every (task, sample) once, and the options the board's `u` would resume it with.
    const status = JSON.parse(readFileSync(join(out, 'sweep.json'), 'utf8')) as { status: string; run_id: string };
    expect(status).toMatchObject({ status: 'done', run_id: runId });
    const all = sweepRecords<Row>(out);
    expect(all.every((r) => r.outcome !== undefined && r.model_name === 'qwen-vl')).toBe(true);
    expect(all.map((r) => `${r.task.index}#${r.task.sample}`).sort()).toEqual(['0#0', '0#1', '1#0', '1#1']);
    const kept = JSON.parse(readFileSync(join(out, 'sweep-options.json'), 'utf8')) as Record<string, unknown>;
    expect(kept).toMatchObject({ split: 'eval', passes: PASSES, concurrency: 1, adaptive: false, runId, indices: [0, 1] });
    // In the workspace: the run's episodes.
    const listed = geolab(['episodes', 'list', '--run', runId, '--json'], { home });
    expect(listed.code, listed.stderr).toBe(0);
    expect((JSON.parse(listed.stdout) as unknown[]).length).toBe(TASKS * PASSES);
    pane.send(['q', 'q']);
  }, 240_000);
});
