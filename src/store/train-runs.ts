/**
 * Training runs of the workspace: one row per run name, written by `train launch`, updated by stop,
 * resume and whoever derives a status (watch, Home). Metrics are not copied here: they stay in the
 * run's progress.jsonl and log, which the row points at through output_dir.
 */
import type { Db } from './db.js';

export type TrainRunStatus = 'running' | 'stopped' | 'crashed' | 'done';

export interface TrainRunRow {
  name: string;
  /** The config file as the user named it (absolute). */
  config_path: string;
  config_json: string;
  output_dir: string;
  status: TrainRunStatus;
  /** The trainer's pid, which leads its process group. */
  pid: number | null;
  /** The local environment server's pid (its own group), when launch started one. */
  env_pid: number | null;
  started_at: string;
  ended_at: string | null;
  last_step: number | null;
  max_steps: number;
}

/** Adds the run, or replaces a run of that name that is not running (a fresh launch). */
export function saveTrainRun(db: Db, row: TrainRunRow): void {
  db.prepare(
    `INSERT OR REPLACE INTO train_runs (name, config_path, config_json, output_dir, status, pid, env_pid, started_at, ended_at, last_step, max_steps)
     VALUES (@name, @config_path, @config_json, @output_dir, @status, @pid, @env_pid, @started_at, @ended_at, @last_step, @max_steps)`,
  ).run(row);
}

export function getTrainRun(db: Db, name: string): TrainRunRow | undefined {
  return db.prepare('SELECT * FROM train_runs WHERE name = ?').get(name) as TrainRunRow | undefined;
}

/** Newest first. */
export function listTrainRuns(db: Db): TrainRunRow[] {
  return db.prepare('SELECT * FROM train_runs ORDER BY started_at DESC, name').all() as TrainRunRow[];
}

export function updateTrainRun(db: Db, name: string, patch: Partial<Omit<TrainRunRow, 'name'>>): void {
  const fields = Object.keys(patch).filter((k) => /^[a-z_]+$/.test(k));
  if (fields.length === 0) return;
  db.prepare(`UPDATE train_runs SET ${fields.map((f) => `${f} = @${f}`).join(', ')} WHERE name = @name`).run({ ...patch, name });
}
