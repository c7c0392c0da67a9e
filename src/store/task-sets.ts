/**
 * Task sets in the workspace: transactional, idempotent import of a task file, and reads back. A set
 * is versioned by content (docs/splits.md, Versions): replacing it keeps the old version's rows in
 * `task_set_versions`, so an episode played on it still reads the task it played.
 */
import { GeolabError, InputError } from '../core/errors.js';
import { parseTask, truthOf, type Task } from '../core/tasks.js';
import { loadTasksStrict } from '../tasks/load.js';
import { fileSha256 } from '../files.js';
import type { Db } from './db.js';
import { sha256Hex } from './images.js';

export interface TaskSetRow {
  id: number;
  name: string;
  source_path: string;
  source_sha256: string;
  n_tasks: number;
  n_frames: number;
  imported_at: string;
  /** The set's own panorama cache (`tasks import --panos`), absolute; null: the workspace's. */
  panos_dir: string | null;
}

export type ImportStatus = 'imported' | 'unchanged' | 'replaced';

export interface ImportResult {
  status: ImportStatus;
  set: TaskSetRow;
  /** The content version (sha256) the set holds now. */
  version: string;
}

/**
 * Loads a task file into the store as the named set. The file is read and validated first; then one
 * transaction writes it, so a bad file leaves the store untouched. Re-importing the same bytes under
 * the same name is a no-op (bar a new `panosDir`); other bytes under a taken name need `replace`.
 */
export async function importTaskFile(
  db: Db,
  file: string,
  name: string,
  options: { replace?: boolean; panosDir?: string } = {},
): Promise<ImportResult> {
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(name)) {
    throw new InputError('expected a name of letters, digits, "_", "-", "." (at most 64)', { field: '--name' });
  }
  const sha256 = await fileSha256(file, 'task file');
  const existing = getTaskSet(db, name);
  if (existing && existing.source_sha256 === sha256) {
    const version = currentVersion(db, existing);
    if (options.panosDir === undefined || options.panosDir === existing.panos_dir) return { status: 'unchanged', set: existing, version };
    db.prepare('UPDATE task_sets SET panos_dir = ? WHERE id = ?').run(options.panosDir, existing.id);
    return { status: 'unchanged', set: getTaskSet(db, name) as TaskSetRow, version };
  }
  if (existing && !options.replace) {
    throw new GeolabError(`task set "${name}" already holds another file (${existing.source_path}); pass --replace to overwrite it`);
  }
  const { tasks } = await loadTasksStrict(file);
  const nFrames = tasks.reduce((sum, t) => sum + t.frames.length, 0);
  const rows = tasks.map((task) => JSON.stringify(task));
  const version = versionSha256(rows);
  const importedAt = new Date().toISOString();
  const insertTask = db.prepare(
    `INSERT INTO tasks (set_id, task_index, task_id, country, sequence_id, n_frames, start_lat, start_lon, json)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const write = db.transaction(() => {
    if (existing) {
      archiveCurrentVersion(db, existing, importedAt);
      db.prepare('DELETE FROM task_sets WHERE id = ?').run(existing.id);
    }
    const { lastInsertRowid } = db
      .prepare(
        'INSERT INTO task_sets (name, source_path, source_sha256, n_tasks, n_frames, imported_at, panos_dir) VALUES (?, ?, ?, ?, ?, ?, ?)',
      )
      .run(name, file, sha256, tasks.length, nFrames, importedAt, options.panosDir ?? existing?.panos_dir ?? null);
    tasks.forEach((task, i) => {
      const truth = truthOf(task);
      insertTask.run(
        lastInsertRowid,
        task.task_index,
        task.task_id,
        task.country ?? null,
        task.sequence_id ?? null,
        task.frames.length,
        truth.lat,
        truth.lon,
        rows[i],
      );
    });
    recordCurrentVersion(db, { set_name: name, sha256: version, source_path: file, n_tasks: tasks.length, imported_at: importedAt });
  });
  write.immediate();
  return { status: existing ? 'replaced' : 'imported', set: getTaskSet(db, name) as TaskSetRow, version };
}

export function getTaskSet(db: Db, name: string): TaskSetRow | undefined {
  return db.prepare('SELECT * FROM task_sets WHERE name = ?').get(name) as TaskSetRow | undefined;
}

export function listTaskSets(db: Db): TaskSetRow[] {
  return db.prepare('SELECT * FROM task_sets ORDER BY name').all() as TaskSetRow[];
}

/** The tasks of a set in task_index order. */
export function readTasks(db: Db, setName: string): Task[] {
  const set = getTaskSet(db, setName);
  if (!set) throw new GeolabError(`no task set named "${setName}" in this workspace`);
  const rows = db.prepare('SELECT json FROM tasks WHERE set_id = ? ORDER BY task_index').all(set.id) as { json: string }[];
  return rows.map((row) => parseTask(JSON.parse(row.json)));
}

/** One content version of a task set; `replaced_at` null: the version the set holds now. */
export interface TaskSetVersion {
  set_name: string;
  sha256: string;
  source_path: string;
  n_tasks: number;
  imported_at: string;
  replaced_at: string | null;
}

/** A set's canonical rows (each task's stored JSON in task_index order) as one JSONL text. */
function canonicalJsonl(rows: readonly string[]): string {
  return rows.map((row) => row + '\n').join('');
}

/** The content version of a set's rows: the sha256 of their canonical JSONL (docs/splits.md, Versions). */
export function versionSha256(rows: readonly string[]): string {
  return sha256Hex(Buffer.from(canonicalJsonl(rows)));
}

/** The version of a set's tasks as they would be stored: what `writeSplits` records in the manifest. */
export function tasksVersion(tasks: readonly Task[]): string {
  return versionSha256(tasks.map((task) => JSON.stringify(parseTask(task))));
}

function storedRows(db: Db, setId: number): string[] {
  return db.prepare('SELECT json FROM tasks WHERE set_id = ? ORDER BY task_index').pluck().all(setId) as string[];
}

function recordCurrentVersion(db: Db, v: Omit<TaskSetVersion, 'replaced_at'>): void {
  db.prepare(
    `INSERT INTO task_set_versions (set_name, sha256, source_path, n_tasks, imported_at, replaced_at, tasks_jsonl)
     VALUES (@set_name, @sha256, @source_path, @n_tasks, @imported_at, NULL, NULL)
     ON CONFLICT (set_name, sha256) DO UPDATE SET source_path = excluded.source_path, n_tasks = excluded.n_tasks,
       imported_at = excluded.imported_at, replaced_at = NULL, tasks_jsonl = NULL`,
  ).run(v);
}

/**
 * The version a set holds now. A set imported before versions existed (migration 6) gets its
 * version recorded here, on first use, as the one it held then.
 */
export function currentVersion(db: Db, set: TaskSetRow): string {
  const known = db.prepare('SELECT sha256 FROM task_set_versions WHERE set_name = ? AND replaced_at IS NULL').pluck().get(set.name) as string | undefined;
  if (known) return known;
  const sha256 = versionSha256(storedRows(db, set.id));
  recordCurrentVersion(db, { set_name: set.name, sha256, source_path: set.source_path, n_tasks: set.n_tasks, imported_at: set.imported_at });
  return sha256;
}

/** Before a set is replaced: its current version keeps its rows, so episodes played on it still read them. */
function archiveCurrentVersion(db: Db, set: TaskSetRow, replacedAt: string): void {
  const sha256 = currentVersion(db, set);
  db.prepare('UPDATE task_set_versions SET replaced_at = ?, tasks_jsonl = ? WHERE set_name = ? AND sha256 = ?').run(
    replacedAt,
    canonicalJsonl(storedRows(db, set.id)),
    set.name,
    sha256,
  );
}

/** Every version of a set, oldest first (the current one has `replaced_at` null). */
export function taskSetVersions(db: Db, name: string): TaskSetVersion[] {
  const set = getTaskSet(db, name);
  if (set) currentVersion(db, set);
  return db
    .prepare('SELECT set_name, sha256, source_path, n_tasks, imported_at, replaced_at FROM task_set_versions WHERE set_name = ? ORDER BY imported_at, sha256')
    .all(name) as TaskSetVersion[];
}

/**
 * The tasks of one version of a set, in task_index order: the current one from `tasks`, a replaced
 * one from its kept rows. `sha256` null (an episode saved before versions existed) reads the set's
 * first recorded version: the one it held when the workspace was migrated.
 */
export function readTasksAt(db: Db, setName: string, sha256: string | null): Task[] {
  const versions = taskSetVersions(db, setName);
  const wanted = sha256 === null ? versions[0] : versions.find((v) => v.sha256 === sha256);
  if (!wanted) {
    if (versions.length === 0) throw new GeolabError(`no task set named "${setName}" in this workspace`);
    throw new GeolabError(`task set "${setName}" has no version ${sha256}: it has ${versions.map((v) => v.sha256.slice(0, 12)).join(', ')}`);
  }
  if (wanted.replaced_at === null) return readTasks(db, setName);
  const jsonl = db.prepare('SELECT tasks_jsonl FROM task_set_versions WHERE set_name = ? AND sha256 = ?').pluck().get(setName, wanted.sha256) as string;
  return jsonl
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => parseTask(JSON.parse(line)));
}

/**
 * The version of set `split` an episode of task `index` (`taskId`, when recorded) was played on, as
 * it is saved: the current one, unless its task at that place is another task and a replaced
 * version holds the one played (newest first). Null when `split` is no task set of the workspace.
 */
export function versionPlayed(db: Db, split: string, index: number, taskId: string | null): string | null {
  const s = playedStatements(db);
  const set = s.set.get(split) as TaskSetRow | undefined;
  if (!set) return null;
  const current = (s.current.get(split) as string | undefined) ?? currentVersion(db, set);
  if (!taskId || s.taskIdAt.get(set.id, index) === taskId) return current;
  for (const version of s.replaced.all(split) as { sha256: string; tasks_jsonl: string }[]) {
    const line = version.tasks_jsonl.split('\n')[index];
    if (line && (JSON.parse(line) as { task_id?: unknown }).task_id === taskId) return version.sha256;
  }
  return current;
}

// Prepared once per connection: saving an episode asks for its version, and an import saves thousands a second.
const played = new WeakMap<Db, ReturnType<typeof preparePlayed>>();

function playedStatements(db: Db) {
  let s = played.get(db);
  if (!s) played.set(db, (s = preparePlayed(db)));
  return s;
}

function preparePlayed(db: Db) {
  return {
    set: db.prepare('SELECT * FROM task_sets WHERE name = ?'),
    current: db.prepare('SELECT sha256 FROM task_set_versions WHERE set_name = ? AND replaced_at IS NULL').pluck(),
    // A stored set's task_index runs from 0 without gaps (the loader refuses others): task N is task_index N.
    taskIdAt: db.prepare('SELECT task_id FROM tasks WHERE set_id = ? AND task_index = ?').pluck(),
    replaced: db.prepare('SELECT sha256, tasks_jsonl FROM task_set_versions WHERE set_name = ? AND replaced_at IS NOT NULL ORDER BY replaced_at DESC'),
  };
}
