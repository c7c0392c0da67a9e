/**
 * The Eval board's newSweep service (src/tui/eval/service.ts) on a real workspace against a scripted
 * OpenAI-compatible endpoint: which field a start that cannot happen blames, that it starts nothing,
 * and that one that can plays to done in this process, in the folder and the workspace.
 */
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { evalBoardService } from '../../src/tui/eval/service.js';
import { workspaceSession } from '../../src/tui/workspace-session.js';
import { tempDir } from '../helpers/fixtures.js';
import { startScriptedOpenAI, toolCall, toolSteps, type ScriptedOpenAI } from '../helpers/scripted-openai.js';

const home = tempDir('geolab-new-sweep-service-');
const session = workspaceSession(home);
const settings = join(home, 'watch.json');
const service = evalBoardService(session, settings, { GEOLAB_MODEL: 'from-env' });
const servers: ScriptedOpenAI[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
afterAll(() => session.close());

const scripted = async () => {
  const server = await startScriptedOpenAI({ script: toolSteps(toolCall('guess', { lat: 45.5, lon: 9.2 })), models: [{ id: 'qwen-vl' }] });
  servers.push(server);
  return server;
};

describe("the board's new sweep", () => {
  it('prefills from the environment and the saved Watch settings, with the sweeps folder and the splits served', async () => {
    writeFileSync(settings, JSON.stringify({ model: 'saved', baseUrl: 'http://127.0.0.1:9/v1', apiKeyEnv: 'MY_KEY', split: 'demo' }));
    const prefill = await service.prefillSweep!();
    expect(prefill.prefill).toEqual({ model: 'from-env', baseUrl: 'http://127.0.0.1:9/v1', apiKeyEnv: 'MY_KEY', split: 'demo' });
    expect(prefill.sweepsDir).toBe(join(home, 'sweeps'));
    expect(prefill.splits).toContain('eval');
  });

  it('blames the field at fault and starts nothing', async () => {
    const server = await scripted();
    const dir = tempDir('geolab-new-sweep-bad-');
    const out = join(dir, 'sweep');
    const endpoint = { model: 'qwen-vl', baseUrl: server.baseUrl, out, passes: 1 };
    expect(await service.newSweep!({ ...endpoint, split: 'no-such-split' })).toMatchObject({ ok: false, field: 'split' });
    expect(await service.newSweep!({ models: join(dir, 'missing.json'), split: 'eval', out })).toMatchObject({ ok: false, field: 'modelsFile' });
    // No shell reads the form: `~/` is the home folder, as on the command line.
    const tilde = await service.newSweep!({ models: '~/geolab-no-such-models-file.json', split: 'eval', out });
    expect(tilde).toMatchObject({ ok: false, field: 'modelsFile' });
    expect(JSON.stringify(tilde)).toContain(join(homedir(), 'geolab-no-such-models-file.json'));
    const models = join(dir, 'models.json');
    writeFileSync(models, JSON.stringify([{ name: 'a', model: 'qwen-vl', base_url: server.baseUrl }]));
    expect(await service.newSweep!({ models, names: ['b'], split: 'eval', out })).toEqual({ ok: false, field: 'names', message: 'the models file has no model named b (it has a)' });
    // The endpoint does not serve the model: nobody's typing but the model check's, and no folder is made.
    const wrongModel = await service.newSweep!({ ...endpoint, model: 'other', split: 'eval' });
    expect(wrongModel).toMatchObject({ ok: false });
    expect(existsSync(out)).toBe(false);
    expect(server.requests).toHaveLength(0);
  });

  it('one that can start settles once it plays, and `done` when it ends', async () => {
    const server = await scripted();
    const out = join(tempDir('geolab-new-sweep-ok-'), 'sweep');
    const started = await service.newSweep!({ model: 'qwen-vl', baseUrl: server.baseUrl, split: 'eval', passes: 2, limit: 2, concurrency: 1, out });
    if (!started.ok) throw new Error(started.message);
    expect(started.out).toBe(out);
    const outcome = await started.done;
    expect(outcome).toMatchObject({ runId: started.runId, status: 'done', exitCode: 0 });
    const lines = (readdirSync(out, { recursive: true }) as string[])
      .filter((f) => f.endsWith('episodes.jsonl'))
      .flatMap((f) => readFileSync(join(out, f), 'utf8').split('\n').filter(Boolean));
    expect(lines).toHaveLength(4);
    const snapshot = await service.read(() => {});
    expect(snapshot.runs.find((r) => r.id === started.runId)?.episodes).toBe(4);
    expect(snapshot.sweeps.find((s) => s.dir === out)?.phase).toBe('done');
  });
});
