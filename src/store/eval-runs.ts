/**
 * Runs: the `eval_runs` rows episodes point at, one per recorded or imported run. The table's name
 * is older than the eval harness; what a run is (an agent's, the person's play, an import) is told
 * by runKinds.
 */
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

/** The one run every episode a person plays in the TUI is recorded into. */
export const PLAY_RUN_ID = 'human-play';

/** Runs by what made them; the eval harness and training add their kinds when they exist. */
export interface RunKinds {
  /** `geolab agent` runs, one per invocation, recorded under the workspace's runs/. */
  agent: number;
  /** The person's play run (0 or 1). */
  play: number;
  /** `geolab eval run` sweeps' runs (their config names the sweep's folder), wherever they write. */
  sweep: number;
  /** Runs imported from elsewhere (the demo's included). */
  imported: number;
}

/** Each kind of run there is, by its name: `3 agent · 1 play · 1 imported`; 'none' without any. */
export function describeRuns(runs: RunKinds): string {
  const kinds = (['agent', 'sweep', 'play', 'imported'] as const).filter((kind) => runs[kind] > 0);
  return kinds.map((kind) => `${runs[kind]} ${kind}`).join(' · ') || 'none';
}

/** Recorded runs live under `runsDir`, sweeps say so in their config; everything else came in through an import. */
export function runKinds(db: Db, runsDir: string): RunKinds {
  const prefix = runsDir.endsWith('/') ? runsDir : `${runsDir}/`;
  const row = db
    .prepare(
      `SELECT
         COALESCE(SUM(id = @play), 0) AS play,
         COALESCE(SUM(id <> @play AND sweep), 0) AS sweep,
         COALESCE(SUM(id <> @play AND NOT sweep AND substr(root, 1, length(@prefix)) = @prefix), 0) AS agent,
         COALESCE(SUM(id <> @play AND NOT sweep AND (root IS NULL OR substr(root, 1, length(@prefix)) <> @prefix)), 0) AS imported
       FROM (SELECT id, root, json_extract(config_json, '$.sweep') IS NOT NULL AS sweep FROM eval_runs)`,
    )
    .get({ play: PLAY_RUN_ID, prefix }) as RunKinds;
  return { agent: row.agent, sweep: row.sweep, play: row.play, imported: row.imported };
}
