/** The pure core of `episodes compare`: alignment, what each side looked at, outcomes on the reference curve. */
import { describe, expect, it } from 'vitest';
import type { CompletedEpisode, Turn } from '../../src/core/episode.js';
import { UsageError } from '../../src/core/errors.js';
import { comparisonLines, compareEpisodes, taskMismatch } from '../../src/eval/compare.js';
import { failedRecord } from '../helpers/episodes.js';

const TRUTH: [number, number] = [43.3209, 21.8958];

function camera(heading: number, fov = 90, frame = 2) {
  return { heading_deg: heading, pitch_deg: 0, fov_deg: fov, frame_index: frame };
}

function episode(id: string, model: string, turns: Turn[], outcome: { km: number | null; cost: number; guess?: [number, number]; reward: number }, task = { split: 'eval', index: 6, task_id: 'demo-00013' }): CompletedEpisode {
  return {
    schema_version: 2,
    episode_id: id,
    model_name: model,
    task: { ...task, sample: 0, country: 'Republic of Serbia' },
    config: { prompt_version: 'geolab-tools-1' },
    turns,
    outcome: {
      reward: outcome.reward,
      // Deliberately wrong: the comparison recomputes the reference reward.
      train_reward: 0.123,
      distance_km: outcome.km,
      guess: outcome.guess ?? null,
      truth: TRUTH,
      verdict: outcome.km === null ? null : outcome.km < 200 ? 'Close' : 'Right region',
      action_cost: outcome.cost,
      turns_used: turns.length - 1,
    },
  };
}

const start: Turn = { turn: 0, status: 'ok', action: { action: 'reset' }, camera_after: camera(0), image_kind: 'view', image_sha256: 'a'.repeat(64), feedback: 'You have 24 actions.', action_cost: 0, pins: [] };

const A = episode(
  'aaaaaaaa-1111',
  'alpha',
  [
    start,
    { turn: 1, status: 'ok', action: { action: 'look', heading_deg: 90, fov_deg: 60 }, wire_action: { op: 'look', heading_deg: 90, pitch_deg: 0, fov_deg: 60 }, camera_after: camera(90, 60), image_kind: 'view', image_sha256: 'b'.repeat(64), feedback: 'Facing 90° (E), pitch 0°, field of view 60°. 23 actions left.', action_cost: 0.01, pins: [] },
    { turn: 2, status: 'ok', action: { action: 'move', direction: 'forward', meters: 15 }, wire_action: { op: 'move', direction: 'forward', meters: 15 }, camera_after: camera(90, 60, 3), moved_meters: 14.6, image_kind: 'view', feedback: 'Moved 15 m forward. 22 actions left.', action_cost: 0.06, pins: [] },
    { turn: 3, status: 'ok', action: { action: 'pin', lat: 44.8, lon: 20.5 }, wire_action: { op: 'pin', lat: 44.8, lon: 20.5, span_deg: 7 }, camera_after: camera(90, 60, 3), image_kind: 'map', feedback: 'Pin 1 placed at 44.8000, 20.5000 - Republic of Serbia. 21 actions left.', action_cost: 0.08, pins: [[44.8, 20.5]] },
    { turn: 4, status: 'ok', action: { action: 'guess', lat: 44.8, lon: 20.45 }, wire_action: { op: 'guess', lat: 44.8, lon: 20.45 }, camera_after: camera(90, 60, 3), image_kind: 'map', feedback: 'Right region: 201 km.', action_cost: 0.08, pins: [[44.8, 20.5]], done: true },
  ],
  { km: 200.98, cost: 0.08, guess: [44.8, 20.45], reward: 0.79 },
);

const B = episode(
  'bbbbbbbb-2222',
  'beta',
  [
    start,
    { turn: 1, status: 'unparseable', action: null, camera_after: camera(0), image_kind: 'none', feedback: 'The reply held no usable action.', action_cost: 0, pins: [] },
    { turn: 2, status: 'ok', action: { action: 'guess', lat: 43.3, lon: 21.9 }, wire_action: { op: 'guess', lat: 43.3, lon: 21.9 }, camera_after: camera(0), image_kind: 'map', feedback: 'Pinpoint: 2 km.', action_cost: 0, pins: [], done: true },
  ],
  { km: 2.4, cost: 0, guess: [43.3, 21.9], reward: 0.998 },
);

const mixture = (d: number) => 0.5 * Math.exp(-d / 1492.7) + 0.5 * Math.exp(-d / 5000);

describe('compareEpisodes', () => {
  it('aligns the turns by number, a side that stopped earlier leaving its cells empty', () => {
    const c = compareEpisodes({ label: 'A', record: A }, { label: 'B', record: B });
    expect(c.rows.map((r) => [r.turn, r.a?.turn ?? null, r.b?.turn ?? null])).toEqual([
      [0, 0, 0],
      [1, 1, 1],
      [2, 2, 2],
      [3, 3, null],
      [4, 4, null],
    ]);
    expect(c.task).toEqual({ split: 'eval', index: 6, taskId: 'demo-00013', country: 'Republic of Serbia' });
  });

  it('says what each turn looked at, pinned and guessed, and what it cost', () => {
    const c = compareEpisodes({ label: 'A', record: A }, { label: 'B', record: B });
    const [t0, t1, t2, t3, t4] = c.rows.map((r) => r.a!);
    expect(t0!.looked).toBe('view 0° N, pitch 0°, fov 90°, frame 2');
    expect(t1).toMatchObject({ looked: 'view 90° E, pitch 0°, fov 60°, frame 2', call: 'look(heading_deg=90, fov_deg=60)', cost: 0.01, totalCost: 0.01 });
    // The budget tail is left to the cost column.
    expect(t1!.feedback).toBe('Facing 90° (E), pitch 0°, field of view 60°.');
    expect(t2).toMatchObject({ looked: 'move forward 15 m → frame 3', cost: 0.05 });
    expect(t3).toMatchObject({ looked: 'pin 44.8000, 20.5000 ±7°', pin: [44.8, 20.5], cost: 0.02 });
    expect(t4).toMatchObject({ looked: 'guess 44.8000, 20.4500', guess: [44.8, 20.45], cost: 0 });
    expect(c.rows[1]!.b).toMatchObject({ looked: 'no action (unparseable)', call: '(no action)', status: 'unparseable' });
  });

  it('recomputes the reward on the reference curve from distance and cost, not the stored one', () => {
    const c = compareEpisodes({ label: 'A', record: A }, { label: 'B', record: B });
    expect(c.a.outcome.referenceReward).toBeCloseTo(mixture(200.98) * (1 - 0.08), 12);
    expect(c.b.outcome.referenceReward).toBeCloseTo(mixture(2.4), 12);
    expect(c.a.outcome).toMatchObject({ distanceKm: 200.98, verdict: 'Right region', gameReward: 0.79, guess: [44.8, 20.45], truth: TRUTH, pins: [[44.8, 20.5]], turnsUsed: 4 });
  });

  it('refuses two different tasks with a usage error naming both', () => {
    const other = episode('cccccccc-3333', 'gamma', [start], { km: 10, cost: 0, reward: 0.9 }, { split: 'eval', index: 3, task_id: 'demo-00007' });
    expect(() => compareEpisodes({ label: 'run.jsonl:1', record: A }, { label: 'cccccccc', record: other })).toThrow(UsageError);
    expect(taskMismatch({ label: 'run.jsonl:1', record: A }, { label: 'cccccccc', record: other })).toBe(
      'the episodes play different tasks: run.jsonl:1 plays eval/6 (demo-00013), cccccccc plays eval/3 (demo-00007); compare two episodes of one task',
    );
    // Without task ids, split and index decide.
    const noId = (r: CompletedEpisode) => ({ ...r, task: { ...r.task, task_id: null } });
    expect(taskMismatch({ label: 'a', record: noId(A) }, { label: 'b', record: noId(B) })).toBeNull();
  });

  it('keeps a failed episode, with its error in place of an outcome', () => {
    const failed = { ...failedRecord({ index: 6 }), task: { split: 'eval', index: 6, sample: 1, task_id: 'demo-00013' } };
    const c = compareEpisodes({ label: 'A', record: A }, { label: 'F', record: failed });
    expect(c.b.outcome).toMatchObject({ error: 'ServiceError: model endpoint unreachable', referenceReward: null, distanceKm: null });
    expect(c.rows.every((r) => r.b === null)).toBe(true);
  });
});

describe('comparisonLines', () => {
  it('fits 100 columns, one block of three lines per turn, both outcomes at the end', () => {
    const lines = comparisonLines(compareEpisodes({ label: 'A', record: A }, { label: 'B', record: B }));
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(100);
    expect(lines[0]).toBe('task eval/6 (demo-00013) · Republic of Serbia · truth 43.3209, 21.8958');
    expect(lines[1]).toMatch(/^turn A aaaaaaaa alpha@geolab-tools-1\s+│ B bbbbbbbb beta@geolab-tools-1$/);
    const turn1 = lines.findIndex((l) => /^ {3}1 /.test(l));
    expect(lines[turn1]).toMatch(/^ {3}1 view 90° E, pitch 0°, fov 60°, frame 2\s+\+0\.01 │ no action \(unparseable\)\s+\+0\.00$/);
    expect(lines[turn1 + 1]).toMatch(/^ {5} {2}look\(heading_deg=90, fov_deg=60\)\s+│ {3}\(no action\)$/);
    // A cut line keeps its indent, so the call and the feedback of a side stay aligned.
    const pinFeedback = lines[lines.findIndex((l) => /^ {3}3 /.test(l)) + 2]!;
    expect(pinFeedback).toMatch(/^ {7}Pin 1 placed at 44\.8000, 20\.5000 - Rep\S*… │$/);
    const turn4 = lines.findIndex((l) => /^ {3}4 /.test(l));
    expect(lines[turn4]).toMatch(/^ {3}4 guess 44\.8000, 20\.4500\s+\+0\.00 │$/);
    const end = lines.findIndex((l) => l.startsWith(' end '));
    expect(lines[end]).toMatch(/^ end Right region, 201 km\s+│ Close, 2\.4 km$/);
    expect(lines[end + 1]).toContain(`reference reward ${(mixture(200.98) * 0.92).toFixed(4)} · game 0.7900`);
    expect(lines[end + 1]).toContain(`│ reference reward ${mixture(2.4).toFixed(4)} · game 0.9980`);
  });

  it('narrows to the width it is given', () => {
    const lines = comparisonLines(compareEpisodes({ label: 'A', record: A }, { label: 'B', record: B }), 72);
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(72);
  });
});
