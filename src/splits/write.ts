/**
 * The one way a split reaches the disk, for `geolab splits build` and the TUI's Splits screen alike:
 * both files and the manifest written atomically together, then imported into the workspace as the
 * task sets `NAME-eval` / `NAME-train` so they can be played and evaluated at once. A split is never
 * lost: a folder holding split files, or task sets of those names, are replaced only when asked
 * (docs/splits.md, Replacing a split), and a replaced task set keeps its old version readable.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { GeolabError } from '../core/errors.js';
import type { Task } from '../core/tasks.js';
import { writeFilesAtomic } from '../files.js';
import { countEpisodes } from '../store/episodes.js';
import type { Workspace } from '../store/index.js';
import { getTaskSet, importTaskFile, tasksVersion } from '../store/task-sets.js';
import type { SplitOptions, SplitResult } from './build.js';
import { leakPotential } from './leak.js';
import { splitJsonl, splitManifest, type SplitManifest } from './manifest.js';

const TASK_SET_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,58}$/;

/** Why `name` cannot name the task sets (it gains "-train", and a set name holds at most 64), or null. */
export function splitNameProblem(name: string): string | null {
  return TASK_SET_NAME.test(name) ? null : `cannot name the task sets after "${name}": use letters, digits, "_", "-", "." (at most 59)`;
}

export interface SplitPool {
  tasks: readonly Task[];
  /** Where the pool came from (a file, or a task set's source file), for the manifest. */
  path: string;
  sha256: string;
}

export interface WrittenSplits {
  manifest: SplitManifest;
  files: { eval: string; train: string; manifest: string };
  /** The workspace task sets now holding them. */
  sets: string[];
}

export const SPLIT_FILES = ['eval.jsonl', 'train.jsonl', 'manifest.json'] as const;

export interface SplitTarget {
  outDir: string;
  name: string;
  /** Replace split files already in `outDir` and task sets of these names (`--replace`). */
  replace?: boolean;
}

/** What a write to a target would replace: split files in its folder, and its task sets. */
export interface TakenTarget {
  files: string[];
  sets: { name: string; tasks: number; episodes: number }[];
}

/** The split files and task sets a write to `target` would replace (both empty: nothing). */
export function takenTargets(ws: Workspace, target: { outDir: string; name: string }): TakenTarget {
  const files = SPLIT_FILES.map((f) => join(target.outDir, f)).filter((f) => existsSync(f));
  const sets = (['eval', 'train'] as const).flatMap((side) => {
    const set = getTaskSet(ws.db, `${target.name}-${side}`);
    return set ? [{ name: set.name, tasks: set.n_tasks, episodes: countEpisodes(ws.db, { split: set.name }) }] : [];
  });
  return { files, sets };
}

/** Each thing a write would replace, in words: `eval.jsonl`, `world-eval (200 tasks, 3 episodes recorded on it)`. */
export function describeTaken(taken: TakenTarget): string[] {
  const episodes = (n: number) => (n === 0 ? 'no episodes recorded on it' : `${n} episode${n === 1 ? '' : 's'} recorded on it`);
  return [...taken.files, ...taken.sets.map((s) => `task set ${s.name} (${s.tasks} tasks, ${episodes(s.episodes)})`)];
}

/**
 * Refuses a target holding a split unless it is to be replaced, naming everything that would be
 * (exit 2, as `tasks import` refuses a taken name). Called before anything is written.
 */
export function refuseTakenTarget(ws: Workspace, target: SplitTarget): void {
  if (target.replace) return;
  const taken = describeTaken(takenTargets(ws, target));
  if (taken.length === 0) return;
  throw new GeolabError(
    `a split is already there and would be replaced: ${taken.join(', ')}; pass --replace to replace it ` +
      '(episodes keep reading the task set version they were played on), or choose another --out-dir / --name',
  );
}

/** Refuses a result whose self-check failed; callers show `result.problems` before asking to write. */
export async function writeSplits(ws: Workspace, pool: SplitPool, result: SplitResult, options: SplitOptions, target: SplitTarget): Promise<WrittenSplits> {
  if (result.problems.length > 0) throw new GeolabError(`self-check failed: ${result.problems.join('; ')}`);
  const problem = splitNameProblem(target.name);
  if (problem) throw new GeolabError(problem);
  refuseTakenTarget(ws, target);
  const evalJsonl = splitJsonl(result.eval);
  const trainJsonl = splitJsonl(result.train);
  const manifest = splitManifest(
    result,
    options,
    { pool: pool.path, poolSha256: pool.sha256, poolLeak: leakPotential(pool.tasks, options.bufferKm) },
    { evalJsonl, trainJsonl },
    {
      builtAt: new Date().toISOString(),
      taskSets: {
        eval: { name: `${target.name}-eval`, version: tasksVersion(result.eval) },
        train: { name: `${target.name}-train`, version: tasksVersion(result.train) },
      },
    },
  );
  const files = { eval: join(target.outDir, 'eval.jsonl'), train: join(target.outDir, 'train.jsonl'), manifest: join(target.outDir, 'manifest.json') };
  writeFilesAtomic([
    { file: files.eval, bytes: evalJsonl },
    { file: files.train, bytes: trainJsonl },
    { file: files.manifest, bytes: JSON.stringify(manifest, null, 2) + '\n' },
  ]);
  const sets: string[] = [];
  for (const side of ['eval', 'train'] as const) {
    const { set } = await importTaskFile(ws.db, files[side], `${target.name}-${side}`, { replace: true });
    sets.push(set.name);
  }
  return { manifest, files, sets };
}
