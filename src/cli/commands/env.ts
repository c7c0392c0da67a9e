/** `geolab env serve`: the embedded environment as an OpenEnv server (the work is src/env/serving.ts). */
import { EXIT, UsageError } from '../../core/errors.js';
import type { Serving } from '../../env/serving.js';
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
  checkFlags(opts);
  const { startServing } = await import('../../env/serving.js');
  const serving = await startServing({
    workspace: opts.workspace,
    tasks: opts.tasks,
    panos: opts.panos,
    fetch: opts.fetch,
    host: opts.host,
    port: opts.port,
    maxSessions: opts.maxSessions,
    idleTimeoutS: opts.idleTimeout,
    workers: opts.workers,
    log: (line) => warn(line),
    config: { maxSteps: opts.maxSteps, viewSizePx: opts.viewSize, curve: opts.curve, mode: opts.mode, showIdentity: opts.showIdentity ?? false },
  });
  if (!LOOPBACK.has(opts.host)) warn(`geolab: listening on ${opts.host}: the environment is reachable from the network`);
  printServing(serving, opts);
  await untilStopped(serving);
}

function checkFlags(opts: ServeOptions): void {
  if (!Number.isInteger(opts.port) || opts.port < 0 || opts.port > 65535) throw new UsageError('--port must be 0..65535');
  if (!Number.isInteger(opts.maxSessions) || opts.maxSessions < 1) throw new UsageError('--max-sessions must be an integer >= 1');
  if (!Number.isInteger(opts.maxSteps) || opts.maxSteps < 1) throw new UsageError('--max-steps must be an integer >= 1');
  if (!Number.isInteger(opts.viewSize) || opts.viewSize < 64 || opts.viewSize > 2048) {
    throw new UsageError('--view-size must be an integer in 64..2048');
  }
  if (opts.idleTimeout < 0) throw new UsageError('--idle-timeout must be >= 0 seconds');
}

/** Where it listens and what it serves: one JSON object with --json, else a few lines. */
function printServing(serving: Serving, opts: ServeOptions): void {
  const { server, served } = serving;
  const info = {
    url: server.url,
    ws: server.url.replace(/^http/, 'ws') + '/ws',
    splits: Object.fromEntries([...served.splits].map(([name, tasks]) => [name, tasks.length])),
    panoramas: Object.fromEntries(served.panoramas),
    fetch: serving.fetching,
    max_sessions: opts.maxSessions,
    max_steps: opts.maxSteps,
  };
  if (opts.json) return printJson(info);
  printLine(`geolab environment on ${info.url} (WebSocket ${info.ws})`);
  printLine(`splits: ${Object.entries(info.splits).map(([n, k]) => `${n} (${k}, panoramas in ${info.panoramas[n]})`).join(', ')}`);
  if (serving.fetching) printLine('missing panoramas are fetched from Mapillary');
  printLine('Ctrl-C stops it.');
}

/** Serves until SIGINT (exit 130) or SIGTERM (exit 0), then stops the server and the environment. */
async function untilStopped(serving: Serving): Promise<void> {
  await new Promise<void>((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      void serving.close().then(() => {
        process.exitCode = signal === 'SIGINT' ? EXIT.interrupted : EXIT.ok;
        resolve();
      });
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
