/** Task sets in the workspace: transactional, idempotent import of a task file, and reads back. */
import { GeolabError, InputError } from '../core/errors.js';
import { TaskSchema, truthOf, type Task } from '../core/tasks.js';
import { loadTasksStrict } from '../tasks/load.js';
import { fileSha256 } from '../files.js';
import type { Db } from './db.js';

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
    if (options.panosDir === undefined || options.panosDir === existing.panos_dir) return { status: 'unchanged', set: existing };
    db.prepare('UPDATE task_sets SET panos_dir = ? WHERE id = ?').run(options.panosDir, existing.id);
    return { status: 'unchanged', set: getTaskSet(db, name) as TaskSetRow };
  }
  if (existing && !options.replace) {
    throw new GeolabError(`task set "${name}" already holds another file (${existing.source_path}); pass --replace to overwrite it`);
  }
  const { tasks } = await loadTasksStrict(file);
  const nFrames = tasks.reduce((sum, t) => sum + t.frames.length, 0);
  const insertTask = db.prepare(
    `INSERT INTO tasks (set_id, task_index, task_id, country, sequence_id, n_frames, start_lat, start_lon, json)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const write = db.transaction(() => {
    if (existing) db.prepare('DELETE FROM task_sets WHERE id = ?').run(existing.id);
    const { lastInsertRowid } = db
      .prepare(
        'INSERT INTO task_sets (name, source_path, source_sha256, n_tasks, n_frames, imported_at, panos_dir) VALUES (?, ?, ?, ?, ?, ?, ?)',
      )
      .run(name, file, sha256, tasks.length, nFrames, new Date().toISOString(), options.panosDir ?? existing?.panos_dir ?? null);
    for (const task of tasks) {
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
        JSON.stringify(task),
      );
    }
  });
  write();
  return { status: existing ? 'replaced' : 'imported', set: getTaskSet(db, name) as TaskSetRow };
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
  return rows.map((row) => TaskSchema.parse(JSON.parse(row.json)));
}
