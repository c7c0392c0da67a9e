import { describe, expect, it } from 'vitest';
import { isCompleted, isFailed, parseEpisodeRecord, tokenCounts, withoutEmptyKeys, type EpisodeRecord } from '../../src/core/episode.js';

function completedRecord(): Record<string, unknown> {
  return {
    schema_version: 2,
    episode_id: 'ep-eval-7-s0',
    recorded_at: '2025-03-01T12:00:00+00:00',
    model_name: 'qwen2.5-vl-7b',
    model: { provider: 'openai', model: 'qwen2.5-vl-7b', base_url: 'http://127.0.0.1:8000/v1', temperature: 0.7, max_tokens: 1024 },
    task: {
      split: 'eval',
      index: 7,
      sample: 0,
      task_id: 'demo-007',
      country: 'Austria',
      sequence_id: 'seqA',
      captured_at: '2024-03',
      attribution: { creator_username: 'someone', licence: 'CC-BY-SA' },
    },
    config: { mode: 'json', prompt_version: 'v2', max_turns: 12, retries: 2, base_url: 'http://127.0.0.1:8000/v1' },
    turns: [
      {
        turn: 0,
        status: 'ok',
        camera_before: null,
        camera_after: { heading_deg: 0, pitch_deg: 0, fov_deg: 90, frame_index: 12 },
        action: { action: 'reset' },
        pins: [],
        image_kind: 'view',
        image_sha256: 'ab'.repeat(32),
        feedback: 'You have 24 actions.',
        action_cost: 0,
        steps_remaining: 24,
        moved_meters: 0,
        total_moved_meters: 0,
        available_tools: ['look', 'zoom', 'move', 'pin', 'guess'],
        reward: null,
        done: false,
        model: null,
        prompt: 'You are dropped somewhere on Earth.',
        image_path: 'images/ep-eval-7-s0/0.jpg',
      },
      {
        turn: 1,
        status: 'ok',
        camera_before: { heading_deg: 0, pitch_deg: 0, fov_deg: 90, frame_index: 12 },
        camera_after: { heading_deg: 0, pitch_deg: 0, fov_deg: 90, frame_index: 12 },
        action: { action: 'pin', lat: 47.2, lon: 10.3 },
        pins: [[47.2, 10.3]],
        image_kind: 'map',
        feedback: 'Pin 1 placed at 47.2, 10.3 - Austria (Western Europe). 23 actions left.',
        action_cost: 0.02,
        steps_remaining: 23,
        reward: null,
        done: false,
        model: {
          reply: 'Alpine village. {"action": "pin", "lat": 47.2, "lon": 10.3}',
          reasoning: null,
          finish_reason: 'stop',
          tokens: { prompt: 1200, completion: 40 },
          latency_s: 1.4,
          attempts: 1,
          errors: [],
        },
      },
      {
        turn: 2,
        status: 'ok',
        action: { action: 'guess', lat: 47.16, lon: 10.24 },
        feedback: 'Pinpoint! 1.3 km away.',
        reward: 0.979,
        done: true,
      },
    ],
    outcome: {
      reward: 0.979,
      train_reward: 0.98,
      distance_km: 1.3,
      parsed_ok: true,
      guess: [47.16, 10.24],
      guess_country: 'Austria',
      verdict: 'Pinpoint',
      country_hit: true,
      region_hit: true,
      score_before_cost: 0.999,
      n_looks: 0,
      n_maps: 0,
      n_pins: 1,
      n_moves: 0,
      truth: [47.150173705002, 10.235863986326],
      action_cost: 0.02,
      total_moved_meters: 0,
      forced_guess: false,
      turns_used: 2,
      turns_ok: 2,
      turns_unparseable: 0,
      turns_provider_error: 0,
      wall_clock_s: 5.2,
      model_latency_s: 2.9,
      tokens_in: 2400,
      tokens_out: 80,
    },
  };
}

const failedRecord = () => ({
  schema_version: 2,
  episode_id: 'ep-eval-9-s1',
  model_name: 'qwen2.5-vl-7b',
  task: { split: 'eval', index: 9, sample: 1 },
  config: { prompt_version: 'v2' },
  error: 'ConnectionError: model endpoint refused the connection',
  traceback: 'Traceback (most recent call last):\n  ...',
});

describe('parseEpisodeRecord', () => {
  it('accepts a completed record and types it', () => {
    const parsed = parseEpisodeRecord(completedRecord());
    expect(parsed.ok).toBe(true);
    if (!parsed.ok || parsed.kind !== 'completed') throw new Error('expected a completed episode');
    expect(parsed.record.task.split).toBe('eval');
    expect(parsed.record.outcome.distance_km).toBe(1.3);
    expect(parsed.record.turns?.[1]?.pins).toEqual([[47.2, 10.3]]);
    expect(parsed.record.turns?.[0]?.action?.action).toBe('reset');
  });

  it('accepts a minimal completed record: most fields are optional', () => {
    const parsed = parseEpisodeRecord({ schema_version: 2, episode_id: 'e', task: { split: 'train', index: 0 }, turns: [], outcome: {} });
    expect(parsed).toMatchObject({ ok: true, kind: 'completed' });
  });

  it('refuses a completed record without turns, and keeps a failed one without them valid', () => {
    const parsed = parseEpisodeRecord({ schema_version: 2, episode_id: 'e', task: { split: 'train', index: 0 }, outcome: {} });
    expect(parsed).toMatchObject({ ok: false, issues: [{ path: 'turns' }] });
    const failed = { schema_version: 2, episode_id: 'f', task: { split: 'train', index: 0 }, config: { prompt_version: 'v2' }, error: 'boom', traceback: 'Traceback ...' };
    expect(parseEpisodeRecord(failed)).toMatchObject({ ok: true, kind: 'failed' });
  });

  it("reads token counts in the harness's names and in geolab's earlier {in, out}", () => {
    expect(tokenCounts({ input: 5, output: 7, total: 12, reasoning: 3 })).toEqual({ input: 5, output: 7 });
    expect(tokenCounts({ in: 4, out: 2 })).toEqual({ input: 4, output: 2 });
    expect(tokenCounts(null)).toEqual({ input: null, output: null });
    const turn = { turn: 1, model: { reply: 'x', tokens: { in: 4, out: 2 } } };
    expect(parseEpisodeRecord({ ...completedRecord(), turns: [turn] })).toMatchObject({ ok: true });
  });

  it('leaves out keys without a value, at any depth, and keeps array elements', () => {
    expect(withoutEmptyKeys({ a: null, b: undefined, c: { d: null, e: 0 }, f: [null, { g: null }] })).toEqual({ c: { e: 0 }, f: [null, {}] });
  });

  it('accepts nulls where harness output leaves a value out', () => {
    const record = completedRecord();
    record.outcome = { reward: 0, distance_km: null, parsed_ok: false, guess: null, verdict: null, country_hit: null };
    expect(parseEpisodeRecord(record)).toMatchObject({ ok: true, kind: 'completed' });
  });

  it('recognises a failed episode', () => {
    const parsed = parseEpisodeRecord(failedRecord());
    expect(parsed).toMatchObject({ ok: true, kind: 'failed' });
    if (!parsed.ok || parsed.kind !== 'failed') throw new Error('expected a failed episode');
    expect(parsed.record.error).toMatch(/ConnectionError/);
    expect(parsed.record.task).toEqual({ split: 'eval', index: 9, sample: 1 });
  });

  it('keeps keys it does not know, at every level', () => {
    const record = completedRecord();
    record.messages = [{ role: 'user', content: 'hi' }];
    (record.task as Record<string, unknown>).difficulty = 'hard';
    (record.outcome as Record<string, unknown>).extra_metric = 42;
    ((record.turns as Record<string, unknown>[])[1]!.model as Record<string, unknown>).logprobs = [-0.1];
    const parsed = parseEpisodeRecord(record);
    if (!parsed.ok) throw new Error(parsed.error);
    expect(parsed.record.messages).toEqual([{ role: 'user', content: 'hi' }]);
    expect(parsed.record.task.difficulty).toBe('hard');
    if (parsed.kind !== 'completed') throw new Error('expected a completed episode');
    expect(parsed.record.outcome.extra_metric).toBe(42);
    expect(parsed.record.turns?.[1]?.model?.logprobs).toEqual([-0.1]);

    const failed = parseEpisodeRecord({ ...failedRecord(), host: 'gpu-3' });
    expect(failed.ok && failed.record.host).toBe('gpu-3');
  });

  it('rejects another schema_version, naming the field', () => {
    const parsed = parseEpisodeRecord({ ...completedRecord(), schema_version: 1 });
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.issues[0]?.path).toBe('schema_version');
    expect(parsed.error).toMatch(/^schema_version: expected 2, got 1/);
    expect(parseEpisodeRecord({ ...failedRecord(), schema_version: '2' })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^schema_version: expected 2, got "2"/),
    });
  });

  it('requires episode_id, task.split and task.index', () => {
    const noId = completedRecord();
    delete noId.episode_id;
    expect(parseEpisodeRecord(noId)).toMatchObject({ ok: false, error: expect.stringMatching(/^episode_id: /) });

    const noSplit = failedRecord() as Record<string, unknown>;
    noSplit.task = { index: 3 };
    expect(parseEpisodeRecord(noSplit)).toMatchObject({ ok: false, error: expect.stringMatching(/^task\.split: /) });

    const badIndex = completedRecord();
    badIndex.task = { split: 'eval', index: -1 };
    expect(parseEpisodeRecord(badIndex)).toMatchObject({ ok: false, error: expect.stringMatching(/^task\.index: /) });
  });

  it('names nested paths with array indices', () => {
    const record = completedRecord();
    ((record.turns as Record<string, unknown>[])[1]!.pins as unknown) = [[47.2, 10.3], [95, 10]];
    ((record.turns as Record<string, unknown>[])[0]!.image_kind as unknown) = 'panorama';
    const parsed = parseEpisodeRecord(record);
    if (parsed.ok) throw new Error('expected a failure');
    expect(parsed.issues.map((i) => i.path)).toEqual(['turns[0].image_kind', 'turns[1].pins[1][0]']);
  });

  it('treats a record with neither outcome nor error as a broken completed one', () => {
    const parsed = parseEpisodeRecord({ schema_version: 2, episode_id: 'e', task: { split: 'eval', index: 0 }, turns: [] });
    expect(parsed).toMatchObject({ ok: false, error: expect.stringMatching(/^outcome: /) });
  });

  it('rejects values that are not records', () => {
    for (const value of [null, 'text', [1, 2], 42]) {
      const parsed = parseEpisodeRecord(value);
      expect(parsed.ok).toBe(false);
      expect(parsed.ok || parsed.issues[0]?.path).toBe('');
    }
  });
});

describe('isCompleted and isFailed', () => {
  const failed = { schema_version: 2 as const, episode_id: 'ep-eval-7-failed', task: { split: 'eval', index: 7 }, error: 'boom' };
  const shapes: [string, EpisodeRecord, boolean][] = [
    ['a completed record', completedRecord() as EpisodeRecord, true],
    ['a failed record without an outcome key', failed, false],
    ['a failed record whose outcome was left null', { ...failed, outcome: null }, false],
    ['a failed record whose outcome is undefined', { ...failed, outcome: undefined }, false],
    ['an aborted run, with the turns it played', { ...failed, error: 'aborted by the user', failure: 'aborted', turns: [{ turn: 0 }] }, false],
  ];

  it.each(shapes)('%s is told apart the same way by both', (_, record, completed) => {
    expect(isCompleted(record)).toBe(completed);
    expect(isFailed(record)).toBe(!completed);
  });
});

