/**
 * The one way a split reaches the disk, for `geolab splits build` and the TUI's Splits screen alike:
 * both files and the manifest written atomically together, then imported into the workspace as the
 * task sets `NAME-eval` / `NAME-train` so they can be played and evaluated at once.
 */
import { join } from 'node:path';
import { GeolabError } from '../core/errors.js';
import type { Task } from '../core/tasks.js';
import { writeFilesAtomic } from '../files.js';
import type { Workspace } from '../store/index.js';
import { importTaskFile } from '../store/task-sets.js';
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

/** Refuses a result whose self-check failed; callers show `result.problems` before asking to write. */
export async function writeSplits(
  ws: Workspace,
  pool: SplitPool,
  result: SplitResult,
  options: SplitOptions,
  target: { outDir: string; name: string },
): Promise<WrittenSplits> {
  if (result.problems.length > 0) throw new GeolabError(`self-check failed: ${result.problems.join('; ')}`);
  const problem = splitNameProblem(target.name);
  if (problem) throw new GeolabError(problem);
  const evalJsonl = splitJsonl(result.eval);
  const trainJsonl = splitJsonl(result.train);
  const manifest = splitManifest(
    result,
    options,
    { pool: pool.path, poolSha256: pool.sha256, poolLeak: leakPotential(pool.tasks, options.bufferKm) },
    { evalJsonl, trainJsonl },
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
