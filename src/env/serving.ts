/**
 * `geolab env serve` as a job (docs/env.md): the embedded environment over task files or the
 * workspace's splits, started as an OpenEnv server. No printing here: the CLI prints where it
 * listens and waits for Ctrl-C; the TUI can start one the same way.
 */
import { ServiceError } from '../core/errors.js';
import { checkedPanosDir, ensureWritableDirectory } from '../files.js';
import { workspaceDir, workspacePaths } from '../store/workspace.js';
import type { EngineConfig } from './engine-config.js';
import { createEnvironment, type Environment } from './environment.js';
import { startServer, type RunningServer } from './server.js';
import type { ServedSplits } from './task-splits.js';

export interface ServingOptions {
  workspace?: string;
  /** Task files (`NAME=FILE` or FILE) served as splits; none: the workspace's splits, every one. */
  tasks?: string[];
  /** A panorama cache over the task sets' and the workspace's (`--panos`). */
  panos?: string;
  /** Fetch missing panoramas from Mapillary (needs a token). */
  fetch?: boolean;
  host: string;
  port: number;
  maxSessions: number;
  idleTimeoutS: number;
  /** Render worker threads; default one per core. */
  workers?: number;
  config: Partial<EngineConfig>;
  /** Operator log: what is missing when an episode cannot start or move. */
  log: (line: string) => void;
}

export interface Serving {
  server: RunningServer;
  env: Environment;
  served: ServedSplits;
  /** Whether missing panoramas are fetched from Mapillary. */
  fetching: boolean;
  /** Stops the server and the environment's render workers. */
  close(): Promise<void>;
}

/** The environment up and listening; a listen failure is a ServiceError saying what to change. */
export async function startServing(options: ServingOptions): Promise<Serving> {
  const panos = options.panos === undefined ? undefined : checkedPanosDir(options.panos, '--panos');
  const fetcher = options.fetch ? (await import('../tasks/mapillary.js')).mapillaryFromEnv() : undefined;
  const panoramasDir = panos ?? workspacePaths(workspaceDir(options.workspace)).panoramas;
  const served = options.tasks?.length ? await fileSplits(options.tasks, panoramasDir) : await allWorkspaceSplits(options.workspace, panos);
  // The demo's panoramas are drawn into the cache on first use: a cache that cannot be written is
  // refused now, not found out by the first session.
  if (!options.tasks?.length || !panos) {
    ensureWritableDirectory(panoramasDir, 'panorama cache', 'choose another with --panos or --workspace');
  }
  const env = createEnvironment({
    splits: served.splits,
    panoramasDir,
    splitPanoramas: served.panoramas,
    demo: served.demo,
    fetcher,
    log: options.log,
    workers: options.workers,
    config: options.config,
  });
  const { host, port } = options;
  const server = await startServer(env, { host, port, maxSessions: options.maxSessions, idleTimeoutS: options.idleTimeoutS }).catch(async (err: unknown) => {
    // The render workers would keep the process alive with nothing to serve.
    await env.close();
    throw listenError(err, host, port) ?? err;
  });
  return { server, env, served, fetching: fetcher !== undefined, close: async () => void (await Promise.all([server.close(), env.close()])) };
}

async function fileSplits(specs: string[], panoramasDir: string): Promise<ServedSplits> {
  const { loadSplitFiles } = await import('./task-splits.js');
  const splits = await loadSplitFiles(specs);
  return { splits, panoramas: new Map([...splits.keys()].map((name) => [name, panoramasDir])), demo: [] };
}

/** Without task files: the workspace's splits, every one loaded (docs/protocol.md). */
async function allWorkspaceSplits(workspace: string | undefined, panos: string | undefined): Promise<ServedSplits> {
  const [{ openWorkspace }, { workspaceSplits }] = await Promise.all([import('../store/index.js'), import('./task-splits.js')]);
  const ws = await openWorkspace(workspace);
  try {
    const served = await workspaceSplits(ws, panos);
    return served.load(served.sizes.keys());
  } finally {
    ws.close();
  }
}

/** Why the server could not listen, as a user can act on it; undefined for what is not expected. */
function listenError(err: unknown, host: string, port: number): ServiceError | undefined {
  const where = `${host}:${port}`;
  switch ((err as NodeJS.ErrnoException).code) {
    case 'EADDRINUSE':
      return new ServiceError(`cannot listen on ${where}: the port is in use; pick another with --port (0 picks a free one)`);
    case 'EADDRNOTAVAIL':
      return new ServiceError(`cannot listen on ${where}: ${host} is not an address of this machine; try --host 127.0.0.1`);
    case 'EACCES':
      return new ServiceError(`cannot listen on ${where}: permission denied (ports below 1024 need privileges); pick another with --port`);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
    case 'EAI_NONAME':
      return new ServiceError(`cannot listen on ${where}: --host ${host} is not an IP address or a name that resolves; try --host 127.0.0.1`);
    default:
      return undefined;
  }
}
