/**
 * The OpenEnv GeoGuesser server (docs/protocol.md): health, schema and metadata, the Task API, the
 * stateful WebSocket at /ws, and stateful HTTP sessions for clients without a WebSocket library.
 * Safe by default: loopback, identity hidden, a session cap, a message size cap, a nesting limit,
 * a bound on each connection's unread replies, idle timeouts, and no route that serves truth or raw
 * panoramas. No request target, body or message a client sends can take the server down.
 * This module assembles the parts under server/: http.ts, ws.ts and task-api.ts.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEFAULT_MAX_SESSIONS, DEFAULT_PORT } from './server/defaults.js';
import { SessionPool } from './sessions.js';
import { handleHttp, sendError, targetPath } from './server/http.js';
import { ConnectionGate } from './server/pipeline.js';
import { serveSocket } from './server/ws.js';
import { messageOf, type ServedEnvironment, type ServedEpisode } from './server/served.js';
import { wsModule } from '../vendor/commonjs.js';

export type { ServedEnvironment, ServedEpisode } from './server/served.js';
export { taskSpec } from './server/task-api.js';

export interface ServerOptions {
  host?: string;
  port?: number;
  maxSessions?: number;
  /** Seconds without a message before a session is ended; 0 disables. */
  idleTimeoutS?: number;
  /** Largest WebSocket message or HTTP body accepted (docs/protocol.md: 1 MiB). */
  maxMessageBytes?: number;
  /**
   * Replies a WebSocket client may leave unread before it is closed with 1008, and an HTTP
   * connection before its further requests wait (docs/reliability.md: 8 MiB).
   */
  maxUnsentBytes?: number;
}

export interface RunningServer {
  url: string;
  port: number;
  server: Server;
  sessions: () => number;
  close(): Promise<void>;
}

export const MAX_MESSAGE_BYTES = 1024 * 1024;
export const MAX_UNSENT_BYTES = 8 * 1024 * 1024;

export async function startServer<E extends ServedEpisode>(
  env: ServedEnvironment<E>,
  options: ServerOptions = {},
): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  const maxBytes = options.maxMessageBytes ?? MAX_MESSAGE_BYTES;
  const maxUnsent = options.maxUnsentBytes ?? MAX_UNSENT_BYTES;
  const pool = new SessionPool<E>(() => env.newEpisode(), options.maxSessions ?? DEFAULT_MAX_SESSIONS, (options.idleTimeoutS ?? 0) * 1000);

  // A connection's requests a few at a time, its unsent replies bounded (server/pipeline.ts).
  const gate = new ConnectionGate(maxUnsent);
  const server = createServer((req, res) => {
    gate.admit(req, () => handleHttp(env, pool, maxBytes, req, res).catch((err: unknown) => sendError(res, 500, 'EXECUTION_ERROR', messageOf(err))));
  });
  const wss = new (wsModule().WebSocketServer)({ noServer: true, maxPayload: maxBytes });
  server.on('upgrade', (req, socket, head) => {
    // The socket is ours from here: without a listener, a client resetting it would throw.
    socket.on('error', () => socket.destroy());
    const path = targetPath(req);
    if (path !== '/ws') {
      socket.end(`HTTP/1.1 ${path === undefined ? '400 Bad Request' : '404 Not Found'}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => serveSocket(env, pool, ws, maxUnsent));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? DEFAULT_PORT, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}`,
    port,
    server,
    sessions: () => pool.size,
    close: () =>
      new Promise<void>((resolve) => {
        pool.shutdown();
        for (const client of wss.clients) client.close(1001, 'server shutting down');
        wss.close();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
