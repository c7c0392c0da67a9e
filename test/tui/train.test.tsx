/**
 * The Train screen through the real service on a real workspace and recorded run directories: one
 * whose trainer is alive (a stand-in process recorded with its argv and start time, as launch records
 * the trainer), one whose trainer is gone after a CUDA out-of-memory traceback.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanup } from 'ink-testing-library';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTimeOf } from '../../src/processes.js';
import { openWorkspace } from '../../src/store/index.js';
import { saveTrainRun } from '../../src/store/train-runs.js';
import type { LaunchRecord } from '../../src/train/launch.js';
import { sparkline } from '../../src/tui/train/sparkline.js';
import { trainService } from '../../src/tui/train/service.js';
import { workspaceSession, type WorkspaceSession } from '../../src/tui/workspace-session.js';
import { tempDir } from '../helpers/fixtures.js';
import { KEY, renderApp } from './render.js';

const fixture = (name: string) => new URL(`../fixtures/train/${name}`, import.meta.url);
let session: WorkspaceSession;
const trainers: ChildProcess[] = [];

/** A live stand-in in a process group of its own, its argv naming the run's resolved config, as launch starts the trainer. */
function liveTrainer(resolved: string): { pid: number; command: string[] } {
  const command = ['python3', '-c', 'import time; time.sleep(120)', resolved];
  const child = spawn(command[0]!, command.slice(1), { stdio: 'ignore', detached: true });
  trainers.push(child);
  return { pid: child.pid!, command };
}

function rollout(step: number, index: number, reward: number) {
  return {
    run: 'r1',
    step,
    model: 'Qwen/Qwen3.5-4B',
    task: { split: 'train', index },
    outcome: { reward, distance_km: 1234.5, action_cost: 0.02, turns_used: 2, guessed: true, max_turns: 12 },
    turns: [
      { turn: 0, action: { op: 'reset' }, feedback: 'You are here.', pins: [], steps_remaining: 24 },
      { turn: 1, action: { op: 'look', heading_deg: 90 }, feedback: 'Facing 90 deg.', pins: [], steps_remaining: 23 },
      { turn: 2, action: { op: 'guess', lat: 47.1, lon: 10.4 }, feedback: 'Guess was 1,234 km away.', pins: [], steps_remaining: 22 },
    ],
  };
}

/** A run directory as launch leaves it, with the log given; returns the launch record. */
function recordRun(root: string, name: string, log: string, start: (resolvedConfig: string) => { pid: number; command: string[] }): LaunchRecord {
  const outputDir = join(root, 'runs', name);
  mkdirSync(join(outputDir, 'traces'), { recursive: true });
  copyFileSync(fixture(log), join(outputDir, 'train.log'));
  const resolved = join(outputDir, 'config.resolved.json');
  writeFileSync(resolved, JSON.stringify({ version: 1, name, output_dir: outputDir, grpo: { max_steps: 250 } }));
  writeFileSync(join(outputDir, 'traces', 'rollouts.jsonl'), [rollout(1, 0, 0.31), rollout(2, 1, 0.36), rollout(3, 2, 0.4)].map((r) => JSON.stringify(r)).join('\n') + '\n');
  const trainer = start(resolved);
  const record: LaunchRecord = {
    name,
    config_path: join(root, `${name}.json`),
    resolved_config_path: resolved,
    command: trainer.command,
    cwd: root,
    environment: {},
    pid: trainer.pid,
    // What launch records to know its process again (src/processes.ts).
    start_time: startTimeOf(trainer.pid) ?? 0,
    env_server: null,
    log_path: join(outputDir, 'train.log'),
    started_at: new Date().toISOString(),
    resumed: false,
  };
  writeFileSync(join(outputDir, 'launch.json'), JSON.stringify(record));
  return record;
}

beforeAll(async () => {
  const dir = tempDir();
  const ws = await openWorkspace(dir, { seedDemo: false });
  const running = recordRun(dir, 'r1', 'trl-run.log', liveTrainer);
  const toStop = recordRun(dir, 'r3', 'trl-run.log', liveTrainer);
  // A finished process's pid: nothing runs under it any more.
  const crashed = recordRun(dir, 'r2', 'trl-crash.log', () => ({ pid: spawnSync('true').pid, command: ['true'] }));
  const collapsed = recordRun(dir, 'r4', 'trl-collapse.log', () => ({ pid: spawnSync('true').pid, command: ['true'] }));
  for (const [record, startedAt] of [
    [running, '2026-12-01T10:00:00Z'],
    [crashed, '2026-12-01T09:00:00Z'],
    [toStop, '2026-12-01T08:00:00Z'],
    [collapsed, '2026-12-01T07:00:00Z'],
  ] as const) {
    saveTrainRun(ws.db, {
      name: record.name,
      config_path: record.config_path,
      config_json: '{}',
      output_dir: join(dir, 'runs', record.name),
      status: 'running',
      pid: record.pid,
      env_pid: null,
      started_at: startedAt,
      ended_at: null,
      last_step: null,
      max_steps: 250,
    });
  }
  ws.close();
  session = workspaceSession(dir);
});

afterEach(() => cleanup());
afterAll(async () => {
  for (const child of trainers) child.kill('SIGKILL');
  await session.close();
});

function open(route: Parameters<typeof renderApp>[0]['route'], size: { columns?: number; rows?: number } = {}) {
  return renderApp({ route, services: { openWorkspace: session.view, train: trainService(session) }, ...size });
}

describe('Train screen', () => {
  it("shows a running run's progress, curves, warnings and recent rollouts; a rollout opens on its turns", async () => {
    const app = await open({ screen: 'train', run: 'r1' });
    const frame = await app.waitFor((f) => f.includes('step 3/250'));
    expect(frame).toContain('TRAIN · r1 · running · training · step 3/250 · ETA 1 h 41 min · 25.1 s/it');
    expect(frame).toMatch(/reward\s+0\.355\s+[▁▂▃▄▅▆▇█]{2}/);
    expect(frame).toMatch(/clipped\s+25%/);
    expect(frame).toContain('! completions clipped (25%): raise max_completion_length or lower max_turns');
    expect(frame).toContain('› step 3  train/2  reward 0.400  1,235 km  2 turns');
    expect(frame).toContain('  step 1  train/0');
    await app.press(KEY.down, KEY.enter);
    const turns = app.frame();
    expect(turns).toContain('traces keep no images');
    expect(turns).toContain('1 look(heading_deg=90)  Facing 90 deg.');
    expect(turns).toContain('2 guess(lat=47.1, lon=10.4)');
    await app.press(KEY.escape);
    expect(app.frame()).toContain('› step 2  train/1');
  });

  it('shows a crashed run with the last lines of its log', async () => {
    const app = await open({ screen: 'train', run: 'r2' });
    const frame = await app.waitFor((f) => f.includes('crashed'));
    expect(frame).toContain('TRAIN · r2 · crashed · failed · step 2/250');
    expect(frame).toContain('crashed: the last lines of the log');
    expect(frame).toContain('torch.OutOfMemoryError: CUDA out of memory');
    expect(frame).toContain('! dead groups: 88% of groups scored alike and give no gradient');
    expect(frame).not.toContain('ETA');
  });

  it("warns when the importance-sampling ratio collapses and when every group's rewards are equal", async () => {
    const app = await open({ screen: 'train', run: 'r4' }, { columns: 200 });
    const frame = await app.waitFor((f) => f.includes('importance-sampling ratio'));
    expect(frame).toContain("! every group's rewards were equal (frac_reward_zero_std 1): the step gave no gradient");
    expect(frame).toContain('! importance-sampling ratio collapsed (mean 1.2e-4): the gradient is scaled to almost nothing; set grpo.vllm_importance_sampling_correction to false');
  });

  it('fits a crashed run into 80x24: the tail of the traceback, the rollouts, the keys', async () => {
    const app = await open({ screen: 'train', run: 'r2' }, { columns: 80, rows: 24 });
    const frame = await app.waitFor((f) => f.includes('crashed'));
    expect(frame).toContain('CUDA out of memory');
    expect(frame).not.toContain('Traceback (most recent call last)');
    expect(frame).toContain('› step 3  train/2');
    expect(frame).toContain('S stop');
    expect(frame.split('\n').length).toBeLessThanOrEqual(24);
  });

  it('stops a running run after asking: SIGINT to its process group, then recorded as stopped', async () => {
    const app = await open({ screen: 'train', run: 'r3' });
    await app.waitFor((f) => f.includes('TRAIN · r3 · running'));
    await app.press('S');
    expect(app.frame()).toContain('Stop r3? SIGINT (a checkpoint when the step ends), SIGTERM after 10 min. y stops · n/esc keeps it running');
    await app.press('n');
    expect(app.frame()).not.toContain('Stop r3?');
    await app.press('S', 'y');
    await app.waitFor((f) => f.includes('r3 stopped (SIGINT) at step 3'));
    await app.waitFor((f) => f.includes('TRAIN · r3 · stopped'), 5000);
    await app.press('S');
    expect(app.frame()).toContain('r3 is not running');
  });

  it('is reached from Home, which lists the runs with status and step', async () => {
    const app = await renderApp({ route: { screen: 'home' }, services: { openWorkspace: session.view, train: trainService(session) } });
    await app.waitFor((f) => f.includes('Training'));
    // r3 is stopped or not depending on whether the test stopping it ran first.
    expect(app.frame()).toMatch(/Training {3}r1 running 3\/250 · r2 crashed 2\/250 · r3 (running|stopped) 3\/250/);
    await app.press('t');
    await app.waitFor((f) => /› r1 +running +3\/250/.test(f));
    expect(app.frame()).toMatch(/ {2}r2 +crashed +2\/250/);
    await app.press(KEY.down, KEY.enter);
    await app.waitFor((f) => f.includes('TRAIN · r2 · crashed'));
  });
});

describe('sparkline', () => {
  it('scales a series between its low and high, keeps the newest values, leaves gaps blank', () => {
    expect(sparkline([0, 1, 2, 3, 4, 5, 6, 7], 8)).toBe('▁▂▃▄▅▆▇█');
    expect(sparkline([5, 0, 10], 2)).toBe('▁█');
    expect(sparkline([1, Number.NaN, 1], 3)).toBe('▄ ▄');
    expect(sparkline([], 5)).toBe('');
  });
});
