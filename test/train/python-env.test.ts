import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haversineKm } from '../../src/core/geodesy.js';
import { referenceReward } from '../../src/core/scoring.js';
import type { Task } from '../../src/core/tasks.js';
import { readTraceFile } from '../../src/audit/sources/traces.js';
import { TRAINER_DIR, TRAINER_ENV_MODULE } from '../../src/train/python-path.js';
import { geolab, jsonLines } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { startLive, type Live } from '../env/helpers/live.js';
import { FIXTURES, runPython } from './python-helpers.js';

interface Call {
  texts: string[];
  images: string[];
}
interface Driven {
  tools: Record<string, { params: string[]; typed: string[]; documented: string[]; summary: string }>;
  errors: string[];
  episodes: { index: number; calls: Call[]; distance_km: number; cost: number; reward: number; reward_again: number }[];
  capacity: { retries_while_full: number; opened: boolean; reward: number };
  lost: { texts: string[]; reward: number; ended_by: string };
  no_guess: { calls: Call[]; reward: number; turns: number };
  check_value: number;
  no_guess_value: number;
}

const SESSION_CAP = 8;
const PIN = [0, -30]; // open water: its feedback names no country
let live: Live;
let driven: Driven;
let stderr: string;
let traceFile: string;

beforeAll(async () => {
  live = await startLive({ maxSessions: SESSION_CAP });
  const dir = tempDir('geolab-trainer-env-');
  traceFile = join(dir, 'traces', 'rollouts.jsonl');
  // Guesses walk away from the truth, so the rewards span the curve (the first is exact).
  const episodes = Array.from({ length: 8 }, (_, index) => {
    const truth = live.truth('train', index);
    return { split: 'train', index, guess: [Math.max(-90, Math.min(90, truth.lat - index * 7)), truth.lon] };
  });
  const plan = {
    url: live.server.url,
    trace_path: traceFile,
    pin: PIN,
    episodes,
    capacity: { split: 'train', index: 8, fillers: SESSION_CAP },
    no_guess: { split: 'train', index: 9, max_turns: 3 },
  };
  const planFile = join(dir, 'plan.json');
  writeFileSync(planFile, JSON.stringify(plan));
  const result = await runPython([join(FIXTURES, 'drive_env.py'), TRAINER_DIR, planFile], { timeoutMs: 240_000 });
  expect(result.code, result.stderr).toBe(0);
  driven = JSON.parse(result.stdout) as Driven;
  stderr = result.stderr;
}, 300_000);
afterAll(() => live?.close());

describe('the trainer environment class (geolab_env.py) in a real python3 against the real server', () => {
  it('ships beside the trainer, where the TS side finds it', () => {
    expect(readFileSync(TRAINER_ENV_MODULE, 'utf8')).toContain('class GeolabEnv');
  });

  it('offers the five trained tools, each parameter typed and described under Args: as TRL requires', () => {
    expect(Object.keys(driven.tools).sort()).toEqual(['guess', 'look', 'move', 'pin', 'zoom']);
    expect(driven.tools.look!.params).toEqual(['heading_deg', 'fov_deg', 'pitch_deg']);
    expect(driven.tools.pin!.params).toEqual(['lat', 'lon']);
    for (const tool of Object.values(driven.tools)) {
      expect(tool.typed).toEqual(tool.params);
      expect(tool.documented).toEqual(tool.params);
      expect(tool.summary.length).toBeGreaterThan(20);
    }
  });

  it('plays 8 full episodes with 8 sessions open at once, each rewarded on the TS reference curve', () => {
    expect(driven.errors).toEqual([]);
    expect(driven.episodes).toHaveLength(8);
    for (const episode of driven.episodes) {
      const truth = live.truth('train', episode.index);
      const guess = [Math.max(-90, Math.min(90, truth.lat - episode.index * 7)), truth.lon] as const;
      // The distance is the server's, the reward the trainer's: both agree with the TS modules.
      expect(episode.distance_km).toBeCloseTo(haversineKm(guess[0], guess[1], truth.lat, truth.lon), 6);
      expect(episode.cost).toBeCloseTo(0.01 + 0.01 + 0.02 + 0.05, 12);
      expect(episode.reward).toBeCloseTo(referenceReward(episode.distance_km, episode.cost), 12);
      expect(episode.reward_again).toBe(episode.reward);
    }
    expect(driven.episodes[0]!.reward).toBeCloseTo(1 - 0.09, 12);
    expect(new Set(driven.episodes.map((e) => e.reward.toFixed(6))).size).toBe(8);
    // docs/scoring.md's check value, and no guess scoring 0.
    expect(driven.check_value).toBeCloseTo(0.5552, 4);
    expect(driven.check_value).toBeCloseTo(referenceReward(1348.52, 0.05), 12);
    expect(driven.no_guess_value).toBe(0);
  });

  it("counts the trainer's own budget down from max_turns, never the environment's", () => {
    for (const episode of driven.episodes) {
      const texts = episode.calls.map((c) => c.texts.join('\n'));
      expect(texts[0]).toContain('You have 12 tool calls.');
      expect(texts.slice(1, 5).map((t) => /(\d+) tool calls left\.$/.exec(t)?.[1])).toEqual(['11', '10', '9', '8']);
      expect(texts[5]).toBe('Guess submitted. The episode is over.');
      expect(texts[6]).toBe('The episode is over.');
      for (const text of texts) expect(text).not.toMatch(/actions? left|You have 24/);
    }
    const small = driven.no_guess.calls.map((c) => c.texts.join('\n'));
    expect(small[0]).toContain('You have 3 tool calls.');
    expect(small[1]).toMatch(/2 tool calls left\.$/);
    expect(small[2]).toContain('1 tool call left: THIS IS YOUR FINAL ACTION');
    expect(small[3]).toContain('No tool calls left.');
    // Past the budget nothing more is played, and a rollout without a guess scores 0.
    expect(small[4]).toBe('The episode is over.');
    expect(driven.no_guess).toMatchObject({ turns: 3, reward: 0 });
  });

  it('hands the model images and text only: no task id, country, sequence, contributor, image id or truth', () => {
    for (const episode of driven.episodes) {
      const task = live.splits.get('train')![episode.index] as Task;
      const truth = live.truth('train', episode.index);
      const text = episode.calls.flatMap((c) => c.texts).join('\n');
      const forbidden = [
        task.task_id,
        task.country,
        task.sequence_id,
        task.attribution?.creator_username,
        ...task.frames.map((f) => f.image_id),
        truth.lat.toFixed(3),
        truth.lon.toFixed(3),
        'metadata',
        'episode_id',
      ].filter((s): s is string => typeof s === 'string' && s !== '');
      for (const value of forbidden) expect(text).not.toContain(value);
      // Views are JPEG, the pin's map PNG; the guess's reveal map never reaches the model.
      expect(episode.calls.map((c) => c.images)).toEqual([['data:image/jpeg'], ['data:image/jpeg'], ['data:image/jpeg'], ['data:image/png'], ['data:image/jpeg'], [], []]);
    }
    // Without Pillow the views go as served, and the trainer says so once.
    expect(stderr.match(/Pillow is not installed/g)).toHaveLength(1);
  });

  it('waits out CAPACITY_REACHED with back-off and opens the session once a slot frees', () => {
    expect(driven.capacity.retries_while_full).toBeGreaterThanOrEqual(2);
    expect(driven.capacity).toMatchObject({ opened: true, reward: 0 });
    // Every session was closed at the end of its rollout.
    expect(live.server.sessions()).toBe(0);
  });

  it('ends a rollout unscored, and says so, when the server has lost its session', () => {
    expect(driven.lost.texts[0]).toBe('The environment could not take that action. The episode is over, and without a guess it scores 0.');
    expect(driven.lost.texts[1]).toBe('The episode is over.');
    expect(driven.lost.reward).toBe(0);
    expect(driven.lost.ended_by).toMatch(/^EXECUTION_ERROR: no such session/);
  });

  it('writes one trace line per rollout in the layout the audit reads, and the audit finds them clean', async () => {
    const lines = jsonLines(readFileSync(traceFile, 'utf8')) as { task: { index: number }; outcome: Record<string, unknown>; turns: { turn: number; action: { op: string } }[] }[];
    expect(lines).toHaveLength(11);
    const first = lines.find((l) => l.task.index === 0)!;
    expect(first).toMatchObject({ run: 'drive', step: 0, model: 'scripted', task: { split: 'train', index: 0 }, outcome: { max_turns: 12, guessed: true, turns_used: 5 } });
    expect(first.turns.map((t) => [t.turn, t.action.op])).toEqual([[0, 'reset'], [1, 'look'], [2, 'zoom'], [3, 'pin'], [4, 'move'], [5, 'guess']]);
    let prompts = 0;
    for await (const prompt of readTraceFile(traceFile, 'traces')) {
      expect(prompt.task).toMatchObject({ split: 'train' });
      prompts += 1;
    }
    expect(prompts).toBe(8 * 6 + 1 + 2 + 4);
    // The real audit, budget checks included, over the demo splits the server played.
    const audit = geolab(['audit', '--traces', traceFile, '--fail-on', 'low'], { home: tempDir('geolab-trainer-ws-') });
    expect(audit.stdout + audit.stderr).toContain('clean: no findings in 55 prompt(s)');
    expect(audit.code).toBe(0);
  });
});

describe('views for the model with Pillow present (a stand-in that reads image headers)', () => {
  it('downscales views and maps to the configured view_px, keeping their shape', async () => {
    const script = join(FIXTURES, 'drive_pillow.py');
    const r = await runPython([script, TRAINER_DIR, live.server.url, 'train', '3', '448'], { env: { PYTHONPATH: join(FIXTURES, 'stand-in-pil') } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('Pillow is not installed');
    const images = JSON.parse(r.stdout) as { kind: string; served: [number, number]; size: [number, number]; mode: string; resample: string }[];
    expect(images.map((i) => i.kind)).toEqual(['jpeg', 'png', 'jpeg']);
    for (const image of images) {
      expect(Math.max(...image.served)).toBeGreaterThan(448);
      expect(Math.max(...image.size)).toBe(448);
      expect(image.size[0] / image.size[1]).toBeCloseTo(image.served[0] / image.served[1], 2);
      expect(image).toMatchObject({ mode: 'RGB', resample: 'lanczos' });
    }
  }, 120_000);
});
