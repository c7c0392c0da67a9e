/**
 * "Watch a model" in the real binary, in a real terminal (tmux, without CI so Ink draws live frames):
 * Home -> Watch a model -> the form (prefilled from GEOLAB_* variables) -> a refused model name fixed
 * in place -> Live, against a scripted OpenAI-compatible server on loopback in this process. The
 * episode lands in the workspace like `geolab agent` records it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { truthOf } from '../../src/core/tasks.js';
import { demoSplits } from '../../src/env/task-splits.js';
import { BIN, geolab } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { startScriptedOpenAI, toolCall, type ScriptedOpenAI } from '../helpers/scripted-openai.js';
import { TmuxPane } from '../helpers/tmux.js';

const SECRET = 'sk-e2e-watch-secret-0123456789';
const SPLIT = 'eval';
const INDEX = 3;

let pane: TmuxPane | undefined;
let server: ScriptedOpenAI | undefined;
afterEach(async () => {
  pane?.kill();
  await server?.close();
});


describe('watching a model from Home in a real terminal', () => {
  it('fills the form, fixes a refused model name, watches the episode and records it', async () => {
    const truth = truthOf((await demoSplits()).get(SPLIT)![INDEX]!);
    server = await startScriptedOpenAI({
      script: [{ toolCalls: [toolCall('zoom', { fov_deg: 30 })] }, { toolCalls: [toolCall('guess', { lat: truth.lat, lon: truth.lon })] }],
      models: [{ id: 'scripted' }],
    });
    const home = tempDir('geolab-e2e-watch-');
    pane = new TmuxPane([process.execPath, BIN], {
      GEOLAB_HOME: home,
      TERM: 'xterm-256color',
      GEOLAB_MODEL: 'scripted-typo',
      GEOLAB_BASE_URL: server.baseUrl,
      GEOLAB_API_KEY_ENV: 'E2E_WATCH_KEY',
      E2E_WATCH_KEY: SECRET,
    });

    await pane.waitFor(/Episodes\s+\d+/);
    pane.send(['Down', 'Down']);
    await pane.waitFor('› Watch a model');
    pane.send(['Enter']);
    const form = await pane.waitFor('[ Start ]');
    expect(form).toContain('scripted-typo');
    expect(form).toContain(server.baseUrl);
    expect(form).toMatch(/E2E_WATCH_KEY\s+\(set\)/);
    expect(form).not.toContain(SECRET);

    // Tab to the task index, type it, and start from there: the endpoint does not list the name.
    pane.send(['Tab', 'Tab', 'Tab', 'Tab', 'Tab']);
    pane.send([String(INDEX)], true);
    pane.send(['Enter']);
    const refused = await pane.waitFor('it serves: scripted');
    expect(refused).toContain('model "scripted-typo" is not served');
    expect(refused).toMatch(/task index\s+3/);

    // The focus is back on the model: erase "-typo" and start from the Start button.
    pane.send(['BSpace', 'BSpace', 'BSpace', 'BSpace', 'BSpace']);
    await pane.waitFor((s) => !s.includes('scripted-typo'));
    pane.send(['Down', 'Down', 'Down', 'Down', 'Down', 'Down', 'Enter']);
    await pane.waitFor(`LIVE · scripted · ${SPLIT}/${INDEX}`, 30_000);
    const end = await pane.waitFor('Perfect', 60_000);
    expect(end).toContain('2 actions');
    expect(end).toContain('q leave');
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${SECRET}`);

    // Recorded in the workspace with the model's name, and the form's settings kept for next time.
    const list = JSON.parse(geolab(['episodes', 'list', '--model', 'scripted', '--json'], { home }).stdout) as {
      model: string;
      split: string;
      task_index: number;
      verdict: string;
    }[];
    // --model matches by the start of the name: the demo's scripted-demo episodes come too.
    expect(list.filter((e) => e.model === 'scripted')).toEqual([expect.objectContaining({ split: SPLIT, task_index: INDEX, verdict: 'Perfect' })]);
    const saved = readFileSync(join(home, 'watch.json'), 'utf8');
    expect(JSON.parse(saved)).toEqual({ model: 'scripted', baseUrl: server.baseUrl, apiKeyEnv: 'E2E_WATCH_KEY', protocol: 'tools', split: SPLIT });
    expect(saved).not.toContain(SECRET);

    // q leaves Live for the form, esc goes Home, q quits.
    pane.send(['q']);
    await pane.waitFor('[ Start ]');
    pane.send(['Escape']);
    await pane.waitFor('run a served model live');
  });
});
