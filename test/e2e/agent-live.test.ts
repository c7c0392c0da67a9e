/**
 * `geolab agent` on a terminal plays in the TUI's Live screen (docs/tui.md), through the real
 * binary in a real terminal (tmux), against a scripted OpenAI-compatible server on loopback. The
 * Live screen's chunk must be in the build: it was once loaded through a variable specifier the
 * bundler left out, and every terminal run fell back to plain output.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { truthOf } from '../../src/core/tasks.js';
import { demoSplits } from '../../src/env/task-splits.js';
import { BIN } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { startScriptedOpenAI, toolCall, type ScriptedOpenAI } from '../helpers/scripted-openai.js';
import { TmuxPane } from '../helpers/tmux.js';

let pane: TmuxPane | undefined;
let server: ScriptedOpenAI | undefined;
afterEach(async () => {
  pane?.kill();
  await server?.close();
});

describe('geolab agent on a terminal', () => {
  it('opens Live on the episode and shows the reveal', async () => {
    const truth = truthOf((await demoSplits()).get('eval')![2]!);
    server = await startScriptedOpenAI({
      script: [{ toolCalls: [toolCall('zoom', { fov_deg: 30 })] }, { toolCalls: [toolCall('guess', { lat: truth.lat, lon: truth.lon })] }],
      models: [{ id: 'scripted' }],
    });
    pane = new TmuxPane([process.execPath, BIN, 'agent', '--model', 'scripted', '--base-url', server.baseUrl, '--split', 'eval', '--task', '2'], {
      GEOLAB_HOME: tempDir('geolab-agent-live-'),
      TERM: 'xterm-256color',
    });
    const live = await pane.waitFor('LIVE · scripted · eval/2', 30_000);
    expect(live).not.toContain('turn 1:'); // not the plain output's lines
    await pane.waitFor('Showing the reveal', 30_000);
  });
});
