/** Small file checks shared by the loaders and caches. */
import { constants, accessSync, mkdirSync, statSync } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
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

/**
 * Creates a directory and its missing parents, and checks that it is writable; otherwise throws an
 * InputError naming it, what it was for and `hint`. Node's recursive mkdir retries forever where a
 * parent exists but refuses children (`/proc/nope`), so the parents are walked here, one mkdir each.
 */
export function ensureWritableDirectory(dir: string, what: string, hint = ''): void {
  const target = resolve(dir);
  const fail = (reason: string) => new InputError(`cannot use this as the ${what}: ${reason}${hint && `; ${hint}`}`, { file: dir });
  const missing: string[] = [];
  for (let at = target; ; at = dirname(at)) {
    const where = at === target ? '' : `${at}: `;
    try {
      if (!statSync(at).isDirectory()) throw fail(`${where}not a directory`);
      break;
    } catch (err) {
      if (err instanceof InputError) throw err;
      // ENOTDIR: a file stands somewhere above; walking up names it.
      const code = (err as NodeJS.ErrnoException).code;
      if ((code !== 'ENOENT' && code !== 'ENOTDIR') || dirname(at) === at) throw fail(where + describeError(err));
      missing.push(at);
    }
  }
  for (const at of missing.reverse()) {
    try {
      mkdirSync(at);
    } catch (err) {
      // Another process may create the same directory at the same moment.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || !isDirectory(at)) throw fail(`cannot create ${at}: ${describeError(err)}`);
    }
  }
  try {
    accessSync(target, constants.W_OK | constants.X_OK);
  } catch (err) {
    throw fail(`not writable: ${describeError(err)}`);
  }
}

/** "ENOENT (no such file or directory)" from Node's "ENOENT: no such file or directory, mkdir '/x'". */
function describeError(err: unknown): string {
  const { code, message } = err as NodeJS.ErrnoException;
  const detail = /^[A-Z]+: ([^,]+)/.exec(message)?.[1];
  return code ? `${code}${detail ? ` (${detail})` : ''}` : message;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
