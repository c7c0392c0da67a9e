/**
 * Task set versions (docs/splits.md, Versions) on real SQLite files: a workspace made before versions
 * existed is migrated, its sets get the version they held then, and its episodes (no version
 * recorded) keep reading it after the set is replaced; new episodes record the version they played.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../src/store/db.js';
import { episodeSplitTasks, episodeTaskVersion, saveEpisode } from '../../src/store/episodes.js';
import { MIGRATIONS } from '../../src/store/migrations.js';
import { importTaskFile, readTasks, readTasksAt, taskSetVersions, tasksVersion, versionSha256 } from '../../src/store/task-sets.js';
import { failedRecord } from '../helpers/episodes.js';
import { makeTask, tempDir, writeJsonl } from '../helpers/fixtures.js';

const open: Db[] = [];
afterEach(() => open.splice(0).forEach((d) => d.open && d.close()));

/** The schema as it was before task set versions. */
const BEFORE_VERSIONS = MIGRATIONS.slice(0, MIGRATIONS.findIndex((m) => typeof m === 'string' && m.includes('CREATE TABLE task_set_versions')));

describe('task set versions', () => {
  it('gives a set imported before versions the version it held, and its old episodes keep reading it after a replace', async () => {
    const file = join(tempDir(), 'geolab.db');
    const old = openDatabase(file, BEFORE_VERSIONS);
    const tasks = [makeTask(0), makeTask(1)];
    old.prepare("INSERT INTO task_sets (id, name, source_path, source_sha256, n_tasks, n_frames, imported_at) VALUES (1, 'world-eval', 'a.jsonl', 'x', 2, 4, '2026-01-01T00:00:00.000Z')").run();
    const insertTask = old.prepare("INSERT INTO tasks (set_id, task_index, task_id, n_frames, start_lat, start_lon, json) VALUES (1, ?, ?, 2, 45, 7, ?)");
    tasks.forEach((t, i) => insertTask.run(i, t.task_id, JSON.stringify(t)));
    old.prepare("INSERT INTO episodes (episode_id, recorded_at, split, task_index, record_json) VALUES ('before', '2026-01-02T00:00:00.000Z', 'world-eval', 0, '{}')").run();
    old.close();

    const db = openDatabase(file);
    open.push(db);
    expect(episodeTaskVersion(db, 'before')).toBeNull();
    const first = taskSetVersions(db, 'world-eval');
    expect(first).toEqual([
      { set_name: 'world-eval', sha256: versionSha256(tasks.map((t) => JSON.stringify(t))), source_path: 'a.jsonl', n_tasks: 2, imported_at: '2026-01-01T00:00:00.000Z', replaced_at: null },
    ]);

    const other = [makeTask(0, { task_id: 'other-0' })];
    const replaced = await importTaskFile(db, writeJsonl(other), 'world-eval', { replace: true });
    expect(replaced.status).toBe('replaced');
    expect(replaced.version).toBe(tasksVersion(readTasks(db, 'world-eval')));
    expect(readTasks(db, 'world-eval').map((t) => t.task_id)).toEqual(['other-0']);
    // The episode saved before versions reads the version the set held when versions began.
    expect(episodeSplitTasks(db, 'before', 'world-eval')!.map((t) => t.task_id)).toEqual(['fx-00000', 'fx-00001']);
    expect(readTasksAt(db, 'world-eval', first[0]!.sha256).map((t) => t.task_id)).toEqual(['fx-00000', 'fx-00001']);

    // A new episode records the version it is played on; one whose task is only in the old version points there.
    saveEpisode(db, { ...failedRecord({ split: 'world-eval', index: 0, id: 'now' }), task: { split: 'world-eval', index: 0, sample: 0, task_id: 'other-0' } });
    expect(episodeTaskVersion(db, 'now')).toBe(replaced.version);
    saveEpisode(db, { ...failedRecord({ split: 'world-eval', index: 1, id: 'late' }), task: { split: 'world-eval', index: 1, sample: 0, task_id: 'fx-00001' } });
    expect(episodeTaskVersion(db, 'late')).toBe(first[0]!.sha256);
    expect(() => readTasksAt(db, 'world-eval', 'f'.repeat(64))).toThrow(/task set "world-eval" has no version f{64}: it has [0-9a-f]{12}, [0-9a-f]{12}/);
  });

  it('makes an old version current again when its content comes back, keeping one row per version', async () => {
    const db = openDatabase(join(tempDir(), 'geolab.db'));
    open.push(db);
    const a = writeJsonl([makeTask(0)]);
    const b = writeJsonl([makeTask(0, { task_id: 'b' })]);
    const v1 = (await importTaskFile(db, a, 's')).version;
    const v2 = (await importTaskFile(db, b, 's', { replace: true })).version;
    const back = await importTaskFile(db, writeJsonl([makeTask(0)]), 's', { replace: true });
    expect(back.version).toBe(v1);
    const current = Object.fromEntries(taskSetVersions(db, 's').map((v) => [v.sha256, v.replaced_at === null]));
    expect(current).toEqual({ [v1]: true, [v2]: false });
    expect(readTasksAt(db, 's', v2).map((t) => t.task_id)).toEqual(['b']);
  });
});
