/**
 * The public harness against geolab, both ways, with real processes only: a python3 client that
 * does what the harness and OpenEnv's generic client do (harness_client.py) plays against the real
 * `geolab env serve` over a WebSocket, its records import into a workspace with every field filled,
 * and the harness's readers (test/agent/fixtures/harness_read.py) read the records geolab itself writes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { destinationPoint } from '../../src/core/geodesy.js';
import { truthOf } from '../../src/core/tasks.js';
import { demoSplits } from '../../src/env/task-splits.js';
import { BIN, geolab, spawnCommand, spawnGeolab } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { harnessRead } from '../helpers/harness.js';
import { startScriptedOpenAI } from '../helpers/scripted-openai.js';

const CLIENT = join(import.meta.dirname, 'harness_client.py');
const SPLIT = 'eval';
const HOME = tempDir('geolab-interop-home-');
let server: ChildProcess;
let url: string;

beforeAll(async () => {
  server = spawn(process.execPath, [BIN, 'env', 'serve', '--port', '0', '--json', '--show-identity'], {
    env: { ...process.env, GEOLAB_HOME: HOME },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  url = await new Promise<string>((resolve, reject) => {
    let stderr = '';
    server.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    server.once('exit', (code) => reject(new Error(`env serve exited ${code}: ${stderr}`)));
    createInterface({ input: server.stdout as NodeJS.ReadableStream }).once('line', (line) =>
      resolve(String((JSON.parse(line) as { url: string }).url)),
    );
  });
});
afterAll(() => {
  server.kill('SIGTERM');
});

// Children run without blocking this process, which serves the scripted model.
const run = (args: string[]) => spawnGeolab(args, { home: HOME }).done;
const python = (args: string[]) => spawnCommand('python3', [CLIENT, ...args]).done;

interface Seen {
  num_tasks: number;
  task_spec: Record<string, unknown>;
  tasks_env_name: string;
  tasks_count: number;
  task_range_last_two: number[];
  metadata_beside: boolean[];
  reset_metadata_keys: string[];
  turn_metadata_keys: string[];
  final_metadata_keys: string[];
  episode_ids: string[];
}

describe('the public harness against geolab', () => {
  it('plays over the WebSocket with the Task API helpers, and its records import with every field filled', async () => {
    const tasks = (await demoSplits()).get(SPLIT)!;
    const targets = [0, 2].map((index) => {
      const truth = truthOf(tasks[index]!);
      const guess = destinationPoint(truth.lat, truth.lon, 45, 30);
      return `${index}:${guess.lat}:${guess.lon}`;
    });
    const out = tempDir('geolab-interop-runs-');
    const played = await python(['play', url, out, 'harness-run', SPLIT, ...targets]);
    expect(played.code, played.stderr).toBe(0);
    const seen = JSON.parse(played.stdout) as Seen;
    console.log(`interop: the harness client saw ${JSON.stringify(seen)}`);

    // The Task API as OpenEnv's helpers unwrap it.
    expect(seen.num_tasks).toBe(tasks.length);
    expect(seen.task_spec).toMatchObject({ task_index: 0, split: SPLIT, task_id: tasks[0]!.task_id });
    for (const leaky of ['lat', 'lon', 'country', 'frames']) expect(seen.task_spec).not.toHaveProperty(leaky);
    expect(seen.tasks_env_name).toBe('geoguesser_env');
    expect(seen.tasks_count).toBe(tasks.length);
    expect(seen.task_range_last_two).toEqual([tasks.length - 2, tasks.length - 1]);

    // Metadata where both OpenEnv generations read it, the same in both places.
    expect(seen.metadata_beside.length).toBeGreaterThan(4);
    expect(seen.metadata_beside.every(Boolean)).toBe(true);
    expect(seen.turn_metadata_keys).toEqual(expect.arrayContaining(['frame_index', 'split', 'backend', 'episode_mode', 'street_detail']));
    expect(seen.turn_metadata_keys.some((k) => /country|guess/.test(k))).toBe(false);
    expect(seen.reset_metadata_keys).toEqual(expect.arrayContaining(['task_id', 'sequence_id', 'captured_at', 'attribution']));
    expect(seen.final_metadata_keys).toEqual(
      expect.arrayContaining(['country', 'guess', 'guess_country', 'verdict', 'country_hit', 'region_hit', 'n_looks', 'n_maps', 'n_pins', 'n_moves']),
    );

    // The harness's records import into a workspace, and nothing the harness took from metadata is lost.
    const file = join(out, 'harness-run', 'episodes.jsonl');
    const imported = geolab(['episodes', 'import', file], { home: HOME });
    expect(imported.code, imported.stderr).toBe(0);
    console.log(`interop: ${imported.stdout.trim()}`);
    expect(imported.stdout).toContain('2 new');
    for (const [n, id] of seen.episode_ids.entries()) {
      const shown = geolab(['episodes', 'show', id, '--json'], { home: HOME });
      expect(shown.code, shown.stderr).toBe(0);
      const record = JSON.parse(shown.stdout) as { task: Record<string, unknown>; outcome: Record<string, unknown> };
      const task = tasks[n === 0 ? 0 : 2]!;
      expect(record.task).toMatchObject({ task_id: task.task_id, country: task.country, sequence_id: task.sequence_id });
      for (const key of ['captured_at', 'attribution']) expect(record.task[key], `task.${key}`).not.toBeNull();
      const empty = Object.entries(record.outcome).filter(([, v]) => v === null || v === undefined).map(([k]) => k);
      expect(empty, 'outcome fields left empty').toEqual([]);
      expect(Object.keys(record.outcome)).toEqual(
        expect.arrayContaining(['guess_country', 'verdict', 'country_hit', 'region_hit', 'n_looks', 'n_maps', 'n_pins', 'n_moves', 'truth']),
      );
      expect(record.outcome).toMatchObject({ verdict: 'Close', country_hit: true, n_looks: 1, n_pins: 1, n_moves: 0 });
    }
  });

  it("reads geolab's own records the way the harness's report does", async () => {
    const model = await startScriptedOpenAI({
      script: [{ text: 'Looking east first. {"action": "look", "heading_deg": 90}' }, { text: '```json\n{"action": "guess", "lat": 10, "lon": 10}\n```' }],
    });
    try {
      const played = await run(['agent', '--headless', '--protocol', 'json', '--base-url', model.baseUrl, '--model', 'scripted', '--split', SPLIT, '--task', '1']);
      expect(played.code, played.stderr).toBe(0);
      const runDir = /recorded in (\S+)/.exec(played.stderr)?.[1];
      expect(runDir, played.stderr).toBeDefined();
      const read = harnessRead(join(runDir!, 'episodes.jsonl'));
      expect(read.code, `${read.stdout}${read.stderr}`).toBe(0);
      expect(JSON.parse(read.stdout)).toEqual({ episodes: 1, arms: ['scripted [geolab-json-1]'] });
    } finally {
      await model.close();
    }
  });
});
