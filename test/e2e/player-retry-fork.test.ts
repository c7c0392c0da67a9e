/**
 * The Player's `R` (retry a turn) and `F` (fork the episode there) through the real binary in a real
 * terminal (tmux, a private server), over an episode `geolab agent` recorded against a scripted
 * OpenAI-compatible server on loopback. The forms are prefilled with that server (the record's
 * model block), so the test only presses Enter: the samples stream in beside the recorded reply
 * with the summary and the request-hash line; the fork replays turn 1, the model plays on in Live
 * to the reveal, and the workspace then holds a record with `forked_from`. `p` in the fork's form
 * plays on yourself: the replayed turns, then your guess, recorded as a fork with no model asked.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, geolab, spawnGeolab } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { startScriptedOpenAI, toolCall, type ChatRequestBody, type ScriptedReply } from '../helpers/scripted-openai.js';
import { TmuxPane } from '../helpers/tmux.js';

const HOME = tempDir('geolab-e2e-retry-fork-');
let server: Awaited<ReturnType<typeof startScriptedOpenAI>>;
let episodeId: string;
let pane: TmuxPane | undefined;

/**
 * Which turn a request is for is told by the tool results it holds. Turn 1 looks, turn 2 pins; turn
 * 3 guesses on the requests counted even and looks again on the odd ones (the recording's turn 3 is
 * request 2: a guess), so the five samples of turn 3 disagree; later turns guess.
 */
function script(body: ChatRequestBody, n: number): ScriptedReply {
  const results = body.messages.filter((m) => m.role === 'tool').length;
  const guess = toolCall('guess', { lat: 47 + n / 100, lon: 10.4 });
  if (results === 0) return { toolCalls: [toolCall('look', { heading_deg: 90, fov_deg: 60 })], reasoning: 'Looking east first.' };
  if (results === 1) return { toolCalls: [toolCall('pin', { lat: 47.2, lon: 10.3 })], reasoning: 'Tyrol, probably.' };
  if (results === 2 && n % 2 === 1) return { toolCalls: [toolCall('look', { heading_deg: 200 })], reasoning: `Request ${n} looks once more.` };
  return { toolCalls: [guess], reasoning: `Request ${n} commits to the Inn valley.` };
}

beforeAll(async () => {
  server = await startScriptedOpenAI({ script });
  const run = await spawnGeolab(['agent', '--headless', '--base-url', server.baseUrl, '--model', 'scripted', '--split', 'eval', '--task', '0'], { home: HOME }).done;
  if (run.code !== 0) throw new Error(`geolab agent failed: ${run.stderr}`);
  const list = JSON.parse(geolab(['episodes', 'list', '--json'], { home: HOME }).stdout) as { episode_id: string; model: string }[];
  const row = list.find((e) => e.model === 'scripted');
  if (!row) throw new Error(`no scripted episode in ${JSON.stringify(list)}`);
  episodeId = row.episode_id;
}, 60_000);

afterAll(async () => {
  pane?.kill();
  await server?.close();
});

/** Every record the workspace's runs hold. */
function records(): Record<string, unknown>[] {
  const runs = join(HOME, 'runs');
  return readdirSync(runs).flatMap((run) => {
    const file = join(runs, run, 'episodes.jsonl');
    if (!existsSync(file)) return [];
    return readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
  });
}

describe('retry and fork from the Player in a real terminal', () => {
  it('R retries turn 3 five times beside the recorded reply; F forks at turn 2 and the model plays on to the reveal', async () => {
    pane = new TmuxPane([process.execPath, BIN, 'episodes', 'show', episodeId.slice(0, 8)], { GEOLAB_HOME: HOME, TERM: 'xterm-256color' }, { columns: 160, rows: 50 });
    await pane.waitFor('turn 0/3');
    expect(pane.screen()).toMatch(/R retry · F fork/);
    // On the reset: which turns can be retried.
    pane.send(['R']);
    await pane.waitFor("Turn 0 is the reset: a model's turn can be retried or forked (turns 1–3).");

    pane.send(['G']);
    await pane.waitFor('turn 3/3');
    pane.send(['R']);
    const form = await pane.waitFor('› [ Send ]');
    expect(form).toContain('RETRY turn 3');
    expect(form).toMatch(/model +scripted/);
    expect(form).toContain(`base URL         ${server.baseUrl}`);
    expect(form).toMatch(/samples +5/);
    expect(form).toMatch(/request sha256 [0-9a-f]{12}… matches the recorded one/);
    const before = server.requests.length;

    pane.send(['Enter']);
    const done = await pane.waitFor('[ Send again ]', 30_000);
    expect(server.requests.length - before).toBe(5);
    expect(done).toMatch(/2 of 5 chose guess, the recorded action · 2 guesses, spread [\d.,]+ k?m, mean [\d.,]+ k?m to the truth/);
    expect(done).toContain('recorded');
    expect(done).toMatch(/#1[\s\S]*#5/);
    // Columns are narrow: a sample's reasoning and call wrap inside them.
    expect(done).toMatch(/Request \d commits to/);
    expect(done).toMatch(/Request \d looks once/);
    expect(done).toMatch(/guess\(lat=47\.0\d+,/);
    expect(done).toContain('look(heading_deg=200,');
    expect(done).toContain("1…2 samples' guesses");
    // The samples' requests are the recorded turn's request: the same messages, sent again.
    const sent = server.requests.slice(before).map((r) => JSON.stringify(r.body.messages));
    expect(new Set(sent).size).toBe(1);
    expect(sent[0]).toBe(JSON.stringify(server.requests[2]!.body.messages));

    pane.send(['Escape']);
    await pane.waitFor((s) => s.includes('turn 3/3') && !s.includes('RETRY'));

    // Fork at turn 2: turn 1 is replayed, the model plays turn 2 on.
    pane.send(['Left']);
    await pane.waitFor('turn 2/3');
    pane.send(['F']);
    const fork = await pane.waitFor('› [ Play on with the model ]');
    expect(fork).toContain('FORK at turn 2');
    expect(fork).toContain(`base URL         ${server.baseUrl}`);
    expect(fork).toContain('p: play on yourself');
    const beforeFork = server.requests.length;
    pane.send(['Enter']);
    const live = await pane.waitFor((s) => s.includes('LIVE · scripted · eval/0') && s.includes('Showing the reveal'), 60_000);
    expect(live).toMatch(/Pinpoint|Close|Region|Wrong|Perfect/i);
    // Turn 1 was replayed, not asked again: the first request of the fork is turn 2's, with one tool result.
    const forkRequests = server.requests.slice(beforeFork);
    expect(forkRequests.length).toBeGreaterThanOrEqual(1);
    expect(forkRequests[0]!.body.messages.filter((m) => m.role === 'tool')).toHaveLength(1);

    pane.send(['q']);
    await pane.waitFor((s) => s.includes('turn 2/3') && !s.includes('LIVE'));
    pane.send(['q']);
    await waitUntil(() => records().some((r) => r.forked_from));
    const forked = records().find((r) => r.forked_from)!;
    expect(forked.forked_from).toEqual({ episode_id: episodeId, turn: 2 });
    const turns = forked.turns as { turn: number; action?: { action: string } }[];
    expect(turns.find((t) => t.turn === 1)?.action?.action).toBe('look');
    expect(turns.find((t) => t.turn === 2)?.action?.action).toBe('pin');
  }, 180_000);
});

describe('a fork played on by you', () => {
  it('F then p opens Live with the turns before replayed, and your guess is recorded with forked_from', async () => {
    pane?.kill();
    pane = new TmuxPane([process.execPath, BIN, 'episodes', 'show', episodeId.slice(0, 8)], { GEOLAB_HOME: HOME, TERM: 'xterm-256color' }, { columns: 160, rows: 50 });
    await pane.waitFor('turn 0/3');
    pane.send(['Right', 'Right', 'Right']);
    await pane.waitFor('turn 3/3');
    const before = records().filter((r) => r.forked_from).length;
    const asked = server.requests.length;
    pane.send(['F']);
    await pane.waitFor('› [ Play on with the model ]');
    pane.send(['p']);
    // Turns 1 and 2 replayed as recorded; turn 3 is yours.
    const live = await pane.waitFor((s) => s.includes('LIVE · you · eval/0') && s.includes('Your move: turn 3'), 30_000);
    expect(live).toContain('2 actions');
    pane.send(['g']);
    pane.send(['47.1, 10.4'], true);
    pane.send(['Enter']);
    await pane.waitFor('Showing the reveal', 30_000);
    // No model was asked.
    expect(server.requests.length).toBe(asked);
    pane.send(['q']);
    await pane.waitFor((s) => s.includes('turn 3/3') && !s.includes('LIVE'));
    pane.send(['q']);
    await waitUntil(() => records().filter((r) => r.forked_from).length > before);
    const forked = records().filter((r) => r.forked_from).at(-1)!;
    expect(forked.forked_from).toEqual({ episode_id: episodeId, turn: 3 });
    const turns = forked.turns as { turn: number; action?: { action: string; lat?: number } }[];
    expect(turns.map((t) => t.action?.action)).toEqual(['reset', 'look', 'pin', 'guess']);
    expect(turns[3]!.action?.lat).toBe(47.1);
  }, 120_000);
});

async function waitUntil(ok: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}
