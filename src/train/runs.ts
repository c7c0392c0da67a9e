/**
 * Training runs as the workspace knows them: a name finds its row and its launch record; a look at
 * a run writes back what was derived (status, last step, when it ended) and stops an environment
 * server whose trainer is gone.
 */
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { InputError, UsageError } from '../core/errors.js';
import type { Db } from '../store/db.js';
import { getTrainRun, listTrainRuns, updateTrainRun, type TrainRunRow } from '../store/train-runs.js';
import { LAUNCH_FILE, readLaunchRecord, type LaunchRecord } from './launch.js';
import { stopRun, type StopResult } from './stop.js';
import type { RunLine } from './run-line.js';
import { RunFollower, stopOrphanedEnvServer, type RunState } from './watch.js';

export interface ResolvedRun {
  launch: LaunchRecord;
  /** Absent for a run folder named directly that this workspace did not launch. */
  row?: TrainRunRow;
  outputDir: string;
}

/** A run by its name in the workspace, or by its output directory (which holds launch.json). */
export function resolveRun(db: Db, ref: string): ResolvedRun {
  const row = getTrainRun(db, ref);
  const outputDir = row?.output_dir ?? (isRunDir(ref) ? resolve(ref) : undefined);
  if (!outputDir) {
    const names = listTrainRuns(db).map((r) => r.name);
    throw new UsageError(`no training run "${ref}" in this workspace (${names.length ? `runs: ${names.join(', ')}` : 'none launched yet'}); or give a run's output directory`);
  }
  const launch = readLaunchRecord(outputDir);
  if (!launch) throw new UsageError(`${join(outputDir, LAUNCH_FILE)} is missing: the run was never launched from there`);
  return { launch, row: row ?? getTrainRun(db, launch.name), outputDir };
}

function isRunDir(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory() && existsSync(join(path, LAUNCH_FILE));
}

/** A follower whose derived status reads the row's recorded one (stopped is only known from there). */
export function followRun(db: Db, run: ResolvedRun): RunFollower {
  return new RunFollower(run.launch, () => (run.row ? getTrainRun(db, run.row.name)?.status : undefined));
}

/** Writes what a look at the run derived back to its row; an ended run's environment server is stopped. */
export function recordState(db: Db, run: ResolvedRun, state: RunState): void {
  if (state.status !== 'running') stopOrphanedEnvServer(run.launch);
  if (!run.row) return;
  const current = getTrainRun(db, run.row.name);
  if (!current || current.pid !== run.launch.pid) return;
  const ended = state.status !== 'running';
  updateTrainRun(db, current.name, {
    status: state.status,
    last_step: state.snapshot.step,
    ...(ended && !current.ended_at ? { ended_at: new Date().toISOString() } : {}),
  });
}

/**
 * A run recorded as running, looked at now: its status derived and written back. A launch.json that
 * is refused (docs/reliability.md) leaves the row as it was: lists still show the run, and
 * `train watch`, `stop` and `resume` name the problem.
 */
function lookAt(db: Db, row: TrainRunRow): RunState | undefined {
  try {
    const launch = readLaunchRecord(row.output_dir);
    if (!launch) return undefined;
    const run = { launch, row, outputDir: row.output_dir };
    const state = followRun(db, run).poll();
    recordState(db, run, state);
    return state;
  } catch (err) {
    if (err instanceof InputError) return undefined;
    throw err;
  }
}

/** `train stop` for the CLI and the Train screen: the signals, then the run recorded as stopped. */
export async function stopTrainRun(
  db: Db,
  run: ResolvedRun,
  options: Parameters<typeof stopRun>[1],
): Promise<StopResult & { state: RunState }> {
  const result = await stopRun(run.launch, options);
  if (result.endedBy && run.row) updateTrainRun(db, run.row.name, { status: 'stopped' });
  const state = followRun(db, run).poll();
  recordState(db, run, state);
  return { ...result, state };
}

/**
 * Every run of the workspace as lists show it. Only runs recorded as running are looked at (their
 * logs read): an ended run's row already holds how it ended, and a long run's log is megabytes.
 */
export function runLines(db: Db): RunLine[] {
  return listTrainRuns(db).map((row) => {
    const state = row.status === 'running' ? lookAt(db, row) : undefined;
    return state
      ? { name: state.name, status: state.status, step: state.snapshot.step, max_steps: state.snapshot.max_steps }
      : { name: row.name, status: row.status, step: row.last_step, max_steps: row.max_steps };
  });
}
