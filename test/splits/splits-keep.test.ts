/**
 * Splits are never lost (docs/splits.md, Replacing a split; Versions; Lineage), through the real
 * binary on a private workspace: a second build into the same folder or onto the same task sets is
 * refused and changes nothing; `--replace` replaces them while the old versions stay readable and
 * an episode played on the old version still replays its own task; the lineage shows in
 * `tasks stats` and `splits check`.
 */
import { readdirSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CompletedEpisode } from '../../src/core/episode.js';
import { episodeSplitTasks } from '../../src/store/episodes.js';
import { openWorkspace } from '../../src/store/index.js';
import { readTasks, readTasksAt, taskSetVersions } from '../../src/store/task-sets.js';
import { BIN, geolab } from '../helpers/cli.js';
import { makeJpeg } from '../helpers/episodes.js';
import { tempDir } from '../helpers/fixtures.js';
import { TmuxPane } from '../helpers/tmux.js';
import { poolRecord, spreadPool } from './pools.js';

const COUNTRIES = ['France', 'Germany', 'Japan'];
const PER_COUNTRY = 6;
const POOL = spreadPool(COUNTRIES, PER_COUNTRY);
let poolFile: string;
let panos: string;

beforeAll(async () => {
  const dir = tempDir();
  poolFile = join(dir, 'pool.jsonl');
  writeFileSync(poolFile, POOL.map((t, i) => JSON.stringify(poolRecord(t, i))).join('\n') + '\n');
  // A panorama for every pool image, so an episode can be played and replayed on any task.
  panos = join(dir, 'panos');
  mkdirSync(panos);
  for (let i = 0; i < POOL.length; i++) writeFileSync(join(panos, `img${i}.jpg`), await makeJpeg(i, 64, 32));
});

const panes: TmuxPane[] = [];
afterEach(() => panes.splice(0).forEach((p) => p.kill()));

/** Every file of a folder with its bytes. */
function snapshot(dir: string): Record<string, string> {
  return Object.fromEntries(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f), 'utf8')]));
}

const build = (home: string, out: string, ...flags: string[]) =>
  geolab(['splits', 'build', poolFile, '--out-dir', out, '--eval', '6', '--eval-per-country', '2', '--buffer-km', '5', ...flags], { home });

/** Plays world-eval/0 with the fixed baseline; the episode as recorded. */
function play(home: string, split: string): CompletedEpisode {
  expect(geolab(['config', 'set', 'panos', panos], { home }).code).toBe(0);
  const r = geolab(['agent', '--json', '--split', split, '--task', '0', '--policy', 'fixed', '--point', '45,7'], { home });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as CompletedEpisode;
}

describe('splits build keeps what is there', () => {
  it('refuses a second build into the same folder, naming the files, the task sets, their tasks and episodes, and changes nothing', async () => {
    const home = tempDir();
    const out = join(tempDir(), 'world');
    expect(build(home, out).code).toBe(0);
    const episode = play(home, 'world-eval');
    const files = snapshot(out);
    const ws = await openWorkspace(home);
    const before = { eval: readTasks(ws.db, 'world-eval'), train: readTasks(ws.db, 'world-train') };
    ws.close();

    const r = build(home, out, '--eval', '3', '--eval-per-country', '1');
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`${join(out, 'eval.jsonl')}, ${join(out, 'train.jsonl')}, ${join(out, 'manifest.json')}`);
    expect(r.stderr).toContain(`task set world-eval (${before.eval.length} tasks, 1 episode recorded on it)`);
    expect(r.stderr).toContain(`task set world-train (${before.train.length} tasks, no episodes recorded on it)`);
    expect(r.stderr).toContain('pass --replace to replace it');
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(snapshot(out)).toEqual(files);
    const after = await openWorkspace(home);
    try {
      expect(readTasks(after.db, 'world-eval')).toEqual(before.eval);
      expect(readTasks(after.db, 'world-train')).toEqual(before.train);
      expect(taskSetVersions(after.db, 'world-eval')).toHaveLength(1);
    } finally {
      after.close();
    }
    expect(episode.task.split).toBe('world-eval');

    // Another folder, same task set names: refused too, and the folder is not made.
    const elsewhere = join(tempDir(), 'other');
    const named = build(home, elsewhere, '--name', 'world');
    expect(named.code).toBe(2);
    expect(named.stderr).toContain('task set world-eval (');
    expect(named.stderr).not.toContain('eval.jsonl');
    expect(() => readdirSync(elsewhere)).toThrow(/ENOENT/);
  });

  it('replaces with --replace; the old version stays readable and an episode played on it replays its own task', async () => {
    const home = tempDir();
    const out = join(tempDir(), 'world');
    const first = build(home, out, '--json');
    expect(first.code, first.stderr).toBe(0);
    const firstManifest = JSON.parse(first.stdout) as { task_sets: { eval: { name: string; version: string } } };
    const episode = play(home, 'world-eval');
    const played = (JSON.parse(readFileSync(join(out, 'eval.jsonl'), 'utf8').split('\n')[0]!) as { frames: { image_id: string }[] }).frames[0]!.image_id;

    const r = build(home, out, '--exclude-countries', 'France', '--replace', '--json');
    expect(r.code, r.stderr).toBe(0);
    const manifest = JSON.parse(r.stdout) as { task_sets: { eval: { name: string; version: string } }; options: { exclude_countries: string[] } };
    expect(manifest.options.exclude_countries).toEqual(['France']);
    expect(manifest.task_sets.eval.version).not.toBe(firstManifest.task_sets.eval.version);

    const ws = await openWorkspace(home);
    try {
      const versions = taskSetVersions(ws.db, 'world-eval');
      expect(versions.map((v) => [v.sha256, v.replaced_at === null])).toEqual([
        [firstManifest.task_sets.eval.version, false],
        [manifest.task_sets.eval.version, true],
      ]);
      // The new version is the one served now; the old one is still there, whole.
      const now = readTasks(ws.db, 'world-eval');
      expect(now[0]!.frames[0]!.image_id).not.toBe(played);
      const old = readTasksAt(ws.db, 'world-eval', firstManifest.task_sets.eval.version);
      expect(old).toHaveLength(6);
      expect(now).toHaveLength(4);
      expect(old[0]!.frames[0]!.image_id).toBe(played);
      // The episode points at the version it was played on.
      expect(episodeSplitTasks(ws.db, episode.episode_id, 'world-eval')![0]!.frames[0]!.image_id).toBe(played);
    } finally {
      ws.close();
    }
    const replay = geolab(['episodes', 'replay', episode.episode_id], { home });
    expect(replay.code, replay.stdout + replay.stderr).toBe(0);
    expect(replay.stdout).toContain(`frame 0 (${played})`);
    expect(replay.stdout).toContain('2 image(s) at view size 640: 2 ok, 0 changed, 0 cannot be drawn');
  });

  it('refuses before asking anything with --interactive, on a terminal', () => {
    const home = tempDir();
    const out = join(tempDir(), 'world');
    expect(build(home, out).code).toBe(0);
    const files = snapshot(out);
    const pane = new TmuxPane([process.execPath, BIN, 'splits', 'build', poolFile, '--out-dir', out, '--interactive'], { GEOLAB_HOME: home, TERM: 'xterm-256color' });
    panes.push(pane);
    // The pane wraps the line at its width: read the screen unwrapped.
    const unwrapped = (screen: string) => screen.replace(/\s/g, '');
    return pane.waitFor((screen) => unwrapped(screen).includes('pass--replace')).then((screen) => {
      expect(unwrapped(screen)).toContain(unwrapped('task set world-eval (6 tasks, no episodes recorded on it)'));
      expect(screen).not.toContain('Countries');
      expect(snapshot(out)).toEqual(files);
    });
  });
});

describe('lineage', () => {
  it('tasks stats and splits check show the pool sha256, seed, options, build time and versions', async () => {
    const home = tempDir();
    const out = join(tempDir(), 'world');
    expect(build(home, out, '--seed', '7').code).toBe(0);
    expect(build(home, out, '--seed', '8', '--eval', '3', '--eval-per-country', '1', '--replace').code).toBe(0);
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as {
      built_at: string;
      inputs: { pool_sha256: string };
      task_sets: { eval: { version: string }; train: { version: string } };
    };
    const ws = await openWorkspace(home);
    const old = taskSetVersions(ws.db, 'world-eval')[0]!;
    ws.close();

    const stats = geolab(['tasks', 'stats', join(out, 'eval.jsonl')], { home });
    expect(stats.code, stats.stderr).toBe(0);
    expect(stats.stdout).toContain(`lineage (${join(out, 'manifest.json')}): ${join(out, 'eval.jsonl')} built ${manifest.built_at} from pool ${poolFile}`);
    expect(stats.stdout).toContain(`pool sha256 ${manifest.inputs.pool_sha256}, seed 8`);
    expect(stats.stdout).toContain('options: eval 3, eval-per-country 1, buffer 5 km, countries all');
    expect(stats.stdout).toContain(
      `task set world-eval: built version ${manifest.task_sets.eval.version.slice(0, 12)}; versions in the workspace: ${old.sha256.slice(0, 12)} replaced ${old.replaced_at} (6 tasks); ${manifest.task_sets.eval.version.slice(0, 12)} current (3 tasks)`,
    );

    const check = geolab(['splits', 'check', '--train', join(out, 'train.jsonl'), '--eval', join(out, 'eval.jsonl'), '--buffer-km', '5', '--json'], { home });
    expect(check.code, check.stderr).toBe(0);
    const lineage = (JSON.parse(check.stdout) as { lineage: { files: string[]; seed: number; pool_sha256: string; task_sets: { name: string; built: string; versions: unknown[] }[] }[] }).lineage;
    expect(lineage).toHaveLength(1);
    expect(lineage[0]).toMatchObject({ seed: 8, pool_sha256: manifest.inputs.pool_sha256, files: [join(out, 'train.jsonl'), join(out, 'eval.jsonl')] });
    expect(lineage[0]!.task_sets.map((s) => [s.name, s.built, s.versions.length])).toEqual([
      ['world-eval', manifest.task_sets.eval.version, 2],
      ['world-train', manifest.task_sets.train.version, 2],
    ]);

    // An edited split file is no longer the one the manifest wrote: no lineage is claimed for it.
    writeFileSync(join(out, 'eval.jsonl'), readFileSync(join(out, 'eval.jsonl'), 'utf8').replace('"2024-05"', '"2024-06"'));
    const edited = geolab(['tasks', 'stats', join(out, 'eval.jsonl')], { home });
    expect(edited.code).toBe(0);
    expect(edited.stdout).not.toContain('lineage');
  });
});
