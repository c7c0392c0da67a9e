/** Small file checks shared by the loaders and caches. */
import { access, stat } from 'node:fs/promises';
import { InputError } from './core/errors.js';

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
