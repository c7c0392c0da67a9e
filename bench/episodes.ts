/** Benches of the episode store (DESIGN §11: import >= 2,000 episodes/s from geoeval JSONL). */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importEpisodesFile } from '../src/store/import-episodes.js';
import { openWorkspace, type Workspace } from '../src/store/index.js';
import { timeAsync, type Bench } from './harness.js';

const EPISODES = 5_000;
const SAMPLES = 3;
const COUNTRIES = ['France', 'Japan', 'Chile', 'Kenya', 'Canada', 'Austria', 'India', 'Brazil'];
const PROMPT = 'You are somewhere on Earth. Look around, pin the map, then guess. What do you do next?'.repeat(2);
const MESSAGE = { role: 'user', content: [{ type: 'text', text: PROMPT }, { type: 'image', sha256: 'ab'.repeat(32), mime: 'image/jpeg' }] };

/**
 * Harness-shaped records: a reset, two looks, a zoom, a pin and a guess, with model replies and
 * messages, so a line weighs what a real one does (about 5 KB); one in twenty is a failed episode.
 */
function episodeLine(i: number): string {
  const task = {
    split: 'eval',
    index: i % 1000,
    sample: Math.floor(i / 1000),
    task_id: `t${i % 1000}`,
    country: COUNTRIES[i % COUNTRIES.length],
  };
  const head = { schema_version: 2, episode_id: `bench-${i}`, model_name: 'bench-model', task };
  if (i % 20 === 0) {
    return JSON.stringify({ ...head, config: { prompt_version: 'v2' }, error: 'timeout', traceback: 'Traceback ...' });
  }
  const actions = [
    { action: 'reset' },
    { action: 'look', heading_deg: 90 },
    { action: 'look', heading_deg: 180 },
    { action: 'zoom', fov_deg: 30 },
    { action: 'pin', lat: 45.1, lon: 7.2 },
    { action: 'guess', lat: 45.2, lon: 7.3 },
  ];
  const turns = actions.map((action, turn) => ({
    turn,
    status: 'ok',
    camera_after: { heading_deg: 90 * turn, pitch_deg: 0, fov_deg: 90, frame_index: 3 },
    action,
    pins: action.action === 'pin' ? [[45.1, 7.2]] : [],
    image_kind: action.action === 'guess' ? 'none' : action.action === 'pin' ? 'map' : 'view',
    image_sha256: action.action === 'guess' ? null : `${(i * 8 + turn).toString(16).padStart(64, '0')}`,
    feedback: `Facing ${90 * turn} deg. ${24 - turn} actions left.`,
    action_cost: 0.01,
    steps_remaining: 24 - turn,
    reward: turn === actions.length - 1 ? 0.8 : null,
    done: turn === actions.length - 1,
    model: turn === 0 ? null : { reply: `White road lines. ${JSON.stringify(action)}`, finish_reason: 'stop', latency_s: 1.2, attempts: 1 },
    messages: turn === 0 ? undefined : [MESSAGE],
  }));
  return JSON.stringify({
    ...head,
    recorded_at: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
    model: { provider: 'openai', model: 'bench-model', temperature: 0.7 },
    config: { mode: 'tools', prompt_version: 'v2', max_turns: 12 },
    turns,
    outcome: {
      reward: 0.8,
      train_reward: 0.79,
      distance_km: 14.2,
      parsed_ok: true,
      guess: [45.2, 7.3],
      verdict: 'close',
      truth: [45.25, 7.31],
      turns_used: 5,
      n_looks: 2,
    },
  });
}

export const episodeBenches: Bench[] = [
  {
    name: 'store.import_episodes',
    unit: 'episodes',
    async run() {
      const dir = mkdtempSync(join(tmpdir(), 'geolab-bench-'));
      const file = join(dir, 'episodes.jsonl');
      writeFileSync(file, Array.from({ length: EPISODES }, (_, i) => episodeLine(i)).join('\n') + '\n');
      // Fresh workspaces opened beforehand: the figure is the import alone, not schema creation.
      const workspaces = await Promise.all(
        Array.from({ length: SAMPLES }, (_, k) => openWorkspace(join(dir, `ws${k}`), { seedDemo: false })),
      );
      let k = 0;
      const r = await timeAsync(() => importEpisodesFile(workspaces[k++] as Workspace, file), SAMPLES);
      for (const ws of workspaces) ws.close();
      return { ...r, per_s: Math.round((EPISODES * 1000) / r.median_ms) };
    },
  },
];
