/** Where a workspace lives (DESIGN §10): --workspace, else $GEOLAB_HOME, else the user's data dir. */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export function workspaceDir(explicit?: string, env: NodeJS.ProcessEnv = process.env): string {
  if (explicit) return resolve(explicit);
  if (env.GEOLAB_HOME) return resolve(env.GEOLAB_HOME);
  const dataHome = env.XDG_DATA_HOME || join(homedir(), '.local', 'share');
  return join(dataHome, 'geolab');
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
