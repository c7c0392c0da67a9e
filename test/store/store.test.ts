import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { connect, migrate, migrateAndSeed, openDatabase, schemaVersion, type Db } from '../../src/store/db.js';
import { MIGRATIONS } from '../../src/store/migrations.js';
import { importTaskFile, listTaskSets, readTasks } from '../../src/store/task-sets.js';
import { openWorkspace, summarize } from '../../src/store/index.js';
import { workspaceDir } from '../../src/store/workspace.js';
import { makeTask, tempDir, writeJsonl } from '../helpers/fixtures.js';

const open: Db[] = [];
function db(file = join(tempDir(), 'geolab.db')): Db {
  const d = openDatabase(file);
  open.push(d);
  return d;
}
afterEach(() => open.splice(0).forEach((d) => d.open && d.close()));

describe('workspace database', () => {
  it('creates every table family in a WAL database with foreign keys on', () => {
    const d = db();
    expect(schemaVersion(d)).toBe(MIGRATIONS.length);
    expect(d.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(d.pragma('foreign_keys', { simple: true })).toBe(1);
    const tables = (d.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((r) => r.name);
    for (const t of ['task_sets', 'tasks', 'splits', 'episodes', 'turns', 'images', 'audit_findings', 'eval_runs', 'train_runs']) {
      expect(tables).toContain(t);
    }
  });

  it('re-opening runs no migration twice, and new migrations apply in order', () => {
    const file = join(tempDir(), 'geolab.db');
    db(file).close();
    const extended = [...MIGRATIONS, 'CREATE TABLE extra (x INTEGER);'];
    const d = openDatabase(file, extended);
    open.push(d);
    expect(schemaVersion(d)).toBe(MIGRATIONS.length + 1);
    expect(migrate(d, extended)).toBe(MIGRATIONS.length + 1);
  });

  it('rolls a failing migration back whole', () => {
    const d = db();
    const broken = [...MIGRATIONS, 'CREATE TABLE half (x INTEGER); CREATE TABLE half (y INTEGER);'];
    expect(() => migrate(d, broken)).toThrow(/already exists/);
    expect(schemaVersion(d)).toBe(MIGRATIONS.length);
    expect(d.prepare("SELECT COUNT(*) AS n FROM sqlite_master WHERE name = 'half'").get()).toEqual({ n: 0 });
  });

  it('migrates and seeds in one transaction: a failing seed leaves an empty database, the next open seeds it', async () => {
    const file = join(tempDir(), 'geolab.db');
    const first = connect(file);
    open.push(first);
    const failing = async () => {
      await importTaskFile(first, writeJsonl([makeTask(0)]), 'seed');
      throw new Error('seed broke half-way');
    };
    await expect(migrateAndSeed(first, MIGRATIONS, failing)).rejects.toThrow('seed broke half-way');
    expect(schemaVersion(first)).toBe(0);
    expect(first.prepare("SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table'").get()).toEqual({ n: 0 });
    const tasks = writeJsonl([makeTask(0)]);
    const seed = async () => {
      await importTaskFile(first, tasks, 'seed');
    };
    expect(await migrateAndSeed(first, MIGRATIONS, seed)).toBe(true);
    expect(await migrateAndSeed(first, MIGRATIONS, () => Promise.reject(new Error('never seeds twice')))).toBe(false);
    expect(listTaskSets(first).map((s) => s.name)).toEqual(['seed']);
  });

  it('refuses a database from a newer geolab', () => {
    const file = join(tempDir(), 'geolab.db');
    const raw = new Database(file);
    raw.pragma(`user_version = ${MIGRATIONS.length + 5}`);
    raw.close();
    expect(() => openDatabase(file)).toThrow(/newer than this geolab/);
  });

  it('enforces foreign keys', () => {
    const d = db();
    expect(() =>
      d.prepare("INSERT INTO turns (episode_id, turn, turn_json) VALUES ('missing', 0, '{}')").run(),
    ).toThrow(/FOREIGN KEY/);
  });
});

describe('task import', () => {
  it('imports a file in one go and reads the tasks back in order', async () => {
    const d = db();
    const file = writeJsonl([makeTask(1), makeTask(0), makeTask(2)]);
    const r = await importTaskFile(d, file, 'pool');
    expect(r.status).toBe('imported');
    expect(r.set).toMatchObject({ name: 'pool', n_tasks: 3, n_frames: 6 });
    const tasks = readTasks(d, 'pool');
    expect(tasks.map((t) => t.task_id)).toEqual(['fx-00000', 'fx-00001', 'fx-00002']);
    expect(d.prepare('SELECT start_lat, country FROM tasks WHERE task_index = 2').get()).toEqual({ start_lat: 45.02, country: 'Italy' });
  });

  it('re-importing the same file is a no-op', async () => {
    const d = db();
    const file = writeJsonl([makeTask(0)]);
    const first = await importTaskFile(d, file, 'pool');
    const again = await importTaskFile(d, file, 'pool');
    expect(again.status).toBe('unchanged');
    expect(again.set.imported_at).toBe(first.set.imported_at);
    expect(d.prepare('SELECT COUNT(*) AS n FROM tasks').get()).toEqual({ n: 1 });
  });

  it('a bad file leaves the store untouched', async () => {
    const d = db();
    await importTaskFile(d, writeJsonl([makeTask(0), makeTask(1)]), 'pool');
    const before = d.prepare('SELECT * FROM tasks ORDER BY task_index').all();
    const bad = writeJsonl([makeTask(0), makeTask(1), makeTask(2, { frames: [{ image_id: 'x', lat: 91, lon: 0 }] })]);
    await expect(importTaskFile(d, bad, 'pool', { replace: true })).rejects.toThrow(/:3, field frames.0.lat: expected a latitude/);
    await expect(importTaskFile(d, bad, 'other')).rejects.toThrow(/:3, field frames.0.lat/);
    expect(d.prepare('SELECT * FROM tasks ORDER BY task_index').all()).toEqual(before);
    expect(listTaskSets(d).map((s) => s.name)).toEqual(['pool']);
  });

  it('another file under a taken name needs --replace, which swaps the tasks', async () => {
    const d = db();
    await importTaskFile(d, writeJsonl([makeTask(0), makeTask(1)]), 'pool');
    const other = writeJsonl([makeTask(0, { country: 'France' })]);
    await expect(importTaskFile(d, other, 'pool')).rejects.toThrow(/--replace/);
    const r = await importTaskFile(d, other, 'pool', { replace: true });
    expect(r.status).toBe('replaced');
    expect(readTasks(d, 'pool').map((t) => t.country)).toEqual(['France']);
    expect(d.prepare('SELECT COUNT(*) AS n FROM tasks').get()).toEqual({ n: 1 });
  });

  it('rejects a set name that is not a plain word', async () => {
    await expect(importTaskFile(db(), writeJsonl([makeTask(0)]), '../x')).rejects.toThrow(/--name/);
  });
});

describe('workspace', () => {
  it('resolves --workspace, then GEOLAB_HOME, then XDG_DATA_HOME, then ~/.local/share', () => {
    expect(workspaceDir('/a/b', { GEOLAB_HOME: '/c' })).toBe('/a/b');
    expect(workspaceDir(undefined, { GEOLAB_HOME: '/c', XDG_DATA_HOME: '/d' })).toBe('/c');
    expect(workspaceDir(undefined, { XDG_DATA_HOME: '/d' })).toBe('/d/geolab');
    expect(workspaceDir(undefined, {})).toMatch(/\.local\/share\/geolab$/);
  });

  it('a new workspace is seeded with the demo tasks once', async () => {
    const dir = tempDir();
    const ws = await openWorkspace(dir);
    expect(ws.created).toBe(true);
    const s = summarize(ws);
    expect(s.task_sets[0]?.name).toBe('demo');
    expect(s.tasks).toBeGreaterThanOrEqual(24);
    ws.close();
    const again = await openWorkspace(dir);
    expect(again.created).toBe(false);
    expect(summarize(again).task_sets).toHaveLength(1);
    again.close();
  });
});

describe('run kinds', () => {
  it('counts a sweep as a sweep wherever it writes, and runs under runs/ as the agent\'s', async () => {
    const dir = tempDir();
    const ws = await openWorkspace(dir);
    try {
      const { ensureEvalRun, runKinds, describeRuns } = await import('../../src/store/eval-runs.js');
      const before = runKinds(ws.db, ws.paths.runs);
      ensureEvalRun(ws.db, { id: 'sweep-1', root: join(tempDir(), 'sweeps', 'sweep-1'), config: { sweep: '/elsewhere/sweeps' } });
      ensureEvalRun(ws.db, { id: 'agent-1', root: join(ws.paths.runs, 'agent-1') });
      const after = runKinds(ws.db, ws.paths.runs);
      expect(after).toEqual({ ...before, sweep: before.sweep + 1, agent: before.agent + 1 });
      expect(describeRuns(after)).toContain('1 sweep');
    } finally {
      ws.close();
    }
  });
});
