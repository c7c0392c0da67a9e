/**
 * The reasoning view of Live (`r`, as in the Player), through the real binary in a real terminal
 * (tmux): Home -> Watch a model, against a scripted OpenAI-compatible server on loopback whose
 * replies carry reasoning. While the model is held before its second turn, `r` shows the first turn's reasoning in
 * full; after the guess, the last turn's, and the turns read again with it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { truthOf } from '../../src/core/tasks.js';
import { demoSplits } from '../../src/env/task-splits.js';
import { BIN } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { startScriptedOpenAI, toolCall, type ScriptedOpenAI } from '../helpers/scripted-openai.js';
import { TmuxPane } from '../helpers/tmux.js';

const SPLIT = 'eval';
const INDEX = 3;
// Longer than a line: only the full view shows their ends.
const FIRST =
  'The road signs use a Latin script with diacritics and the cars drive on the right; the vegetation looks continental. ' +
  'Before guessing I zoom in on the sign by the bus stop to read the town name. First-turn-end-marker.';
const SECOND =
  'The sign reads a town name I recognise, and the plates match the region I suspected from the first view. ' +
  'I am confident enough to guess the point where the road meets the river. Second-turn-end-marker.';

let pane: TmuxPane | undefined;
let server: ScriptedOpenAI | undefined;
afterEach(async () => {
  pane?.kill();
  await server?.close();
});

describe('the reasoning view of Live in a real terminal', () => {
  it('r shows the turn’s reasoning in full while the model thinks and after the guess, and r again shows the pane', async () => {
    const truth = truthOf((await demoSplits()).get(SPLIT)![INDEX]!);
    const zoom = { toolCalls: [toolCall('zoom', { fov_deg: 30 })], reasoning: FIRST };
    server = await startScriptedOpenAI({
      // The first episode's model never answers its second turn: it is thinking while r is pressed.
      script: [zoom, { hang: true }, zoom, { toolCalls: [toolCall('guess', { lat: truth.lat, lon: truth.lon })], reasoning: SECOND }],
      models: [{ id: 'scripted' }],
    });
    const home = tempDir('geolab-live-reasoning-');
    pane = new TmuxPane([process.execPath, BIN], { GEOLAB_HOME: home, TERM: 'xterm-256color', GEOLAB_MODEL: 'scripted', GEOLAB_BASE_URL: server.baseUrl });
    // Home -> Watch a model -> the form (prefilled from GEOLAB_*) -> the task index -> start.
    await pane.waitFor(/Episodes\s+\d+/);
    pane.send(['Down', 'Down']);
    await pane.waitFor('› Watch a model');
    pane.send(['Enter']);
    await pane.waitFor('[ Start ]');
    pane.send(['Tab', 'Tab', 'Tab', 'Tab', 'Tab']);
    pane.send([String(INDEX)], true);
    await pane.waitFor(/task index\s+3/);
    pane.send(['Enter']);

    // While the model thinks about turn 2: the first turn's reasoning, in full, in place of the view.
    const thinking = await pane.waitFor((s) => s.includes(`LIVE · scripted · ${SPLIT}/${INDEX}`) && s.includes('thinking about turn 2'), 30_000);
    expect(thinking).not.toContain('First-turn-end-marker');
    expect(thinking).toContain('r reasoning');
    pane.send(['r']);
    const first = await pane.waitFor('Showing the reasoning of turn 1 · r shows the last view');
    expect(first).toContain('reasoning (r):');
    expect(first).toContain('First-turn-end-marker.');
    expect(first).toContain('tool calls: zoom(fov_deg=30)');
    expect(first).toContain('thinking about turn 2');
    pane.send(['r']);
    await pane.waitFor((s) => !s.includes('Showing the reasoning') && !s.includes('First-turn-end-marker'));

    // The key table puts it in the help.
    pane.send(['?']);
    const help = await pane.waitFor("the turn's reasoning and reply in full");
    expect(help).toMatch(/\br +the turn's reasoning and reply in full, in place of the view \(again: back\)/);
    pane.send(['?']);
    await pane.waitFor('thinking about turn 2');

    // Aborted, left, and started again: this time the model guesses.
    pane.send(['a']);
    await pane.waitFor('Aborted.');
    pane.send(['q']);
    await pane.waitFor('[ Start ]');
    pane.send(['Down', 'Down', 'Down', 'Down', 'Down', 'Down', 'Enter']);
    await pane.waitFor('Showing the reveal', 30_000);
    pane.send(['r']);
    const last = await pane.waitFor('Showing the reasoning of turn 2 · r shows the reveal');
    expect(last).toContain('Second-turn-end-marker.');
    expect(last).not.toContain('First-turn-end-marker');
    // Reading the turns again keeps it open on the turn read; m brings the pane back.
    pane.send(['Up']);
    const again = await pane.waitFor('Showing the reasoning of turn 1 · r shows the last view');
    expect(again).toContain('First-turn-end-marker.');
    pane.send(['m']);
    await pane.waitFor((s) => s.includes('Showing the reveal') && !s.includes('First-turn-end-marker'));
    pane.send(['q']);
  }, 120_000);
});
