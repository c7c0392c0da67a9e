/** Settings into a run: the one path `geolab agent` and the TUI's "Watch a model" share. */
import { describe, expect, it } from 'vitest';
import { embeddedTaskProblem, openAgentRun } from '../../src/agent/agent-run.js';
import { apiKeyEnvProblem, apiKeyFrom, baseUrlProblem, modelEndpoint, modelSettings } from '../../src/agent/agent-settings.js';
import { demoSplits, taskProblem } from '../../src/env/task-splits.js';
import { importTaskFile } from '../../src/store/task-sets.js';
import { makeTask, writeJsonl } from '../helpers/fixtures.js';
import { tempWorkspaces } from '../helpers/workspaces.js';

const workspace = tempWorkspaces();

describe('agent settings', () => {
  it('checks a base URL and a key variable name without saying where they came from', () => {
    expect(baseUrlProblem('http://127.0.0.1:8000/v1')).toBeNull();
    expect(baseUrlProblem('https://api.example/v1')).toBeNull();
    expect(baseUrlProblem('127.0.0.1:8000')).toMatch(/^must be an http\(s\) URL/);
    expect(baseUrlProblem('file:///etc/passwd')).toMatch(/^must be an http\(s\) URL/);
    expect(apiKeyEnvProblem('OPENAI_API_KEY')).toBeNull();
    expect(apiKeyEnvProblem('sk-abc')).toContain('NAME of an environment variable');
  });

  it('reads the key only from the named variable, an empty one counting as unset', () => {
    expect(apiKeyFrom('K', { K: 'sk-1' })).toBe('sk-1');
    expect(apiKeyFrom('K', { K: '' })).toBeUndefined();
    expect(apiKeyFrom('', { K: 'sk-1' })).toBeUndefined();
    expect(apiKeyFrom(undefined, { K: 'sk-1' })).toBeUndefined();
  });

  it('builds the endpoint with the recipe defaults', () => {
    expect(modelEndpoint({ model: 'm', baseUrl: 'http://h:1/v1//', timeoutS: 2 })).toEqual({
      baseUrl: 'http://h:1/v1',
      model: 'm',
      apiKey: undefined,
      temperature: undefined,
      maxTokens: 6144,
      timeoutMs: 2000,
    });
  });

  it('says which of split and task is wrong', () => {
    const sizes = new Map([
      ['train', 24],
      ['eval', 8],
    ]);
    expect(taskProblem(sizes, 'here', 'eval', null)).toBeNull();
    expect(taskProblem(sizes, 'here', 'eval', 7)).toBeNull();
    expect(taskProblem(sizes, 'here', 'test', 0)).toEqual({ setting: 'split', message: 'split "test" is not served: here serves train, eval' });
    expect(taskProblem(sizes, 'here', 'eval', 8)).toEqual({ setting: 'task', message: 'task 8 is out of range: split eval has tasks 0 to 7' });
  });
});

describe('openAgentRun', () => {
  it('opens the embedded environment on a random task when none is given, with the harness config', async () => {
    const size = (await demoSplits()).get('eval')!.length;
    const endpoint = modelEndpoint({ model: 'scripted', baseUrl: 'http://127.0.0.1:9/v1' });
    const ws = await workspace();
    const seen = new Set<number>();
    for (let i = 0; i < 12; i++) {
      const { run, close } = await openAgentRun(modelSettings(endpoint, { protocol: 'json', split: 'eval', index: null }), { workspace: ws });
      try {
        expect(run.index).toBeGreaterThanOrEqual(0);
        expect(run.index).toBeLessThan(size);
        seen.add(run.index);
        expect(run.policy.name).toBe('scripted');
        // base_url is the environment's (the model's endpoint is in the model block).
        expect(run.config).toEqual({ mode: 'agentic', protocol: 'json', prompt_version: 'geolab-json-1', policy: 'model', base_url: 'embedded', retries: 2, image_size: 448 });
        expect(run.task).toMatchObject({ task_id: expect.any(String) });
        expect(run.sink.runDir.startsWith(ws.paths.runs)).toBe(true);
      } finally {
        await close();
      }
    }
    // Twelve draws over eight tasks all landing on one would mean the index is not random.
    expect(seen.size).toBeGreaterThan(1);
  });

  it('refuses a split or task the environment does not serve, before starting it', async () => {
    const endpoint = modelEndpoint({ model: 'm', baseUrl: 'http://127.0.0.1:9/v1' });
    const ws = await workspace();
    await expect(openAgentRun(modelSettings(endpoint, { protocol: 'tools', split: 'nope', index: 0 }), { workspace: ws })).rejects.toThrow(
      'split "nope" is not served: the embedded environment serves train, eval',
    );
    await expect(embeddedTaskProblem(ws, 'eval', 99)).resolves.toMatchObject({ setting: 'task' });
    await expect(embeddedTaskProblem(ws, 'eval', null)).resolves.toBeNull();
  });

  it('serves every task set of the workspace by name, beside the demo splits', async () => {
    const ws = await workspace();
    await importTaskFile(ws.db, writeJsonl([makeTask(0), makeTask(1)]), 'fixture');
    await expect(embeddedTaskProblem(ws, 'fixture', 1)).resolves.toBeNull();
    await expect(embeddedTaskProblem(ws, 'fixture', 2)).resolves.toEqual({ setting: 'task', message: 'task 2 is out of range: split fixture has tasks 0 to 1' });
    await expect(embeddedTaskProblem(ws, 'nope', 0)).resolves.toMatchObject({ message: 'split "nope" is not served: the embedded environment serves train, eval, fixture' });
  });
});
