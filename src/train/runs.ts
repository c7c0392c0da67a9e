/**
 * Training runs as the workspace knows them: a name finds its row and its launch record; a look at
 * a run writes back what was derived (status, last step, when it ended) and stops an environment
 * server whose trainer is gone.
 */
import { existsSync, readdirSync, statSync, type Dirent } from 'node:fs';
import { join, resolve } from 'node:path';
import { InputError, UsageError } from '../core/errors.js';
import { isRecord } from '../core/values.js';
import { readRegularFile } from '../files.js';
import type { Db } from '../store/db.js';
import { getTrainRun, listTrainRuns, updateTrainRun, type TrainRunRow } from '../store/train-runs.js';
import { CONFIG_FILE } from './config-file.js';
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

/**
 * A run by its name in the workspace, or by its output directory (which holds launch.json). A name
 * that finds neither is refused naming every run: the launched ones with their status, and, with
 * `trainDir` (the workspace's train folder), the ones `train init` wrote there that never launched.
 */
export function resolveRun(db: Db, ref: string, trainDir?: string): ResolvedRun {
  const row = getTrainRun(db, ref);
  const outputDir = row?.output_dir ?? (isRunDir(ref) ? resolve(ref) : undefined);
  if (!outputDir) {
    const launched = listTrainRuns(db);
    const initialised = trainDir ? initialisedRuns(trainDir, new Set(launched.map((r) => r.name))) : [];
    const named = initialised.find((r) => r.name === ref);
    if (named) throw new UsageError(`training run "${ref}" was initialised but never launched: \`geolab train launch ${named.config}\``);
    const names = [...launched.map((r) => `${r.name} (${r.status})`), ...initialised.map((r) => `${r.name} (initialised, not launched)`)];
    const none = trainDir ? 'none initialised or launched yet: `geolab train init`' : 'none launched yet';
    throw new UsageError(`no training run "${ref}" in this workspace (${names.length ? `runs: ${names.join(', ')}` : none}); or give a run's output directory`);
  }
  const launch = readLaunchRecord(outputDir);
  if (!launch) throw new UsageError(`${join(outputDir, LAUNCH_FILE)} is missing: the run was never launched from there`);
  return { launch, row: row ?? getTrainRun(db, launch.name), outputDir };
}

/** A run `train init` wrote under the workspace's train folder: its name and config file. */
export interface InitialisedRun {
  name: string;
  config: string;
}

/**
 * The runs under `trainDir` (one folder each holding config.json, as `train init` makes them) that
 * are not among `launched`, by folder name; the config's own name when it has one.
 */
export function initialisedRuns(trainDir: string, launched: ReadonlySet<string>): InitialisedRun[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(trainDir, { withFileTypes: true });
  } catch {
    return [];
  }
  const runs: InitialisedRun[] = [];
  for (const entry of entries.filter((e) => e.isDirectory()).sort((a, b) => a.name.localeCompare(b.name))) {
    const config = join(trainDir, entry.name, CONFIG_FILE);
    if (!existsSync(config)) continue;
    const name = configName(config) ?? entry.name;
    if (!launched.has(name) && !launched.has(entry.name)) runs.push({ name, config });
  }
  return runs;
}

/** The `name` a config file gives its run, or undefined when it cannot say (a config is checked where it is used). */
function configName(file: string): string | undefined {
  try {
    // A regular file of a config's size only: a FIFO named config.json is not waited on.
    const value: unknown = JSON.parse(readRegularFile(file, 2 ** 20, 'a training config').toString('utf8').replace(/^\uFEFF/, ''));
    const name = isRecord(value) ? value.name : undefined;
    return typeof name === 'string' && name ? name : undefined;
  } catch {
    return undefined;
  }
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
