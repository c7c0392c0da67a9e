/**
 * Benches of the episode store (docs/budgets.md: import >= 2,000 episodes/s from geoeval JSONL; the
 * Episodes list instant with 100k episodes).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gameScore, rewardAfterCost, verdictFor } from '../src/core/scoring.js';
import { openDatabase, type Db } from '../src/store/db.js';
import { importEpisodesFile } from '../src/store/import-episodes.js';
import { openWorkspace, type Workspace } from '../src/store/index.js';
import { MIGRATIONS } from '../src/store/migrations.js';
import { workspacePaths } from '../src/store/workspace.js';
import type { EpisodeListQuery } from '../src/tui/services.js';
import { workspaceView } from '../src/tui/workspace-view.js';
import { lcg, round, timeAsync, timeBatches, type Bench } from './harness.js';

const EPISODES = 3_000;
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

const LIST_EPISODES = 100_000;
const LIST_PAGE = 30;
const LIST_MODELS = ['base', 'run1-ckpt500', 'run1-ckpt1000', 'run2-ckpt1000', 'sonnet-5', 'baseline-prior'];
const LIST_COUNTRIES = [
  'France', 'Japan', 'Chile', 'Kenya', 'Canada', 'Austria', 'India', 'Brazil', 'United States', 'New Zealand',
  'South Africa', 'Norway', 'Mexico', 'Thailand', 'Australia', 'Argentina', 'Spain', 'Poland', 'Turkey', 'Indonesia',
];

/**
 * 100,000 list rows written straight into `episodes` in one transaction: saveEpisode takes about
 * 3.5 s for as many (it writes records and turns), too much of the bench's 45 s for rows the list
 * reads only through its covering index. One in twenty is a failed episode.
 */
function fillEpisodes(db: Db): void {
  const rand = lcg(11);
  const hex = (n: number) => Math.floor(rand() * 16 ** n).toString(16).padStart(n, '0');
  const insert = db.prepare(
    `INSERT INTO episodes (episode_id, recorded_at, model_name, split, task_index, sample, task_id, country, verdict,
       distance_km, reward, train_reward, turns_used, error, record_json)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '{}')`,
  );
  const start = Date.UTC(2026, 0, 1);
  db.transaction(() => {
    for (let i = 0; i < LIST_EPISODES; i++) {
      const id = `${hex(8)}-${hex(4)}-4${hex(3)}-8${hex(3)}-${hex(12)}`;
      const index = i % 2000;
      const head = [id, new Date(start + i * 7000).toISOString(), LIST_MODELS[i % LIST_MODELS.length], index < 1600 ? 'eval' : 'train'];
      const task = [index, Math.floor(i / 2000) % 4, `pool-${index}`, LIST_COUNTRIES[index % LIST_COUNTRIES.length]];
      if (i % 20 === 0) {
        insert.run(...head, ...task, null, null, null, null, null, 'ServiceError: model endpoint unreachable');
        continue;
      }
      // Distances spread over 10 m to 20,000 km on a log scale, so every verdict shows up.
      const km = 0.01 * 2e6 ** rand();
      const turns = 1 + Math.floor(rand() * 12);
      const reward = rewardAfterCost(gameScore(km), 0.01 * turns, 'subtract');
      insert.run(...head, ...task, verdictFor(km), km, reward, reward, turns, null);
    }
  })();
}

/** Count + first page, exactly what the Episodes screen reads when its filter or order changes. */
const LIST_QUERIES: Record<string, EpisodeListQuery> = {
  filter_sort: { filter: { verdict: 'Pinpoint' }, sort: 'reward', descending: true },
  search: { filter: { search: 'japan' }, sort: 'recent', descending: true },
  search_by_distance: { filter: { search: 'japan' }, sort: 'distance', descending: false },
};

let listWorkspace: Promise<{ dir: string; upgradeMs: number; setupMs: number }> | undefined;

/**
 * A workspace holding 100,000 episodes (the list budget of docs/budgets.md), built once per bench run
 * for the store and TUI benches that read it. Written at schema 2, before the sort indexes, then
 * upgraded as an existing workspace is: building the indexes once takes less than half the time of
 * keeping them up to date row by row.
 */
export function workspaceWith100kEpisodes(): Promise<{ dir: string; upgradeMs: number; setupMs: number }> {
  listWorkspace ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'geolab-bench-'));
    const setupStart = Date.now();
    const writer = openDatabase(workspacePaths(dir).database, MIGRATIONS.slice(0, 2));
    fillEpisodes(writer);
    // Closed before reading, as the TUI would find it: read right after a 100k-row transaction in
    // the same connection, pages come through a large WAL and take 2-4 times as long.
    writer.close();
    const upgradeStart = Date.now();
    (await openWorkspace(dir, { seedDemo: false })).close();
    return { dir, upgradeMs: Date.now() - upgradeStart, setupMs: Date.now() - setupStart };
  })();
  return listWorkspace;
}

const episodesPage100k: Bench = {
  name: 'store.episodes_page_100k',
  unit: 'pages',
  async run() {
    const { dir, upgradeMs, setupMs } = await workspaceWith100kEpisodes();
    const ws = await openWorkspace(dir, { seedDemo: false });
    try {
      const view = workspaceView(ws);
      const page = (query: EpisodeListQuery) => {
        const total = view.countEpisodes(query.filter);
        const rows = view.listEpisodes(query, 0, LIST_PAGE);
        if (total === 0 || rows.length !== LIST_PAGE) throw new Error(`bench query ${JSON.stringify(query)} found too little`);
      };
      const ms = Object.fromEntries(
        Object.entries(LIST_QUERIES).map(([name, query]) => [name, timeBatches(() => page(query), 1, 9).median_ms]),
      );
      const main = ms.filter_sort!;
      return {
        median_ms: main,
        per_s: round(1000 / main, 1),
        search_ms: ms.search!,
        search_by_distance_ms: ms.search_by_distance!,
        upgrade_ms: upgradeMs,
        setup_ms: setupMs,
      };
    } finally {
      ws.close();
    }
  },
};

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
  episodesPage100k,
];
