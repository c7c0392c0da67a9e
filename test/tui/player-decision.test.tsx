/**
 * The Player's retry and fork panel drawn by Ink (the real screen, the real hook and reducer) over a
 * DecisionService of the test's: samples come back one at a time, as the retry service's onSample
 * hands them over, and the panel shows each beside the recorded reply, then the summary and the map.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import { helpEntries } from '../../src/tui/keys.js';
import type { DecisionService } from '../../src/tui/services.js';
import type { DecisionRequest, SampleView } from '../../src/tui/state/decision.js';
import { makeEpisode, memoryWorkspace, type EpisodeFixture } from './fixtures.js';
import { KEY, renderApp, tick } from './render.js';

let fixture: EpisodeFixture;
beforeAll(async () => {
  fixture = await makeEpisode();
});
afterEach(() => cleanup());

const RECORDED: SampleView = { action: 'look', arguments: 'heading_deg=90, fov_deg=90', reasoning: 'German-language sign.', tokens: 40, latencyS: 1.4, guess: null, distanceKm: null };

function sample(n: number): SampleView {
  return n % 2
    ? { action: 'guess', arguments: `lat=47.${n}, lon=10.${n}`, reasoning: `Sample ${n} thinks it is Tyrol. More reasoning follows here.`, tokens: 10 + n, latencyS: 0.5, guess: [47 + n / 10, 10 + n / 10], distanceKm: 20 + n }
    : { ...RECORDED, reasoning: `Sample ${n} looks again.`, tokens: 10 + n };
}

interface Calls {
  retries: { turn: number; request: DecisionRequest; signal: AbortSignal }[];
  /** Each retry's samples wait for the test to release them. */
  release: (() => void)[];
  forks: { turn: number; who: DecisionRequest | 'person' }[];
}

function service(calls: Calls, options: { recordedSha?: string | null; prepareError?: string } = {}): DecisionService {
  return {
    isSet: (name) => name === 'SET_KEY',
    async prepare(kind, _id, turn) {
      if (options.prepareError) throw new Error(options.prepareError);
      return {
        values: { model: 'qwen-test', baseUrl: 'http://127.0.0.1:8000/v1', apiKeyEnv: '', temperature: '0.7' },
        truth: { lat: 47.2, lon: 10.55 },
        guess: { lat: 47.1, lon: 10.4 },
        ...(kind === 'retry'
          ? { check: { sha256: 'ab'.repeat(32), recordedSha256: options.recordedSha === undefined ? 'ab'.repeat(32) : options.recordedSha, differences: ['temperature: recorded 0.7, this retry 1'] }, recorded: { ...RECORDED, reasoning: `recorded turn ${turn}` } }
          : {}),
      };
    },
    async retry(_id, turn, request, onSample, signal) {
      calls.retries.push({ turn, request, signal });
      const samples: SampleView[] = [];
      for (let i = 0; i < request.samples; i++) {
        await new Promise<void>((resolve) => calls.release.push(resolve));
        if (signal.aborted) throw new Error('aborted');
        samples.push(sample(i + 1));
        onSample(i, sample(i + 1));
      }
      const guesses = samples.filter((s) => s.guess).length;
      return { samples, summary: { samples: samples.length, sameAction: samples.length - guesses, recordedAction: 'look', guesses, spreadKm: 12, meanDistanceKm: 22 } };
    },
    async fork(_id, turn, who) {
      calls.forks.push({ turn, who });
      return { ok: false, field: null, message: 'cannot reach http://127.0.0.1:8000/v1: connection refused' };
    },
  };
}

async function openPlayer(decision: DecisionService, size = { columns: 140, rows: 50 }) {
  const workspace = memoryWorkspace([fixture.episode], fixture.images);
  const app = await renderApp({ route: { screen: 'player', episodeId: fixture.episode.episode_id }, services: { openWorkspace: async () => workspace, decision }, ...size });
  await app.waitFor((f) => f.includes('turn 0/3'));
  return app;
}

async function releaseAll(calls: Calls, app: { waitFor: (ok: (f: string) => boolean) => Promise<string> }, count: number) {
  for (let i = 0; i < count; i++) {
    await app.waitFor(() => calls.release.length > 0);
    calls.release.shift()!();
    await tick(5);
  }
}

describe('the retry panel', () => {
  it('on the reset says which turns can be retried, and opens nothing', async () => {
    const calls: Calls = { retries: [], release: [], forks: [] };
    const app = await openPlayer(service(calls));
    await app.press('R');
    expect(app.frame()).toContain("Turn 0 is the reset: a model's turn can be retried or forked (turns 1–3).");
    expect(app.frame()).not.toContain('RETRY');
  });

  it('opens prefilled on Send, streams the samples beside the recorded reply, then the summary and the map', async () => {
    const calls: Calls = { retries: [], release: [], forks: [] };
    const app = await openPlayer(service(calls));
    await app.press(KEY.right, 'R');
    const form = await app.waitFor((f) => f.includes('[ Send ]'));
    expect(form).toContain('RETRY turn 1');
    expect(form).toMatch(/model +qwen-test/);
    expect(form).toMatch(/base URL +http:\/\/127\.0\.0\.1:8000\/v1/);
    expect(form).toMatch(/temperature +0\.7/);
    expect(form).toMatch(/samples +5/);
    expect(form).toContain('› [ Send ]');
    expect(form).toContain('matches the recorded one');
    // Enter sends: five requested, none back yet.
    await app.press(KEY.enter);
    await app.waitFor(() => calls.retries.length === 1);
    expect(calls.retries[0]).toMatchObject({ turn: 1, request: { model: 'qwen-test', temperature: 0.7, samples: 5 } });
    expect(await app.waitFor((f) => f.includes('0 of 5 samples back'))).toContain('recorded turn 1');
    await releaseAll(calls, app, 2);
    const two = await app.waitFor((f) => f.includes('2 of 5 samples back'));
    expect(two).toContain('#1');
    expect(two).toContain('guess(lat=47.1,');
    expect(two).toContain('Sample 1 thinks it');
    expect(two).toContain('Sample 2 looks');
    expect(two).toContain('11 tok');
    expect(two).not.toContain('Sample 3');
    await releaseAll(calls, app, 3);
    const done = await app.waitFor((f) => f.includes('[ Send again ]'));
    expect(done).toContain('2 of 5 chose look, the recorded action · 3 guesses, spread 12 km, mean 22 km to the truth');
    // The three guesses as pins on the reveal map, beside the episode's guess and truth.
    expect(done).toContain("1…3 samples' guesses");
    expect(done).toMatch(/[⠀-⣿]/);
    await app.press(KEY.escape);
    const back = await app.waitFor((f) => !f.includes('RETRY'));
    expect(back).toContain('turn 1/3');
  });

  it('a send that fails after two samples keeps them in view beside its one-line error', async () => {
    const calls: Calls = { retries: [], release: [], forks: [] };
    const base = service(calls);
    const failing: DecisionService = {
      ...base,
      async retry(_id, _turn, _request, onSample) {
        onSample(0, sample(1));
        onSample(1, sample(2));
        await Promise.resolve();
        throw new Error('cannot reach the model endpoint at http://127.0.0.1:8000/v1: connection refused (ECONNREFUSED)');
      },
    };
    const app = await openPlayer(failing);
    await app.press(KEY.right, 'R');
    await app.waitFor((f) => f.includes('[ Send ]'));
    await app.press(KEY.enter);
    const failed = await app.waitFor((f) => f.includes('connection refused (ECONNREFUSED)'));
    expect(failed).toContain('Sample 1 thinks it');
    expect(failed).toContain('Sample 2 looks');
    expect(failed).toContain('[ Send ]');
  });

  it('on a narrow terminal the samples go one a row', async () => {
    const calls: Calls = { retries: [], release: [], forks: [] };
    const app = await openPlayer(service(calls), { columns: 80, rows: 30 });
    await app.press(KEY.right, 'R');
    await app.waitFor((f) => f.includes('[ Send ]'));
    await app.press(KEY.enter);
    await releaseAll(calls, app, 5);
    const done = await app.waitFor((f) => f.includes('[ Send again ]'));
    expect(done).toMatch(/recorded +look\(heading_deg=90, fov_deg=90\) · 40 tok · 1\.4 s/);
    expect(done).toMatch(/#1 +guess\(lat=47\.1, lon=10\.1\) · 11 tok · 0\.5 s · 21 km to the truth/);
    expect(done).toMatch(/#5 +guess/);
    expect(done).not.toContain('╭──────────────────╮╭');
  });

  it('Esc while samples are on their way aborts them and goes back to the turn', async () => {
    const calls: Calls = { retries: [], release: [], forks: [] };
    const app = await openPlayer(service(calls));
    await app.press(KEY.right, KEY.right, 'R');
    await app.waitFor((f) => f.includes('[ Send ]'));
    await app.press(KEY.enter);
    await app.waitFor(() => calls.retries.length === 1);
    await app.press(KEY.escape);
    expect(calls.retries[0]!.signal.aborted).toBe(true);
    expect(await app.waitFor((f) => f.includes('turn 2/3'))).not.toContain('RETRY');
  });

  it('edits the form: a wrong samples count is one line at its field, and nothing is sent', async () => {
    const calls: Calls = { retries: [], release: [], forks: [] };
    const app = await openPlayer(service(calls, { recordedSha: 'cd'.repeat(32) }));
    await app.press(KEY.right, 'R');
    const form = await app.waitFor((f) => f.includes('[ Send ]'));
    expect(form).toContain('request differs from the recorded one (abababababab… vs cdcdcdcdcdcd…): temperature: recorded 0.7, this retry 1');
    await app.press(KEY.up, KEY.backspace, '0', KEY.enter);
    // Enter on a field moves on to Send; Enter there checks the form.
    await app.press(KEY.enter);
    expect(await app.waitFor((f) => f.includes('samples must be a whole number from 1 to 20, got "0"'))).toMatch(/› samples +0/);
    expect(calls.retries).toHaveLength(0);
  });

  it('a turn that cannot be rebuilt says why in one line', async () => {
    const calls: Calls = { retries: [], release: [], forks: [] };
    const app = await openPlayer(service(calls, { prepareError: 'image 0a1b2c is not in the workspace: import the run folder again' }));
    await app.press(KEY.right, 'R');
    const frame = await app.waitFor((f) => f.includes('image 0a1b2c is not in the workspace'));
    expect(frame).not.toContain('[ Send ]');
    await app.press(KEY.escape);
    await app.waitFor((f) => !f.includes('RETRY'));
  });

  it('the help lists the panel keys; the Player help lists R and F', async () => {
    const calls: Calls = { retries: [], release: [], forks: [] };
    const app = await openPlayer(service(calls));
    await app.press('?');
    expect(app.frame()).toMatch(/R +retry the turn/);
    expect(app.frame()).toMatch(/F +fork: a new episode in Live/);
    await app.press('?', KEY.right, 'R');
    await app.waitFor((f) => f.includes('[ Send ]'));
    await app.press('?');
    for (const entry of helpEntries(['decision'])) expect(app.frame()).toContain(entry.description);
  });
});

describe('the fork form', () => {
  it('opens on "Play on with the model", offers p for yourself, and shows a failed start as one line', async () => {
    const calls: Calls = { retries: [], release: [], forks: [] };
    const app = await openPlayer(service(calls));
    await app.press(KEY.right, KEY.right, 'F');
    const form = await app.waitFor((f) => f.includes('[ Play on with the model ]'));
    expect(form).toContain('FORK at turn 2');
    expect(form).toContain('p: play on yourself');
    expect(form).not.toMatch(/samples +5/);
    await app.press(KEY.enter);
    expect(await app.waitFor((f) => f.includes('connection refused'))).toContain('cannot reach http://127.0.0.1:8000/v1');
    expect(calls.forks).toEqual([{ turn: 2, who: { model: 'qwen-test', baseUrl: 'http://127.0.0.1:8000/v1', apiKeyEnv: '', temperature: 0.7, samples: 1 } }]);
    await app.press('p');
    await app.waitFor(() => calls.forks.length === 2);
    expect(calls.forks[1]).toEqual({ turn: 2, who: 'person' });
  });
});
