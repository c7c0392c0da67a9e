/**
 * `F` in the Player when the environment no longer draws what was recorded: the real decision
 * service forks a workspace episode on the embedded environment, the replay finds that turn 1's view
 * differs, and Live shows the EnvironmentChangedError's message; nothing is recorded.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import { openEnvironment, type OpenedEnvironment } from '../../src/agent/agent-run.js';
import { createModelPolicy } from '../../src/agent/policies/model.js';
import { createRecorder } from '../../src/agent/recorder.js';
import { runEpisode } from '../../src/agent/runner.js';
import { isCompleted } from '../../src/core/episode.js';
import { saveEpisode } from '../../src/store/episodes.js';
import { sniffImageMime, storeImage } from '../../src/store/images.js';
import { decisionService } from '../../src/tui/decision/service.js';
import { runTracker } from '../../src/tui/launch.js';
import { workspaceView } from '../../src/tui/workspace-view.js';
import { startScriptedOpenAI, toolSteps, toolCall, type ScriptedOpenAI } from '../helpers/scripted-openai.js';
import { tempDir } from '../helpers/fixtures.js';
import { tempWorkspaces } from '../helpers/workspaces.js';
import { makeEpisode } from './fixtures.js';
import { KEY, renderApp } from './render.js';

const workspace = tempWorkspaces();
const closing: (ScriptedOpenAI | OpenedEnvironment)[] = [];
afterEach(async () => {
  cleanup();
  await Promise.all(closing.splice(0).map((c) => c.close()));
});

describe('a fork whose replay meets a changed environment', () => {
  it('Live shows the message and the workspace records nothing', async () => {
    const ws = await workspace();
    const server = await startScriptedOpenAI({
      script: toolSteps(toolCall('look', { heading_deg: 90, fov_deg: 60 }), toolCall('pin', { lat: 10, lon: 20 }), toolCall('guess', { lat: 40, lon: -3 })),
    });
    closing.push(server);
    const environment = await openEnvironment({ split: 'eval', index: 1 }, ws);
    closing.push(environment);
    const config = { mode: 'agentic', protocol: 'tools', max_turns: 12 };
    const original = await runEpisode({
      client: environment.client,
      policy: createModelPolicy({ endpoint: { baseUrl: server.baseUrl, model: 'scripted', baseDelayMs: 1, timeoutMs: 5_000 }, protocol: 'tools', guard: environment.guard }),
      split: 'eval',
      index: 1,
      task: environment.task,
      maxTurns: 12,
      config,
      sink: createRecorder(ws, { config }),
    });
    if (!isCompleted(original)) throw new Error(`the original failed: ${String(original.error)}`);
    // The record now says turn 1 showed another image: the environment "changed" since.
    const { images } = await makeEpisode();
    const [other] = [...images.values()];
    const otherSha = storeImage(ws, other!, sniffImageMime(other!)!);
    saveEpisode(ws.db, { ...original, turns: original.turns.map((t) => (t.turn === 1 ? { ...t, image_sha256: otherSha } : t)) });
    const count = () => ws.db.prepare('SELECT COUNT(*) FROM episodes').pluck().get() as number;
    const before = count();

    const runs = runTracker();
    const app = await renderApp({
      route: { screen: 'player', episodeId: original.episode_id },
      services: { openWorkspace: async () => workspaceView(ws), runEpisode: runs.run, decision: decisionService({ open: async () => ws, view: async () => workspaceView(ws), close: async () => {} }, `${tempDir()}/watch.json`, runs.track, {}) },
    });
    await app.waitFor((f) => f.includes('turn 0/3'));
    await app.press(KEY.right, KEY.right, 'F');
    await app.waitFor((f) => f.includes('[ Play on with the model ]'));
    await app.press('p');
    const stopped = await app.waitFor((f) => f.includes('The episode stopped'), 30_000);
    expect(stopped).toContain(`the environment changed since this was recorded: turn 1's view differs (recorded ${otherSha.slice(0, 12)}`);
    await runs.settled();
    expect(count()).toBe(before);
  }, 60_000);
});
