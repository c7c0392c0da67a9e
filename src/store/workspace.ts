/** Where a workspace lives (DESIGN §10): --workspace, else $GEOLAB_HOME, else the user's data dir. */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { UsageError } from '../core/errors.js';

export function workspaceDir(explicit?: string, env: NodeJS.ProcessEnv = process.env): string {
  if (explicit) return resolve(explicit);
  if (env.GEOLAB_HOME) return resolve(env.GEOLAB_HOME);
  const dataHome = env.XDG_DATA_HOME || join(homedir(), '.local', 'share');
  return join(dataHome, 'geolab');
}

/** How long a command waits for another geolab process's write on the same workspace to finish. */
export const DEFAULT_BUSY_TIMEOUT_S = 10;

/** The wait before "workspace is busy": $GEOLAB_BUSY_TIMEOUT seconds, else the default. */
export function busyTimeoutS(env: NodeJS.ProcessEnv = process.env): number {
  const text = env.GEOLAB_BUSY_TIMEOUT;
  if (text === undefined || text.trim() === '') return DEFAULT_BUSY_TIMEOUT_S;
  const seconds = Number(text);
  if (!Number.isFinite(seconds) || seconds < 0) {
    throw new UsageError(`GEOLAB_BUSY_TIMEOUT expects seconds >= 0, got "${text}"`);
  }
  return seconds;
}

/** Files of a workspace, all under one directory. */
export function workspacePaths(dir: string) {
  return {
    dir,
    database: join(dir, 'geolab.db'),
    images: join(dir, 'images'),
    panoramas: join(dir, 'panos'),
    runs: join(dir, 'runs'),
    /** The TUI's last "Watch a model" form (model, endpoint, key variable NAME; never a key). */
    watchSettings: join(dir, 'watch.json'),
  };
}
