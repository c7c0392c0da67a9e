/** Where a workspace lives (docs/architecture.md): --workspace, else $GEOLAB_HOME, else the user's data dir. */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { EXIT, GeolabError, ServiceError, UsageError } from '../core/errors.js';

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
    /** Training runs, one folder each (config.json, checkpoints, logs), as `geolab train init` makes them. */
    train: join(dir, 'train'),
    /** The TUI's last "Watch a model" form (model, endpoint, key variable NAME; never a key). */
    watchSettings: join(dir, 'watch.json'),
    /** Findings of this workspace's audit accepted on purpose (the TUI's and `geolab audit --workspace`'s). */
    auditBaseline: join(dir, 'audit-baseline.json'),
    /** The last workspace audit's counts, for Home (which must not run one). */
    lastAudit: join(dir, 'audit-last.json'),
    /** Tables the TUI writes out on request (the Eval board's `x`: eval-<time>.csv). */
    exports: join(dir, 'exports'),
  };
}

/**
 * SQLite refusing the workspace database, as a user can act on it: busy past the wait (another
 * process writing) is exit 3; unwritable, unopenable or damaged is exit 2. Undefined for anything
 * else. Recognised by name, so the CLI needs no SQLite to map it.
 */
export function workspaceError(err: unknown, dir: string): GeolabError | undefined {
  const { name, code, message } = (err ?? {}) as Record<string, unknown>;
  if (name !== 'SqliteError' || typeof code !== 'string') return undefined;
  if (/^SQLITE_(BUSY|LOCKED)/.test(code)) {
    return new ServiceError(
      `workspace is busy: another geolab process kept ${dir} locked past the ${busyTimeoutS()} s wait; ` +
        'try again when it is done (GEOLAB_BUSY_TIMEOUT sets the wait in seconds)',
    );
  }
  if (/^SQLITE_(READONLY|CANTOPEN|IOERR|FULL|NOTADB|CORRUPT|PERM|AUTH)/.test(code)) {
    return new GeolabError(`cannot use the workspace database ${workspacePaths(dir).database}: ${String(message)} (${code})`, EXIT.usage);
  }
  return undefined;
}
