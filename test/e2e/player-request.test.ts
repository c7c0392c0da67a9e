/**
 * The Player on a 200x60 terminal (tmux, the real binary) over an episode `geolab agent` recorded
 * against a scripted OpenAI-compatible server: the tool call stays whole beside its cost, the model's
 * text and calls are apart, the budget is the one the model was told, and `p` shows the request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, geolab, spawnGeolab } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { startScriptedOpenAI, toolCall, type ScriptedOpenAI } from '../helpers/scripted-openai.js';
import { TmuxPane } from '../helpers/tmux.js';

const HOME = tempDir('geolab-e2e-request-');
let server: ScriptedOpenAI;
let episodeId: string;
const panes: TmuxPane[] = [];

beforeAll(async () => {
  server = await startScriptedOpenAI({
    script: [
      { content: 'Checking the east side.', toolCalls: [toolCall('look', { heading_deg: 135, pitch_deg: 0, fov_deg: 30.0123 })] },
      { toolCalls: [toolCall('pin', { lat: 47.2, lon: 10.3 })] },
      { toolCalls: [toolCall('guess', { lat: 47.1, lon: 10.4 })] },
    ],
  });
  const run = await spawnGeolab(['agent', '--headless', '--base-url', server.baseUrl, '--model', 'scripted', '--split', 'eval', '--task', '0'], { home: HOME }).done;
  if (run.code !== 0) throw new Error(`geolab agent failed: ${run.stderr}`);
  const list = JSON.parse(geolab(['episodes', 'list', '--json'], { home: HOME }).stdout) as { episode_id: string; model: string }[];
  const row = list.find((e) => e.model === 'scripted');
  if (!row) throw new Error(`no scripted episode in ${JSON.stringify(list)}`);
  episodeId = row.episode_id;
});

afterAll(async () => {
  panes.splice(0).forEach((p) => p.kill());
  await server?.close();
});

describe('the Player at 200x60', () => {
  it('steps a recorded agent episode and opens the request of a turn', async () => {
    const pane = new TmuxPane([process.execPath, BIN, 'episodes', 'show', episodeId.slice(0, 8)], { GEOLAB_HOME: HOME, TERM: 'xterm-256color' }, { columns: 200, rows: 60 });
    panes.push(pane);
    await pane.waitFor('turn 0/3');
    pane.send(['Right']);
    const first = await pane.waitFor((screen) => screen.includes('turn 1/3') && screen.includes('told 12 tool calls left'));
    expect(first).toContain('look(heading_deg=135, pitch_deg=0, fov_deg=30.0123)');
    expect(first).toMatch(/fov_deg=30\.0123\)\s+0\.01 ◀/);
    expect(first).toContain('reasoning (r): Checking the east side.');
    expect(first).toContain('tool calls: look(heading_deg=135, pitch_deg=0, fov_deg=30.0123)');
    expect(first).toContain('told 12 tool calls left');

    pane.send(['Right']);
    // The header can be on screen a moment before the rest of the frame: wait for the line itself.
    const second = await pane.waitFor(/told 11 tool calls left · environment \d+ steps left/);
    expect(second).toContain('turn 2/3');

    pane.send(['p']);
    const request = await pane.waitFor((screen) => screen.includes('request of turn 2') && screen.includes('11 tool calls left.'));
    expect(request).toContain('user · harness');
    expect(request).toMatch(/\[image sha256 [0-9a-f]{12}… image\/jpeg\]/);
    expect(request).toContain("assistant · the model's own earlier reply");
    expect(request).toContain('▌ Checking the east side.');
    expect(request).toContain('▌ tool call: look(heading_deg=135, pitch_deg=0, fov_deg=30.0123)');
    expect(request).toContain('tool result (look) · environment feedback, worded by the harness');
    expect(request).toContain('11 tool calls left.');

    pane.send(['q']);
    const back = await pane.waitFor((s) => s.includes('turn 2/3') && !s.includes('request of turn') && s.includes('told 11'));
    expect(back).toContain('told 11 tool calls left');
    pane.send(['q']);
  });
});
