/** Eval runs: the `eval_runs` rows episodes point at, one per recorded or imported run. */
import { UsageError } from '../core/errors.js';
import type { Db } from './db.js';

// A run id names a directory under runs/: nothing that could climb out of it or hide.
const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

export function assertRunId(id: string): void {
  if (!RUN_ID.test(id)) throw new UsageError(`run id "${id}": expected letters, digits, "_", "-", "." (at most 128)`);
}

/** Adds the run unless it exists: a resumed run keeps its first name, root and config. */
export interface EvalRun {
  id: string;
  /** Default: the id. */
  name?: string;
  /** The directory holding the run's episodes.jsonl (and run.json when geolab recorded it). */
  root: string;
  config?: Record<string, unknown>;
  createdAt?: string;
}

export function ensureEvalRun(db: Db, run: EvalRun): void {
  db.prepare('INSERT OR IGNORE INTO eval_runs (id, name, root, config_json, created_at) VALUES (?, ?, ?, ?, ?)').run(
    run.id,
    run.name ?? run.id,
    run.root,
    JSON.stringify(run.config ?? {}),
    run.createdAt ?? new Date().toISOString(),
  );
}
