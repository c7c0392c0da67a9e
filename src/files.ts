/** Small file checks shared by the loaders and caches. */
import { statSync } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { InputError, UsageError } from './core/errors.js';

/** Throws an InputError naming the file unless it is a readable regular file. */
export async function assertReadableFile(file: string, what: string): Promise<void> {
  try {
    const info = await stat(file);
    if (!info.isFile()) throw new InputError('not a regular file', { file });
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw new InputError(`cannot read ${what}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, { file });
  }
}

export async function fileExists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * A panorama cache directory as an absolute path. It may not exist yet (a fetch creates it), but
 * something other than a directory there is bad usage.
 */
export function checkedPanosDir(dir: string, what: string): string {
  const path = resolve(dir);
  const info = statSync(path, { throwIfNoEntry: false });
  if (info && !info.isDirectory()) throw new UsageError(`${what} ${path} is not a directory`);
  return path;
}
