/** The benches, one per figure; each sets up its own data and measures only the work named. */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseGuess } from '../src/core/parse-guess.js';
import { redactDeep, registerSecret } from '../src/core/secrets.js';
import { locate } from '../src/geo/index.js';
import { PACKAGE_ROOT } from '../src/paths.js';
import { openDatabase } from '../src/store/db.js';
import { importTaskFile } from '../src/store/task-sets.js';
import { loadTaskFile } from '../src/tasks/load.js';
import { drawRegionalMap } from '../src/tui/map/regional-map.js';
import { auditBenches } from './audit.js';
import { envMapBenches } from './env-map.js';
import { episodeBenches } from './episodes.js';
import { evalBenches } from './eval.js';
import { evalBoardBenches } from './eval-board.js';
import { evalCpuBenches } from './eval-cpu.js';
import { envRenderBenches } from './env-render.js';
import { envServerBenches } from './env-server.js';
import { envStepBenches } from './env-steps.js';
import { envSweepBenches } from './env-sweep-rss.js';
import { lcg, timeAsync, timeBatches, type Bench } from './harness.js';
import { splitsBenches } from './splits.js';
import { tuiBenches } from './tui.js';

const GUESS_REPLIES = [
  'The signs are Cyrillic and the road lines white. <guess>44.7866, 20.4489</guess>',
  '{"action": "guess", "lat": -33.92, "lon": 18.42}',
  'I think this is Paris: lat: 48.8584, lon: 2.2945',
  "Final answer 48°51'29.6\"N 2°17'40.2\"E",
  'Probably around 35.68 N, 139.69 E given the vegetation.',
  'My guess is -34.6037 / -58.3816',
];

/** A synthetic pool of `n` tasks written as JSONL. */
function writePool(n: number): string {
  const rand = lcg(7);
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const lat = -50 + rand() * 110;
    const lon = -180 + rand() * 360;
    const frames = Array.from({ length: 4 }, (_, f) => ({
      image_id: `p${i}f${f}`,
      lat: lat + f * 1e-4,
      lon,
      compass_angle: rand() * 360,
      captured_at: '2024-06',
      is_pano: true,
    }));
    lines.push(
      JSON.stringify({
        task_index: i,
        task_id: `pool-${i}`,
        country: 'France',
        sequence_id: `s${i}`,
        provider: 'synthetic',
        start_frame: 1,
        frames,
        attribution: { creator_username: `u${i % 50}`, creator_id: String(i % 50), licence: 'CC0-1.0', source: 'bench' },
        meta: { quality_score: rand() },
      }),
    );
  }
  const file = join(mkdtempSync(join(tmpdir(), 'geolab-bench-')), 'pool.jsonl');
  writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

/** A JSON-protocol episode's size: 12 turns, each request repeating the prompt and the history so far. */
function syntheticRecord(): Record<string, unknown> {
  const rand = lcg(7);
  const words = (n: number) => Array.from({ length: n }, () => Math.floor(rand() * 36 ** 6).toString(36)).join(' ');
  const system = words(500);
  const replies: string[] = [];
  const turns = Array.from({ length: 12 }, (_, t) => {
    const reply = `${words(150)}\n\`\`\`json\n{"action": "look", "heading_deg": ${t * 30}}\n\`\`\``;
    const messages = [{ role: 'system', content: system }, ...replies.map((r) => ({ role: 'assistant', content: r })), { role: 'user', content: words(120) }];
    replies.push(reply);
    return { turn: t + 1, status: 'ok', feedback: words(20), model: { reply, reasoning: words(200), errors: [] }, messages };
  });
  return { schema_version: 2, episode_id: 'bench', model_name: 'bench', task: { split: 'eval', index: 0 }, turns };
}

function cliStartMs(args: string[]): Promise<number> {
  const bin = join(PACKAGE_ROOT, 'bin', 'geolab.js');
  return timeAsync(async () => execFileSync(process.execPath, [bin, ...args], { stdio: 'ignore' }), 3).then(
    (r) => r.median_ms,
  );
}

export const benches: Bench[] = [
  {
    name: 'geo.locate',
    unit: 'points',
    run() {
      const rand = lcg(42);
      const points = Array.from({ length: 20_000 }, () => [-60 + rand() * 130, -180 + rand() * 360] as const);
      locate(0, 0); // the lazy load is not what this figure measures
      return timeBatches((i) => {
        const p = points[i % points.length] as readonly [number, number];
        return locate(p[0], p[1]);
      }, 20_000);
    },
  },
  {
    // The reveal's regional map at 120x40 (10m land per dot, the line, the marks), once the
    // outlines are loaded: drawn once per reveal, so it must not hold up the frame that shows it.
    name: 'tui.reveal_map',
    unit: 'maps',
    async run() {
      const input = { columns: 116, rows: 25, guess: { lat: 44.8176, lon: 20.4569 }, truth: { lat: 45.2671, lon: 19.8335 } };
      drawRegionalMap(input);
      return timeAsync(async () => drawRegionalMap(input), 20);
    },
  },
  {
    name: 'core.parse_guess',
    unit: 'replies',
    run: () => timeBatches((i) => parseGuess(GUESS_REPLIES[i % GUESS_REPLIES.length] as string), 50_000),
  },
  {
    name: 'tasks.load_10k',
    unit: 'files',
    async run() {
      const file = writePool(10_000);
      const r = await timeAsync(() => loadTaskFile(file, { onTask: () => {} }), 5);
      return { ...r, tasks_per_s: Math.round((10_000 * 1000) / r.median_ms) };
    },
  },
  {
    name: 'store.import_10k',
    unit: 'files',
    async run() {
      const file = writePool(10_000);
      const dir = mkdtempSync(join(tmpdir(), 'geolab-bench-'));
      let k = 0;
      const r = await timeAsync(async () => {
        const db = openDatabase(join(dir, `ws${k++}.db`));
        await importTaskFile(db, file, 'pool');
        db.close();
      }, 5);
      return { ...r, tasks_per_s: Math.round((10_000 * 1000) / r.median_ms) };
    },
  },
  {
    name: 'cli.start',
    unit: 'starts',
    async run() {
      if (!existsSync(join(PACKAGE_ROOT, 'dist', 'bundle', 'main.js'))) throw new Error('cli.start needs `npm run build` first');
      const version = await cliStartMs(['--version']);
      const locateMs = await cliStartMs(['geo', 'locate', '--json', '-33.92', '18.42']);
      const bare = await timeAsync(async () => execFileSync(process.execPath, ['-e', '0']), 3);
      return {
        median_ms: version,
        per_s: Math.round(1000 / version),
        geo_locate_ms: locateMs,
        bare_node_ms: bare.median_ms,
      };
    },
  },
  ...envRenderBenches,
  ...envMapBenches,
  ...envStepBenches,
  ...envServerBenches,
  ...envSweepBenches,
  ...episodeBenches,
  ...evalBenches,
  ...evalCpuBenches,
  ...evalBoardBenches,
  ...tuiBenches,
  ...splitsBenches,
  ...auditBenches,
  {
    // Every record is redacted before it is stored or printed once a key is held (docs/reliability.md).
    name: 'core.redact_record',
    unit: 'records',
    run() {
      registerSecret('sk-bench-' + 'Zx8vQ2mL7pR4tW9yB3nK6cF1hJ5gD0sA'.repeat(2));
      const record = syntheticRecord();
      const chars = JSON.stringify(record).length;
      const r = timeBatches(() => redactDeep(record), 20);
      return { ...r, record_kib: Math.round(chars / 1024), mib_per_s: Math.round((chars / 2 ** 20) * r.per_s) };
    },
  },
];
