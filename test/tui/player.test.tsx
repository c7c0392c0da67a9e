import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import { helpEntries } from '../../src/tui/keys.js';
import { GUESS_MARK, TRUTH_MARK } from '../../src/tui/map/world-map.js';
import { failedEpisode, makeEpisode, memoryWorkspace, type EpisodeFixture } from './fixtures.js';
import { KEY, renderApp } from './render.js';

let fixture: EpisodeFixture;

beforeAll(async () => {
  fixture = await makeEpisode();
});

afterEach(() => cleanup());

async function openPlayer(options: { columns?: number; rows?: number; colour?: boolean } = {}) {
  const workspace = memoryWorkspace([fixture.episode], fixture.images);
  const app = await renderApp({
    route: { screen: 'player', episodeId: fixture.episode.episode_id },
    services: { openWorkspace: async () => workspace },
    ...options,
  });
  await app.waitFor((f) => f.includes('turn 0/3'));
  return app;
}

describe('Player', () => {
  it('starts at the reset turn with the episode in the header', async () => {
    const app = await openPlayer();
    expect(app.frame()).toContain('episode 3f9a21c0 · qwen-test · eval/17 · sample 2');
    expect(app.frame()).toContain('(start)');
  });

  it('right arrow (and l) steps to the next turn, left arrow (and h) back', async () => {
    const app = await openPlayer();
    await app.press(KEY.right);
    expect(app.frame()).toContain('turn 1/3');
    expect(app.frame()).toContain('look(heading_deg=90, fov_deg=90)');
    expect(app.frame()).toMatch(/look\(heading_deg=90, fov_deg=90\)\s+0\.01 ◀/);
    await app.press('l');
    expect(app.frame()).toContain('turn 2/3');
    expect(app.frame()).toMatch(/pin\(lat=47\.2, lon=10\.3\)\s+0\.02 ◀/);
    await app.press(KEY.left, 'h');
    expect(app.frame()).toContain('turn 0/3');
  });

  it('g and G jump to the first and last turn', async () => {
    const app = await openPlayer();
    await app.press('G');
    expect(app.frame()).toContain('turn 3/3');
    await app.press('g');
    expect(app.frame()).toContain('turn 0/3');
  });

  it('r expands and collapses the reasoning', async () => {
    const app = await openPlayer({ columns: 80, rows: 24 });
    await app.press(KEY.right);
    expect(app.frame()).toContain('reasoning (r): German-language sign');
    expect(app.frame()).not.toContain('Looking east first.');
    await app.press('r');
    expect(app.frame()).toContain('Looking east first.');
    await app.press('r');
    expect(app.frame()).not.toContain('Looking east first.');
  });

  it('? shows the help generated from the key table, and closes again', async () => {
    const app = await openPlayer();
    await app.press('?');
    for (const entry of helpEntries(['player'])) {
      expect(app.frame()).toContain(entry.description);
      expect(app.frame()).toContain(entry.keys);
    }
    expect(app.frame()).toContain('←/h');
    await app.press('?');
    expect(app.frame()).not.toContain('show/hide the reasoning');
  });

  it('the last turn shows the map, distance, verdict and both reward curves', async () => {
    const app = await openPlayer();
    await app.press('G');
    const frame = app.frame();
    expect(frame).toContain('Pinpoint · 14 km · guess 47.1000, 10.4000 · truth 47.2000, 10.5500 · country ✓');
    expect(frame).toMatch(/game +█+░* 0\.8999/);
    expect(frame).toMatch(/reference +█+░* 0\.9712/);
    expect(frame).toContain('great circle 14 km');
    await app.press('m');
    expect(app.frame()).not.toContain('great circle 14 km');
  });

  it('the last turn reveals guess and truth 14 km apart on a regional map, with a legend and their places', async () => {
    const app = await openPlayer({ columns: 120, rows: 40 });
    await app.press('G');
    const frame = app.frame();
    const lines = frame.split('\n');
    const at = (mark: string) => {
      const row = lines.findIndex((l) => l.includes(mark));
      return { row, col: row < 0 ? -1 : [...lines[row]!].indexOf(mark) };
    };
    // On a world map the truth hides the guess 14 km away; fitted to both, they are cells apart.
    const guess = at(GUESS_MARK);
    const truth = at(TRUTH_MARK);
    expect(guess.row).toBeGreaterThanOrEqual(0);
    expect(Math.abs(guess.col - truth.col) + Math.abs(guess.row - truth.row)).toBeGreaterThanOrEqual(8);
    // The great circle between them, the legend and the scale.
    expect(lines[truth.row]!.slice(0, 0) + frame).toMatch(/[⠀-⣿]/);
    expect(frame).toMatch(new RegExp(`${GUESS_MARK} guess · ${TRUTH_MARK} truth · ⠒⠒ great circle 14 km · 1 pin · one cell ≈ [\\d.]+ (m|km) across`));
    expect(frame).toContain(`${TRUTH_MARK} truth  Austria (Western Europe), ~64.1 km W of Innsbruck  (47.2000, 10.5500)`);
    expect(frame).toContain(`${GUESS_MARK} guess  Austria (Western Europe), ~66.6 km E of Vaduz  (47.1000, 10.4000)`);
    // Everything fits: the header is still on screen.
    expect(frame).toContain('episode 3f9a21c0');
  });

  it('m shows the pins on the world map at any turn', async () => {
    const app = await openPlayer();
    await app.press(KEY.right, KEY.right, 'm');
    expect(app.frame()).toMatch(/[⠀-⣿]1[⠀-⣿]/);
  });

  it('space autoplays to the end and stops there', async () => {
    const app = await openPlayer();
    await app.press(' ');
    expect(app.frame()).toContain('▶');
    await app.waitFor((f) => f.includes('turn 3/3') && !f.includes('▶'), 8000);
  });

  it('draws the image the model saw once it is rendered', async () => {
    const app = await openPlayer({ colour: true });
    await app.waitFor((f) => f.includes('▀'));
    expect(app.frame()).not.toContain('rendering…');
  });

  it('shows why a failed episode has no turns, and an unknown id', async () => {
    const workspace = memoryWorkspace([failedEpisode()]);
    const failed = await renderApp({ route: { screen: 'player', episodeId: 'dead0000' }, services: { openWorkspace: async () => workspace } });
    await failed.waitFor((f) => f.includes('The episode failed: model endpoint unreachable'));
    const missing = await renderApp({ route: { screen: 'player', episodeId: 'nope' }, services: { openWorkspace: async () => workspace } });
    await missing.waitFor((f) => f.includes('no episode nope in this workspace'));
  });

  it('shows an aborted run whose outcome was left null as failed, not as a scored episode', async () => {
    const aborted = { ...failedEpisode(), error: 'aborted by the user', failure: 'aborted', outcome: null };
    const workspace = memoryWorkspace([aborted]);
    const app = await renderApp({ route: { screen: 'player', episodeId: 'dead0000' }, services: { openWorkspace: async () => workspace } });
    await app.waitFor((f) => f.includes('The episode failed: aborted by the user'));
  });

  it('q leaves the player', async () => {
    const app = await openPlayer();
    await app.press('q');
    await app.waitFor(() => app.exited());
  });
});

/** The fixture with one turn's recorded fields replaced. */
function withTurn(index: number, fields: Record<string, unknown>): EpisodeFixture {
  const episode = structuredClone(fixture.episode);
  Object.assign(episode.turns[index]!, fields);
  return { episode, images: fixture.images };
}

async function openEpisode(episode: EpisodeFixture, options: { columns?: number; rows?: number } = {}) {
  const workspace = memoryWorkspace([episode.episode], episode.images);
  const app = await renderApp({ route: { screen: 'player', episodeId: episode.episode.episode_id }, services: { openWorkspace: async () => workspace }, ...options });
  await app.waitFor((f) => f.includes('turn 0/3'));
  return app;
}

describe('tool calls', () => {
  const args = ['heading_deg=135.125', 'pitch_deg=-12.5', 'fov_deg=30.0123', 'span_deg=2.75', 'direction="forward"', 'meters=15.25'];
  const longCall = { action: 'look', heading_deg: 135.125, pitch_deg: -12.5, fov_deg: 30.0123, span_deg: 2.75, direction: 'forward', meters: 15.25 };

  for (const [columns, rows] of [
    [80, 24],
    [120, 40],
    [200, 60],
  ] as const) {
    it(`keep every argument whole, clear of the cost column, at ${columns} columns`, async () => {
      const app = await openEpisode(withTurn(1, { action: longCall }), { columns, rows });
      await app.press(KEY.right);
      const frame = app.frame();
      for (const arg of args) expect(frame).toContain(arg);
      expect(frame).toContain('meters=15.25)');
      if (columns >= 100) {
        expect(frame).toMatch(/\s0\.01 ◀/);
        // Not the current turn: elided with a mark, the cost column still its own.
        await app.press(KEY.right);
        expect(app.frame()).toMatch(/1 look\(heading_deg=135\.125, [^│]*…\s+0\.01\s/);
      }
    });
  }
});

describe('the model line', () => {
  const toolCalls = [
    { id: 'call_1_0', type: 'function', function: { name: 'look', arguments: '{"heading_deg": 135, "fov_deg": 30}' } },
    { id: 'call_1_1', type: 'function', function: { name: 'pin', arguments: { lat: 45.5, lon: 7.25 } } },
  ];

  it('shows the reply text, and apart from it the tool calls by name and arguments', async () => {
    const app = await openEpisode(withTurn(1, { model: { reply: 'East first, where the valley opens.', tool_calls: toolCalls } }));
    await app.press(KEY.right);
    const frame = app.frame();
    expect(frame).toContain('reasoning (r): East first, where the valley opens.');
    expect(frame).toContain('tool calls: look(heading_deg=135, fov_deg=30), pin(lat=45.5, lon=7.25)');
    expect(frame).not.toContain('"type"');
  });

  it('reads a reply holding nothing but tool-call JSON as calls, never as text', async () => {
    const app = await openEpisode(withTurn(1, { model: { reply: JSON.stringify(toolCalls.slice(0, 1)) } }));
    await app.press(KEY.right);
    const frame = app.frame();
    expect(frame).toContain('reasoning (r): none recorded');
    expect(frame).toContain('tool calls: look(heading_deg=135, fov_deg=30)');
    expect(frame).not.toContain('call_1_0');
    await app.press('r');
    expect(app.frame()).toContain('tool calls: look(heading_deg=135, fov_deg=30)');
    expect(app.frame()).not.toContain('call_1_0');
  });
});

describe('budgets', () => {
  it('shows the budget the harness keeps, and the environment\'s beside it when they differ', async () => {
    const app = await openPlayer();
    await app.press(KEY.right);
    // max_turns 12 and turn 1: twelve calls left when the model chose; the environment counted 24.
    expect(app.frame()).toContain('told 12 tool calls left · environment 24 steps left');
  });

  it('reads the budget the recorded request stated, not the environment\'s sentence in it', async () => {
    const messages = [
      { role: 'user', content: [{ type: 'text', text: 'You have 12 tool calls.' }, { type: 'image', sha256: 'ab'.repeat(32), mime: 'image/jpeg' }] },
      { role: 'assistant', content: 'I have 99 turns left, surely.', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'look', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c1', name: 'look', content: 'Facing 90 deg. 23 actions left. 11 tool calls left.' },
    ];
    const app = await openEpisode(withTurn(2, { messages }));
    await app.press(KEY.right, KEY.right);
    expect(app.frame()).toContain('told 11 tool calls left · environment 23 steps left');
  });

  it('reads the harness\'s prompt text, and leaves the environment\'s out when it agrees', async () => {
    const episode = withTurn(1, { prompt: 'You are dropped somewhere.\nYou have 24 turns left. Each turn, reply with one JSON object.' });
    episode.episode.config = { mode: 'agentic', prompt_version: 'v2' };
    const app = await openEpisode(episode);
    await app.press(KEY.right);
    expect(app.frame()).toContain('told 24 turns left');
    expect(app.frame()).not.toContain('environment 24 steps left');
  });
});

describe('the request view (p)', () => {
  const image = 'ab'.repeat(32);
  const feedbackLines = Array.from({ length: 30 }, (_, i) => `Line ${i + 1} of what the look showed.`).join('\n');
  const messages = [
    { role: 'system', content: 'You are standing somewhere on Earth.' },
    { role: 'user', content: [{ type: 'text', text: 'The image is your view. You have 12 tool calls.' }, { type: 'image', sha256: image, mime: 'image/jpeg' }] },
    { role: 'assistant', content: 'A German sign: east next.', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'look', arguments: '{"heading_deg": 90}' } }] },
    { role: 'tool', tool_call_id: 'c1', name: 'look', content: `${feedbackLines}\n11 tool calls left.` },
  ];

  it('shows every message of the turn, roles marked, the model\'s replies apart, images by hash', async () => {
    const app = await openEpisode(withTurn(2, { messages }), { columns: 120, rows: 60 });
    await app.press(KEY.right, KEY.right, 'p');
    const frame = app.frame();
    expect(frame).toContain('request of turn 2');
    expect(frame).toContain('── 1 system · harness instructions');
    expect(frame).toContain('You are standing somewhere on Earth.');
    expect(frame).toContain('── 2 user · harness');
    expect(frame).toContain(`[image sha256 ${image.slice(0, 12)}… image/jpeg]`);
    expect(frame).toContain("── 3 assistant · the model's own earlier reply");
    expect(frame).toContain('▌ A German sign: east next.');
    expect(frame).toContain('▌ tool call: look(heading_deg=90)');
    expect(frame).toContain('── 4 tool result (look) · environment feedback, worded by the harness');
    expect(frame).not.toContain('"function"');
  });

  it('scrolls, and q or esc closes it back to the same turn', async () => {
    const app = await openEpisode(withTurn(2, { messages }), { columns: 80, rows: 24 });
    await app.press(KEY.right, KEY.right, 'p');
    expect(app.frame()).toMatch(/lines 1–\d+ of \d+/);
    expect(app.frame()).not.toContain('11 tool calls left.');
    await app.press(KEY.down, 'j');
    expect(app.frame()).toMatch(/lines 3–/);
    expect(app.frame()).not.toContain('── 1 system');
    await app.press('G');
    expect(app.frame()).toContain('11 tool calls left.');
    await app.press('g');
    expect(app.frame()).toMatch(/lines 1–/);
    await app.press('q');
    expect(app.frame()).not.toContain('request of turn');
    expect(app.frame()).toContain('turn 2/3');
    await app.press('p', KEY.escape);
    expect(app.frame()).not.toContain('request of turn');
    expect(app.exited()).toBe(false);
  });

  it('shows the harness\'s recorded prompt, and says when a turn sent nothing', async () => {
    const app = await openEpisode(withTurn(1, { prompt: 'You have 5 turns left. Each turn, reply with one JSON object.' }));
    await app.press('p');
    expect(app.frame()).toContain('Turn 0 is the reset: the model was sent nothing.');
    await app.press('q', KEY.right, 'p');
    expect(app.frame()).toContain('── 1 user · harness');
    expect(app.frame()).toContain('You have 5 turns left. Each turn, reply with one JSON object.');
  });

  it('? shows the request view\'s keys from the table', async () => {
    const app = await openPlayer();
    await app.press('p', '?');
    expect(app.frame()).toContain('Request keys');
    expect(app.frame()).toContain('close the request');
    for (const entry of helpEntries(['request'])) expect(app.frame()).toContain(entry.description);
  });
});

describe('keys arriving together', () => {
  it('are played one by one, each on the screen the previous one left', async () => {
    const workspace = memoryWorkspace([fixture.episode], fixture.images);
    const app = await renderApp({ route: { screen: 'player', episodeId: fixture.episode.episode_id }, services: { openWorkspace: async () => workspace } });
    await app.waitFor((f) => f.includes('turn 0/3'));
    await app.press('?');
    app.stdin.write('?ll');
    await app.waitFor((f) => f.includes('turn 2/3'));
  });
});
