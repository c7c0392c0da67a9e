/**
 * "Watch a model" from Home: the form (typing, moving, checks, help) against a service that records
 * what it is asked, and the whole flow against the real service, runner and embedded environment
 * with a scripted OpenAI-compatible endpoint on loopback.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import { truthOf } from '../../src/core/tasks.js';
import { demoSplits } from '../../src/env/task-splits.js';
import { openWorkspace } from '../../src/store/index.js';
import type { LiveSource } from '../../src/tui/live/types.js';
import { runTracker } from '../../src/tui/launch.js';
import type { TuiServices, WatchService } from '../../src/tui/services.js';
import type { WatchRequest, WatchSettings } from '../../src/tui/state/watch-form.js';
import { watchService } from '../../src/tui/watch/service.js';
import { workspaceSession } from '../../src/tui/workspace-session.js';
import { importTaskFile } from '../../src/store/task-sets.js';
import { makeTask, tempDir, writeJsonl } from '../helpers/fixtures.js';
import { startScriptedOpenAI, toolCall, type ScriptedOpenAI } from '../helpers/scripted-openai.js';
import { memoryWorkspace } from './fixtures.js';
import { KEY, renderApp } from './render.js';

const TAB = '\t';
const SHIFT_TAB = '\x1b[Z';
const SECRET = 'sk-test-secret-0123456789';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  cleanup();
  for (const done of cleanups.splice(0).reverse()) await done();
});

type StartResult = Awaited<ReturnType<WatchService['start']>>;

/** A service that prefills `settings`, knows the variables in `env`, and answers starts with `answer`. */
function fakeService(settings: Partial<WatchSettings>, answer: (request: WatchRequest) => Promise<StartResult>, env: Record<string, string> = {}) {
  const requests: WatchRequest[] = [];
  const service: WatchService = {
    prefill: async () => ({ model: '', baseUrl: 'http://127.0.0.1:8000/v1', apiKeyEnv: '', protocol: 'tools', split: 'eval', ...settings }),
    isSet: (name) => Boolean(env[name]),
    start: (request) => {
      requests.push(request);
      return answer(request);
    },
  };
  return { service, requests };
}

const refuse = (message: string) => async (): Promise<StartResult> => ({ ok: false, field: 'model', message });

/** Home, then "Watch a model" (third in the menu), then the prefilled form. */
async function openForm(service: WatchService, services: Partial<TuiServices> = {}) {
  const app = await renderApp({ route: { screen: 'home' }, services: { openWorkspace: async () => memoryWorkspace([]), watch: service, ...services } });
  await app.waitFor((f) => f.includes('Watch a model'));
  await app.press(KEY.down, KEY.down);
  expect(app.frame()).toContain('› Watch a model');
  await app.press(KEY.enter);
  await app.waitFor((f) => f.includes('WATCH A MODEL') && f.includes('[ Start ]'));
  return app;
}

/** The line of the frame that shows a field, without the cursor's escape codes. */
const row = (frame: string, label: string) =>
  frame
    .split('\n')
    .find((line) => line.includes(`${label}  `))
    // eslint-disable-next-line no-control-regex
    ?.replace(/\x1b\[[0-9;]*m/g, '') ?? '';
/** Home again (it opens with its first entry selected). */
const onHome = (frame: string) => frame.includes('Watch a model   run a served model live') && !frame.includes('WATCH A MODEL');

describe('the Watch a model form', () => {
  it('is disabled on Home when nothing can serve it', async () => {
    const app = await renderApp({ route: { screen: 'home' }, services: { openWorkspace: async () => memoryWorkspace([]) } });
    await app.waitFor((f) => f.includes('Watch a model'));
    await app.press(KEY.down, KEY.down, KEY.enter);
    expect(app.frame()).toContain('Watch a model: needs a model endpoint.');
  });

  it('opens prefilled from Home, and esc goes back', async () => {
    const { service } = fakeService({ model: 'qwen-run1', split: 'train' }, refuse('unused'));
    const app = await openForm(service);
    const frame = app.frame();
    expect(row(frame, 'model')).toContain('› model');
    expect(row(frame, 'model')).toContain('qwen-run1');
    expect(row(frame, 'base URL')).toContain('http://127.0.0.1:8000/v1');
    expect(row(frame, 'API key env var')).toContain('none: no key is sent');
    expect(row(frame, 'protocol')).toContain('tools');
    expect(row(frame, 'split')).toContain('train');
    expect(row(frame, 'task index')).toContain('blank: a random task');
    await app.press(KEY.escape);
    await app.waitFor(onHome);
  });

  it('moves with up/down and tab/shift+tab, types into the focused field, and erases', async () => {
    const { service } = fakeService({}, refuse('unused'));
    const app = await openForm(service);
    await app.press(...'my-model');
    expect(row(app.frame(), 'model')).toContain('my-model');
    await app.press(TAB);
    expect(row(app.frame(), 'base URL')).toContain('› base URL');
    await app.press(KEY.backspace, KEY.backspace, ...'2');
    expect(row(app.frame(), 'base URL')).toContain('http://127.0.0.1:8000/2');
    await app.press(KEY.down, KEY.down);
    expect(row(app.frame(), 'protocol')).toContain('› protocol');
    // Letters do not change a choice; the arrows do.
    await app.press('j', KEY.right);
    expect(row(app.frame(), 'protocol')).toContain('‹ json ›');
    expect(app.frame()).toContain('one JSON action per turn');
    await app.press(SHIFT_TAB, KEY.up);
    expect(row(app.frame(), 'base URL')).toContain('› base URL');
    // The model kept what was typed; nothing leaked into other fields.
    expect(row(app.frame(), 'model')).toContain('my-model');
    expect(row(app.frame(), 'split')).toContain('eval');
    expect(row(app.frame(), 'split')).not.toContain('j');
  });

  it('says whether the key variable is set, never what it holds', async () => {
    const { service } = fakeService({}, refuse('unused'), { MY_KEY: SECRET });
    const app = await openForm(service);
    await app.press(KEY.down, KEY.down, ...'MY_KEY');
    expect(row(app.frame(), 'API key env var')).toMatch(/MY_KEY\s+\(set\)/);
    await app.press('2');
    expect(row(app.frame(), 'API key env var')).toMatch(/MY_KEY2\s+\(not set: no key is sent\)/);
    expect(app.frame()).not.toContain(SECRET);
  });

  it('checks the fields on start and names the one that is wrong, asking the endpoint nothing', async () => {
    const { service, requests } = fakeService({}, refuse('unused'));
    const app = await openForm(service);
    // Enter walks down the fields; on the last one it starts.
    await app.press(KEY.enter, KEY.enter, KEY.enter, KEY.enter, KEY.enter);
    expect(row(app.frame(), 'task index')).toContain('› task index');
    await app.press(KEY.enter);
    expect(app.frame()).toContain('model: type the name the endpoint lists at /v1/models');
    // The focus went to the field at fault.
    expect(row(app.frame(), 'model')).toContain('› model');

    await app.press(...'m', KEY.down, ...Array.from({ length: 30 }, () => KEY.backspace), ...'localhost:8000');
    await app.press(KEY.down, KEY.down, KEY.down, KEY.down, ...'two', KEY.enter);
    expect(app.frame()).toContain('base URL must be an http(s) URL such as http://127.0.0.1:8000/v1, got "localhost:8000"');
    expect(row(app.frame(), 'base URL')).toContain('› base URL');

    await app.press(...Array.from({ length: 14 }, () => KEY.backspace), ...'http://h:1/v1', KEY.down, KEY.down, KEY.down, KEY.down, KEY.enter);
    expect(app.frame()).toContain('task index must be a whole number from 0 (blank: a random task), got "two"');
    expect(requests).toEqual([]);
  });

  it('starts with the typed request from Start, and keeps the form and its values when the endpoint refuses', async () => {
    const { service, requests } = fakeService({ model: 'wrong-name', apiKeyEnv: 'KEY_VAR' }, refuse('model "wrong-name" is not served at http://127.0.0.1:8000/v1 (it serves: run1); choose one of those'));
    const app = await openForm(service);
    await app.press(KEY.down, KEY.down, KEY.down, KEY.left, KEY.down, KEY.down, ...'3', KEY.down);
    expect(app.frame()).toContain('› [ Start ]');
    await app.press(KEY.enter);
    await app.waitFor((f) => f.includes('it serves: run1'));
    expect(requests).toEqual([{ model: 'wrong-name', baseUrl: 'http://127.0.0.1:8000/v1', apiKeyEnv: 'KEY_VAR', protocol: 'json', split: 'eval', task: 3 }]);
    const frame = app.frame();
    expect(frame).toContain('WATCH A MODEL');
    expect(row(frame, 'model')).toContain('› model');
    expect(row(frame, 'protocol')).toContain('json');
    expect(row(frame, 'task index')).toContain('3');
    // Fixed and started again: the error goes with the edit.
    await app.press(...Array.from({ length: 10 }, () => KEY.backspace), ...'run1');
    expect(app.frame()).not.toContain('it serves: run1');
  });

  it('opens Live on a good start, and leaving Live comes back to the form as it was', async () => {
    const source: LiveSource = { driver: 'model', who: 'qwen-run1', prepare: () => new Promise(() => {}) };
    const { service } = fakeService({ model: 'qwen-run1' }, async () => ({ ok: true, source, notice: 'These settings could not be saved for next time: disk full' }));
    const app = await openForm(service);
    await app.press(KEY.down, KEY.down, KEY.down, KEY.down, KEY.down, KEY.enter);
    await app.waitFor((f) => f.includes('LIVE · qwen-run1 · starting'));
    expect(app.frame()).toContain('could not be saved for next time: disk full');
    await app.press('q', 'y');
    await app.waitFor((f) => f.includes('WATCH A MODEL'));
    expect(row(app.frame(), 'model')).toContain('qwen-run1');
  });

  it('changes nothing while the endpoint is checked, and a check that ends after esc opens nothing', async () => {
    let answer: (result: StartResult) => void = () => {};
    const { service } = fakeService({ model: 'slow' }, () => new Promise((resolve) => (answer = resolve)));
    const app = await openForm(service);
    await app.press(KEY.down, KEY.down, KEY.down, KEY.down, KEY.down, KEY.enter);
    expect(app.frame()).toContain('asking http://127.0.0.1:8000/v1 whether it serves "slow"');
    await app.press(...'7');
    expect(row(app.frame(), 'task index')).not.toContain('7');
    await app.press(KEY.escape);
    await app.waitFor(onHome);
    answer({ ok: true, source: { driver: 'model', who: 'slow', prepare: () => new Promise(() => {}) } });
    // A key taken and drawn comes after the answer's callbacks (microtasks): had they opened Live, it would show.
    await app.press(KEY.down);
    expect(app.frame()).not.toContain('LIVE');
    expect(onHome(app.frame())).toBe(true);
  });

  it('? shows the form keys from the key table, and is not typed into a field', async () => {
    const { service } = fakeService({ model: 'm' }, refuse('unused'));
    const app = await openForm(service);
    await app.press('?');
    const help = app.frame();
    expect(help).toContain('Watch a model keys');
    expect(help).toMatch(/↓\/tab\s+next field/);
    expect(help).toMatch(/↑\/shift\+tab\s+previous field/);
    expect(help).toMatch(/←\/→\s+other protocol/);
    expect(help).toMatch(/esc\s+back/);
    await app.press('?');
    expect(app.frame()).not.toContain('Watch a model keys');
    expect(row(app.frame(), 'model')).not.toContain('?');
    expect(app.frame()).toContain('↑/↓ field');
  });
});

describe('watching a model for real', () => {
  let server: ScriptedOpenAI;

  it("shows beside the split field every split the embedded environment serves, the workspace's task sets too", async () => {
    const dir = tempDir('geolab-watch-ws-');
    const ws = await openWorkspace(dir);
    await importTaskFile(ws.db, writeJsonl([makeTask(0)]), 'fixture');
    ws.close();
    const session = workspaceSession(dir);
    cleanups.push(() => session.close());
    const app = await openForm(watchService(session, join(dir, 'watch.json'), {}), { openWorkspace: session.view });
    await app.waitFor((f) => row(f, 'split').includes('served:'));
    expect(row(app.frame(), 'split')).toContain('(served: train, eval, demo, fixture)');
  });

  it('checks the endpoint, plays the task live through the runner, records it with the model name, and saves the settings', async () => {
    const split = 'eval';
    const index = 2;
    const truth = truthOf((await demoSplits()).get(split)![index]!);
    server = await startScriptedOpenAI({
      script: [{ toolCalls: [toolCall('look', { heading_deg: 180 })] }, { toolCalls: [toolCall('guess', { lat: truth.lat, lon: truth.lon })] }],
      models: [{ id: 'scripted' }],
    });
    cleanups.push(() => server.close());
    const dir = tempDir('geolab-watch-ws-');
    const session = workspaceSession(dir);
    cleanups.push(() => session.close());
    const settingsFile = join(dir, 'watch.json');
    const env = { GEOLAB_MODEL: 'scripted-typo', GEOLAB_BASE_URL: server.baseUrl, GEOLAB_API_KEY_ENV: 'WATCH_KEY', WATCH_KEY: SECRET };
    // What openHome wires: the real runner (loaded on first use) and the workspace session.
    const runs = runTracker();
    cleanups.push(() => runs.settled());
    const app = await openForm(watchService(session, settingsFile, env), { runEpisode: runs.run, openWorkspace: session.view });
    expect(row(app.frame(), 'API key env var')).toMatch(/WATCH_KEY\s+\(set\)/);

    // The endpoint does not serve the prefilled name: the form says so and stays.
    await app.press(KEY.down, KEY.down, KEY.down, KEY.down, KEY.down, ...String(index), KEY.enter);
    await app.waitFor((f) => f.includes('it serves: scripted'));
    expect(app.frame()).toContain('model "scripted-typo" is not served');
    expect(server.modelListings).toBe(1);

    await app.press(...Array.from({ length: 5 }, () => KEY.backspace), KEY.down, KEY.down, KEY.down, KEY.down, KEY.down, KEY.down, KEY.enter);
    await app.waitFor((f) => f.includes('LIVE · scripted'), 20_000);
    const end = await app.waitFor((f) => f.includes('Perfect'), 60_000);
    expect(end).toContain(`LIVE · scripted · ${split}/${index} · 2 actions`);
    // The scripted look was played: the last turn faced south.
    expect(end).toContain('heading 180°');
    expect(server.requests).toHaveLength(2);
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${SECRET}`);

    // Recorded in the workspace like `geolab agent` records it.
    const ws = await openWorkspace(dir);
    cleanups.push(() => ws.close());
    const rows = ws.db.prepare("SELECT model_name, split, task_index, verdict, run_id FROM episodes WHERE model_name = 'scripted'").all() as {
      model_name: string;
      split: string;
      task_index: number;
      verdict: string;
      run_id: string;
    }[];
    expect(rows).toEqual([{ model_name: 'scripted', split, task_index: index, verdict: 'Perfect', run_id: expect.any(String) }]);
    const runDir = join(ws.paths.runs, rows[0]!.run_id);
    const record = JSON.parse(readFileSync(join(runDir, 'episodes.jsonl'), 'utf8')) as Record<string, unknown>;
    expect(record).toMatchObject({
      model_name: 'scripted',
      model: { base_url: server.baseUrl },
      config: { mode: 'agentic', protocol: 'tools', policy: 'model', base_url: 'embedded', retries: 2 },
    });
    expect(readFileSync(join(runDir, 'episodes.jsonl'), 'utf8')).not.toContain(SECRET);

    // The settings were saved for next time, with the variable's name and never the key.
    const saved = readFileSync(settingsFile, 'utf8');
    expect(JSON.parse(saved)).toEqual({ model: 'scripted', baseUrl: server.baseUrl, apiKeyEnv: 'WATCH_KEY', protocol: 'tools', split });
    expect(saved).not.toContain(SECRET);
  }, 90_000);
});
