/**
 * Bench of `geolab eval report` (docs/budgets.md: a report over 20,000 episodes < 1 s end to end). The
 * import budget (>= 2,000 episodes/s) is measured by store.import_episodes in bench/episodes.ts.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../src/paths.js';
import { lcg, round, timeAsync, type Bench } from './harness.js';

const ARMS = [
  ['bench-a', 'v1'],
  ['bench-a', 'v2'],
  ['bench-b', 'v1'],
  ['bench-c', 'geolab-tools-1'],
  ['bench-d', 'geolab-json-1'],
] as const;
const TASKS = 1000;
const PASSES = 4;
const SHARDS = 2;
export const EPISODES = ARMS.length * TASKS * PASSES;

/** A harness-shaped record: reset, three model turns with replies and tokens, and an outcome. */
function episodeLine(arm: number, task: number, pass: number, rand: () => number): string {
  const [model, prompt] = ARMS[arm]!;
  const distanceKm = 5000 * rand() ** 2;
  const turns = [
    { turn: 0, status: 'ok', camera_before: { heading_deg: 0, pitch_deg: 0, fov_deg: 90, frame_index: 0 }, action: { action: 'reset' }, image_kind: 'view', image_sha256: 'ab'.repeat(32) },
    ...['look', 'pin', 'guess'].map((action, i) => ({
      turn: i + 1,
      status: 'ok',
      action: { action, heading_deg: 90 * i },
      image_kind: action === 'guess' ? 'none' : 'view',
      feedback: `Facing ${90 * i} deg. ${23 - i} actions left.`,
      action_cost: 0.01,
      steps_remaining: 23 - i,
      model: { reply: `I see a road sign and vegetation; next I ${action}.`, finish_reason: 'stop', tokens: { input: 1200, output: 80 }, latency_s: 1.2, attempts: 1 },
    })),
  ];
  const outcome = {
    reward: 0.5,
    distance_km: distanceKm,
    parsed_ok: true,
    guess: [45.1, 7.2],
    country_hit: distanceKm < 400,
    n_looks: 1,
    n_pins: 1,
    n_moves: 0,
    action_cost: 0.03,
    forced_guess: false,
    turns_used: 3,
    tokens_out: 240,
  };
  return JSON.stringify({
    schema_version: 2,
    episode_id: `${model}-${prompt}-${task}-${pass}`,
    model_name: model,
    task: { split: 'eval', index: task, sample: pass, task_id: `t${task}`, country: `C${task % 40}` },
    config: { mode: 'agentic', prompt_version: prompt, max_turns: 12 },
    turns,
    outcome,
  });
}

/** A sharded pass@4 sweep of EPISODES harness records under `root` (also the Eval board bench's workspace). */
export function writeSweep(root: string): void {
  const rand = lcg(7);
  for (let pass = 0; pass < PASSES; pass++) {
    for (let shard = 0; shard < SHARDS; shard++) {
      const dir = join(root, `pass-${pass}`, `shard-${shard}`);
      mkdirSync(dir, { recursive: true });
      const lines: string[] = [];
      for (let arm = 0; arm < ARMS.length; arm++) {
        for (let task = shard; task < TASKS; task += SHARDS) lines.push(episodeLine(arm, task, pass, rand));
      }
      writeFileSync(join(dir, 'episodes.jsonl'), lines.join('\n') + '\n');
    }
  }
}

export const evalBenches: Bench[] = [
  {
    name: 'eval.report_20k',
    unit: 'episodes',
    async run() {
      const dir = mkdtempSync(join(tmpdir(), 'geolab-bench-eval-'));
      try {
        const sweep = join(dir, 'sweep');
        writeSweep(sweep);
        const bin = join(PACKAGE_ROOT, 'bin', 'geolab.js');
        const args = [bin, 'eval', 'report', sweep, '--baseline', 'bench-a@v1', '--json'];
        // A new process each time, start-up included, as a user runs it.
        const r = await timeAsync(async () => execFileSync(process.execPath, args, { stdio: 'ignore', env: { ...process.env, GEOLAB_HOME: join(dir, 'home') } }), 3);
        return { ...r, per_s: Math.round((EPISODES * 1000) / r.median_ms), episodes: EPISODES, seconds: round(r.median_ms / 1000, 3) };
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  },
];
