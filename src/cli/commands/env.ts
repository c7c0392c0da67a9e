/** `geolab env serve`: the embedded environment as an OpenEnv server. */
import { EXIT, ServiceError, UsageError } from '../../core/errors.js';
import type { ServedSplits } from '../../env/task-splits.js';
import { checkedPanosDir, ensureWritableDirectory } from '../../files.js';
import { workspaceDir, workspacePaths } from '../../store/workspace.js';
import type { GlobalOptions } from '../options.js';
import { printJson, printLine, warn } from '../output.js';

export interface ServeOptions extends GlobalOptions {
  tasks?: string[];
  panos?: string;
  fetch?: boolean;
  host: string;
  port: number;
  maxSessions: number;
  maxSteps: number;
  viewSize: number;
  curve: 'game' | 'mixture';
  mode: 'subtract' | 'multiply';
  showIdentity?: boolean;
  idleTimeout: number;
  workers?: number;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

export async function serveCommand(opts: ServeOptions): Promise<void> {
  if (!Number.isInteger(opts.port) || opts.port < 0 || opts.port > 65535) throw new UsageError('--port must be 0..65535');
  if (!Number.isInteger(opts.maxSessions) || opts.maxSessions < 1) throw new UsageError('--max-sessions must be an integer >= 1');
  if (!Number.isInteger(opts.maxSteps) || opts.maxSteps < 1) throw new UsageError('--max-steps must be an integer >= 1');
  if (!Number.isInteger(opts.viewSize) || opts.viewSize < 64 || opts.viewSize > 2048) {
    throw new UsageError('--view-size must be an integer in 64..2048');
  }
  if (opts.idleTimeout < 0) throw new UsageError('--idle-timeout must be >= 0 seconds');

  const { createEnvironment } = await import('../../env/environment.js');
  const { startServer } = await import('../../env/server.js');
  const panos = opts.panos === undefined ? undefined : checkedPanosDir(opts.panos, '--panos');
  const fetcher = opts.fetch ? (await import('../../tasks/mapillary.js')).mapillaryFromEnv() : undefined;
  const panoramasDir = panos ?? workspacePaths(workspaceDir(opts.workspace)).panoramas;
  const served = opts.tasks?.length ? await fileSplits(opts.tasks, panoramasDir) : await allWorkspaceSplits(opts.workspace, panos);
  const { splits } = served;
  // The demo's panoramas are drawn into the cache on first use: a cache that cannot be written is
  // refused now, not found out by the first session.
  if (!opts.tasks?.length || !panos) {
    ensureWritableDirectory(panoramasDir, 'panorama cache', 'choose another with --panos or --workspace');
  }
  const env = createEnvironment({
    splits,
    panoramasDir,
    splitPanoramas: served.panoramas,
    demo: served.demo,
    fetcher,
    log: (line) => warn(line),
    workers: opts.workers,
    config: {
      maxSteps: opts.maxSteps,
      viewSizePx: opts.viewSize,
      curve: opts.curve,
      mode: opts.mode,
      showIdentity: opts.showIdentity ?? false,
    },
  });
  const server = await startServer(env, {
    host: opts.host,
    port: opts.port,
    maxSessions: opts.maxSessions,
    idleTimeoutS: opts.idleTimeout,
  }).catch(async (err: unknown) => {
    // The render workers would keep the process alive with nothing to serve.
    await env.close();
    throw listenError(err, opts.host, opts.port) ?? err;
  });
  if (!LOOPBACK.has(opts.host)) warn(`geolab: listening on ${opts.host}: the environment is reachable from the network`);
  const info = {
    url: server.url,
    ws: server.url.replace(/^http/, 'ws') + '/ws',
    splits: Object.fromEntries([...splits].map(([name, tasks]) => [name, tasks.length])),
    panoramas: Object.fromEntries(served.panoramas),
    fetch: fetcher !== undefined,
    max_sessions: opts.maxSessions,
    max_steps: opts.maxSteps,
  };
  if (opts.json) printJson(info);
  else {
    printLine(`geolab environment on ${info.url} (WebSocket ${info.ws})`);
    printLine(`splits: ${Object.entries(info.splits).map(([n, k]) => `${n} (${k}, panoramas in ${info.panoramas[n]})`).join(', ')}`);
    if (fetcher) printLine('missing panoramas are fetched from Mapillary');
    printLine('Ctrl-C stops it.');
  }

  await new Promise<void>((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      void Promise.all([server.close(), env.close()]).then(() => {
        process.exitCode = signal === 'SIGINT' ? EXIT.interrupted : EXIT.ok;
        resolve();
      });
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

async function fileSplits(specs: string[], panoramasDir: string): Promise<ServedSplits> {
  const { loadSplitFiles } = await import('../../env/task-splits.js');
  const splits = await loadSplitFiles(specs);
  return { splits, panoramas: new Map([...splits.keys()].map((name) => [name, panoramasDir])), demo: [] };
}

/** Without --tasks: the workspace's splits, every one loaded (docs/protocol.md). */
async function allWorkspaceSplits(workspace: string | undefined, panos: string | undefined): Promise<ServedSplits> {
  const [{ openWorkspace }, { workspaceSplits }] = await Promise.all([import('../../store/index.js'), import('../../env/task-splits.js')]);
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
