/**
 * The OpenEnv GeoGuesser server (DESIGN §2.3): health, schema and metadata, the Task API, the
 * stateful WebSocket at /ws, and stateful HTTP sessions for clients without a WebSocket library.
 * Safe by default: loopback, identity hidden, a session cap, a message size cap, idle timeouts, and
 * no route that serves truth or raw panoramas.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import type { Task } from '../core/tasks.js';
import { defaultSplit, splitInfos, type Splits } from './task-splits.js';
import { SessionPool, type Session } from './sessions.js';
import { EnvError, type EnvErrorCode, type ResetRequest, type StepResult } from './types.js';
import { isRecord } from '../core/values.js';

/** What the server needs of an episode (the engine's Episode). */
export interface ServedEpisode {
  /** Validates its own data: the server passes the client's through untouched. */
  reset(request: ResetRequest): Promise<StepResult>;
  step(action: unknown): Promise<StepResult>;
  state(): unknown;
}

/** What the server serves: splits, fresh episodes, MCP over an episode, and self-description. */
export interface ServedEnvironment<E extends ServedEpisode = ServedEpisode> {
  readonly splits: Splits;
  newEpisode(): E;
  mcp(episode: E, request: unknown): Promise<unknown>;
  /** JSON Schemas of action, observation and state for GET /schema. */
  schema(): unknown;
  /** Facts for GET /metadata (name, version, budget, curve, ...). */
  metadata(): Record<string, unknown>;
}

export interface ServerOptions {
  host?: string;
  port?: number;
  maxSessions?: number;
  /** Seconds without a message before a session is ended; 0 disables. */
  idleTimeoutS?: number;
  /** Largest WebSocket message or HTTP body accepted (DESIGN §2.3: 1 MiB). */
  maxMessageBytes?: number;
}

export interface RunningServer {
  url: string;
  port: number;
  server: Server;
  sessions: () => number;
  close(): Promise<void>;
}

export const MAX_MESSAGE_BYTES = 1024 * 1024;

/** Truth-free task spec: bookkeeping for harnesses, never for prompts. */
export function taskSpec(task: Task, split: string) {
  return {
    task_index: task.task_index,
    task_id: task.task_id,
    split,
    n_frames: task.frames.length,
    provider: task.provider ?? null,
    sequence_id: task.sequence_id ?? null,
    offline_ready: task.meta?.offline_ready === true,
  };
}

export async function startServer<E extends ServedEpisode>(
  env: ServedEnvironment<E>,
  options: ServerOptions = {},
): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  const maxBytes = options.maxMessageBytes ?? MAX_MESSAGE_BYTES;
  const pool = new SessionPool<E>(() => env.newEpisode(), options.maxSessions ?? 64, (options.idleTimeoutS ?? 0) * 1000);

  const server = createServer((req, res) => {
    handleHttp(env, pool, maxBytes, req, res).catch((err: unknown) => sendError(res, 500, 'EXECUTION_ERROR', messageOf(err)));
  });
  const wss = new WebSocketServer({ noServer: true, maxPayload: maxBytes });
  server.on('upgrade', (req, socket, head) => {
    if (new URL(req.url ?? '/', 'http://x').pathname !== '/ws') {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => serveSocket(env, pool, ws));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 8000, host, () => resolve());
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

// ---------------------------------------------------------------------------------------------
// WebSocket

function serveSocket<E extends ServedEpisode>(env: ServedEnvironment<E>, pool: SessionPool<E>, ws: WebSocket): void {
  const session = pool.open('ws');
  if (!session) {
    send(ws, { type: 'error', data: { message: `the server is at its cap of ${pool.maxSessions} sessions`, code: 'CAPACITY_REACHED' } });
    ws.close(1013, 'capacity reached');
    return;
  }
  session.onEnd = (reason) => ws.close(reason === 'idle' ? 1000 : 1001, reason === 'idle' ? 'idle timeout' : 'server shutting down');
  // Messages of one connection are answered in order, one at a time.
  let queue = Promise.resolve();
  ws.on('message', (raw: RawData, isBinary: boolean) => {
    queue = queue.then(() => answerMessage(env, pool, session, ws, raw, isBinary));
  });
  ws.on('close', () => pool.close(session.id));
  ws.on('error', () => pool.close(session.id));
}

async function answerMessage<E extends ServedEpisode>(
  env: ServedEnvironment<E>,
  pool: SessionPool<E>,
  session: Session<E>,
  ws: WebSocket,
  raw: RawData,
  isBinary: boolean,
): Promise<void> {
  if (!pool.touch(session.id)) return;
  let message: { type?: unknown; data?: unknown };
  try {
    const parsed: unknown = JSON.parse(isBinary ? Buffer.from(raw as Buffer).toString('utf8') : raw.toString());
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('expected a JSON object');
    message = parsed as typeof message;
  } catch (err) {
    return send(ws, errorMessage('INVALID_JSON', `message is not valid JSON: ${messageOf(err)}`));
  }
  try {
    switch (message.type) {
      case 'reset':
        return send(ws, { type: 'observation', data: await session.episode.reset(message.data as ResetRequest) });
      case 'step':
        return send(ws, { type: 'observation', data: await session.episode.step(message.data) });
      case 'state':
        return send(ws, { type: 'state', data: session.episode.state() });
      case 'mcp':
        return send(ws, { type: 'mcp', data: await env.mcp(session.episode, message.data) });
      case 'close':
        pool.close(session.id);
        ws.close(1000, 'closed by client');
        return;
      default:
        return send(
          ws,
          errorMessage('UNKNOWN_TYPE', `unknown message type ${JSON.stringify(message.type)}: expected reset, step, state, mcp or close`),
        );
    }
  } catch (err) {
    const e = asEnvError(err);
    return send(ws, errorMessage(e.code, e.message));
  }
}

function send(ws: WebSocket, value: unknown): void {
  if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(value));
}

function errorMessage(code: EnvErrorCode, message: string) {
  return { type: 'error', data: { message, code } };
}

// ---------------------------------------------------------------------------------------------
// HTTP

async function handleHttp<E extends ServedEpisode>(
  env: ServedEnvironment<E>,
  pool: SessionPool<E>,
  maxBytes: number,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const path = new URL(req.url ?? '/', 'http://x').pathname.replace(/\/+$/, '') || '/';
  const method = req.method ?? 'GET';
  const route = `${method} ${path}`;

  if (method === 'GET') {
    if (path === '/health') return sendJson(res, 200, { status: 'healthy' });
    if (path === '/schema') return sendJson(res, 200, env.schema());
    if (path === '/metadata') return sendJson(res, 200, env.metadata());
    if (path === '/geoguesser_env/splits') return sendJson(res, 200, splitInfos(env.splits));
  }

  const sessionMatch = /^\/sessions\/([0-9a-f-]{36})(\/step|\/state)?$/.exec(path);
  if (sessionMatch) {
    const session = pool.touch(sessionMatch[1] as string);
    if (!session) return sendError(res, 404, 'EXECUTION_ERROR', 'no such session (ended, timed out, or never opened)');
    const tail = sessionMatch[2];
    if (method === 'GET' && tail === '/state') return sendJson(res, 200, session.episode.state());
    if (method === 'DELETE' && !tail) {
      pool.close(session.id);
      return sendJson(res, 200, { session_id: session.id, closed: true });
    }
    if (method === 'POST' && tail === '/step') {
      const body = await readBody(req, res, maxBytes);
      if (body === undefined) return;
      const action = isRecord(body) && 'action' in body ? body.action : undefined;
      if (action === undefined) return sendError(res, 400, 'VALIDATION_ERROR', 'expected a body {"action": {...}}');
      await sendStep(res, () => session.episode.step(action), { session_id: session.id });
      return;
    }
    return sendError(res, 405, 'UNKNOWN_TYPE', `${method} is not allowed on ${path}`);
  }

  if (method !== 'POST') return sendError(res, 404, 'UNKNOWN_TYPE', `no route ${route}`);
  const known = [
    '/sessions',
    '/reset',
    '/step',
    '/geoguesser_env/num_tasks',
    '/geoguesser_env/task',
    '/geoguesser_env/tasks',
    '/geoguesser_env/task_range',
  ];
  if (!known.includes(path)) return sendError(res, 404, 'UNKNOWN_TYPE', `no route ${route}`);
  const body = await readBody(req, res, maxBytes);
  if (body === undefined) return;

  switch (path) {
    case '/sessions': {
      const session = pool.open('http');
      if (!session) return sendError(res, 503, 'CAPACITY_REACHED', `the server is at its cap of ${pool.maxSessions} sessions`);
      const ok = await sendStep(res, () => session.episode.reset(body as ResetRequest), { session_id: session.id });
      if (!ok) pool.close(session.id);
      return;
    }
    case '/reset':
      // Stateless like upstream: a fresh episode answers and is dropped.
      await sendStep(res, () => env.newEpisode().reset(body as ResetRequest));
      return;
    case '/step':
      return sendError(
        res,
        400,
        'EXECUTION_ERROR',
        'stateless /step has no episode to step: play over WS /ws, or open a session with POST /sessions',
      );
  }
  return taskApi(env.splits, path, body, res);
}

function taskApi(splits: Splits, path: string, body: unknown, res: ServerResponse): void {
  const fields = isRecord(body) ? body : {};
  const split = fields.split ?? defaultSplit(splits);
  if (typeof split !== 'string' || !splits.has(split)) {
    return sendError(res, 400, 'VALIDATION_ERROR', `unknown split ${JSON.stringify(split)}: served are ${[...splits.keys()].join(', ')}`);
  }
  const tasks = splits.get(split) as readonly Task[];
  switch (path) {
    case '/geoguesser_env/num_tasks':
      return sendJson(res, 200, { split, num_tasks: tasks.length });
    case '/geoguesser_env/task': {
      const index = fields.index;
      if (!Number.isInteger(index) || (index as number) < 0 || (index as number) >= tasks.length) {
        return sendError(res, 400, 'VALIDATION_ERROR', `index ${JSON.stringify(index)} is out of range for split ${split} (0..${tasks.length - 1})`);
      }
      return sendJson(res, 200, taskSpec(tasks[index as number] as Task, split));
    }
    case '/geoguesser_env/tasks':
      return sendJson(res, 200, tasks.map((t) => taskSpec(t, split)));
    case '/geoguesser_env/task_range': {
      const start = fields.start ?? 0;
      const stop = fields.stop ?? tasks.length;
      if (!Number.isInteger(start) || !Number.isInteger(stop) || (start as number) < 0 || (stop as number) < (start as number)) {
        return sendError(res, 400, 'VALIDATION_ERROR', 'start and stop must be integers with 0 <= start <= stop');
      }
      return sendJson(res, 200, tasks.slice(start as number, Math.min(stop as number, tasks.length)).map((t) => taskSpec(t, split)));
    }
  }
}

/** Runs a reset or step and answers with its result; returns whether it succeeded. */
async function sendStep(res: ServerResponse, run: () => Promise<StepResult>, extra: Record<string, unknown> = {}): Promise<boolean> {
  try {
    const result = await run();
    sendJson(res, 200, { ...extra, ...result });
    return true;
  } catch (err) {
    const e = asEnvError(err);
    sendError(res, e.code === 'EXECUTION_ERROR' && !(err instanceof EnvError) ? 500 : 400, e.code, e.message);
    return false;
  }
}

/** Reads a JSON body up to the cap; answers the error itself and returns undefined on failure. */
async function readBody(req: IncomingMessage, res: ServerResponse, maxBytes: number): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      res.setHeader('connection', 'close');
      res.on('finish', () => req.destroy());
      sendError(res, 413, 'VALIDATION_ERROR', `request body is larger than ${maxBytes} bytes`);
      return undefined;
    }
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    sendError(res, 400, 'INVALID_JSON', `body is not valid JSON: ${messageOf(err)}`);
    return undefined;
  }
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  if (res.headersSent) return;
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function sendError(res: ServerResponse, status: number, code: EnvErrorCode, message: string): void {
  sendJson(res, status, { code, message });
}

// ---------------------------------------------------------------------------------------------

function asEnvError(err: unknown): EnvError {
  return err instanceof EnvError ? err : new EnvError('EXECUTION_ERROR', messageOf(err));
}


function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
