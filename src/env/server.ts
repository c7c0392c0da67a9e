/**
 * The OpenEnv GeoGuesser server (DESIGN §2.3): health, schema and metadata, the Task API, the
 * stateful WebSocket at /ws, and stateful HTTP sessions for clients without a WebSocket library.
 * Safe by default: loopback, identity hidden, a session cap, a message size cap, a nesting limit,
 * a bound on each connection's unread replies, idle timeouts, and no route that serves truth or raw
 * panoramas. No request target, body or message a client sends can take the server down.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import type { Task } from '../core/tasks.js';
import { defaultSplit, splitInfos, type Splits } from './task-splits.js';
import { SessionPool, type Session } from './sessions.js';
import { EnvError, type EnvErrorCode, type ResetRequest, type StepResult } from './types.js';
import { isRecord } from '../core/values.js';
import { parseClientJson } from './wire-json.js';

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
  /** Replies a WebSocket client may leave unread before it is closed with 1008 (DESIGN §12: 8 MiB). */
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
/** Messages read ahead of their answers; beyond this a connection is not read until they are answered. */
const MAX_QUEUED_MESSAGES = 16;

/** The name OpenEnv's Task API routes are namespaced by (`/{env_name}/...`). */
const ENV_NAME = 'geoguesser_env';

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
  const maxUnsent = options.maxUnsentBytes ?? MAX_UNSENT_BYTES;
  const pool = new SessionPool<E>(() => env.newEpisode(), options.maxSessions ?? 64, (options.idleTimeoutS ?? 0) * 1000);

  const server = createServer((req, res) => {
    handleHttp(env, pool, maxBytes, req, res).catch((err: unknown) => sendError(res, 500, 'EXECUTION_ERROR', messageOf(err)));
  });
  const wss = new WebSocketServer({ noServer: true, maxPayload: maxBytes });
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

/**
 * One connection's session. Messages are answered in order, one at a time. Memory per connection
 * is bounded: at most MAX_QUEUED_MESSAGES are read ahead (then the socket is paused, so a flood
 * waits in the client's own buffers), and a client whose unread replies plus queued messages pass
 * `maxUnsent` bytes is closed with 1008 and its queue dropped unanswered.
 */
function serveSocket<E extends ServedEpisode>(env: ServedEnvironment<E>, pool: SessionPool<E>, ws: WebSocket, maxUnsent: number): void {
  const session = pool.open('ws');
  if (!session) {
    send(ws, { type: 'error', data: { message: `the server is at its cap of ${pool.maxSessions} sessions`, code: 'CAPACITY_REACHED' } });
    ws.close(1013, 'capacity reached');
    return;
  }
  session.onEnd = (reason) => ws.close(reason === 'idle' ? 1000 : 1001, reason === 'idle' ? 'idle timeout' : 'server shutting down');
  const inbox: { raw: RawData; isBinary: boolean; bytes: number }[] = [];
  let inboxBytes = 0;
  let answering = false;

  const overBound = (): boolean => {
    const unsent = ws.bufferedAmount + inboxBytes;
    if (unsent <= maxUnsent) return false;
    inbox.length = 0;
    inboxBytes = 0;
    pool.close(session.id);
    ws.close(1008, `replies not read: ${unsent} bytes unsent, over the ${maxUnsent} byte limit`);
    // Read on, so the client's close frame ends the connection; what it sends meanwhile is dropped.
    ws.resume();
    return true;
  };

  const answerQueued = async (): Promise<void> => {
    if (answering) return;
    answering = true;
    try {
      while (inbox.length > 0 && ws.readyState === WebSocket.OPEN && !overBound()) {
        const next = inbox.shift()!;
        inboxBytes -= next.bytes;
        if (ws.isPaused && inbox.length < MAX_QUEUED_MESSAGES / 2) ws.resume();
        await answerMessage(env, pool, session, ws, next.raw, next.isBinary);
      }
    } finally {
      answering = false;
    }
    if (ws.readyState === WebSocket.OPEN) overBound();
  };

  ws.on('message', (raw: RawData, isBinary: boolean) => {
    if (ws.readyState !== WebSocket.OPEN) return;
    const bytes = Array.isArray(raw) ? raw.reduce((n, b) => n + b.length, 0) : raw.byteLength;
    inbox.push({ raw, isBinary, bytes });
    inboxBytes += bytes;
    if (inbox.length >= MAX_QUEUED_MESSAGES) ws.pause();
    void answerQueued();
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
    const parsed = parseClientJson(isBinary ? Buffer.from(raw as Buffer).toString('utf8') : raw.toString(), 'message');
    if (!isRecord(parsed)) throw new EnvError('INVALID_JSON', 'message is not a JSON object: expected {"type": ..., "data": ...}');
    message = parsed;
  } catch (err) {
    const e = asEnvError(err);
    return send(ws, errorMessage(e.code, e.message));
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
  const target = targetPath(req);
  if (target === undefined) return sendError(res, 400, 'VALIDATION_ERROR', 'malformed request target');
  const path = target.replace(/\/+$/, '') || '/';
  const method = req.method ?? 'GET';
  const route = `${method} ${path}`;

  // HEAD answers as GET does; Node leaves the body out.
  if (method === 'GET' || method === 'HEAD') {
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
      const unknown = Object.keys(body as Record<string, unknown>).filter((key) => key !== 'action');
      if (unknown.length > 0) {
        const keys = unknown.map((k) => JSON.stringify(k)).join(', ');
        return sendError(res, 400, 'VALIDATION_ERROR', `step body: unknown key${unknown.length > 1 ? 's' : ''} ${keys}; the accepted key is action`);
      }
      await sendStep(res, () => session.episode.step(action), { session_id: session.id });
      return;
    }
    return sendError(res, 405, 'UNKNOWN_TYPE', `${method} is not allowed on ${path}`);
  }

  if (method !== 'POST') return sendError(res, 404, 'UNKNOWN_TYPE', `no route ${route}`);
  const known = ['/sessions', '/reset', '/step', ...['num_tasks', 'task', 'tasks', 'task_range'].map((r) => `/${ENV_NAME}/${r}`)];
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

/** OpenEnv's Task API: its response bodies, and Python slice semantics for ranges. */
function taskApi(splits: Splits, path: string, body: unknown, res: ServerResponse): void {
  const fields = isRecord(body) ? body : {};
  const split = fields.split ?? defaultSplit(splits);
  if (typeof split !== 'string' || !splits.has(split)) {
    return sendError(res, 400, 'VALIDATION_ERROR', `unknown split ${JSON.stringify(split)}: served are ${[...splits.keys()].join(', ')}`);
  }
  const tasks = splits.get(split) as readonly Task[];
  switch (path.slice(ENV_NAME.length + 2)) {
    case 'num_tasks':
      return sendJson(res, 200, { num_tasks: tasks.length });
    case 'task': {
      const index = fields.index;
      if (!Number.isInteger(index) || (index as number) < 0 || (index as number) >= tasks.length) {
        return sendError(res, 400, 'VALIDATION_ERROR', `index ${JSON.stringify(index)} is out of range for split ${split} (0..${tasks.length - 1})`);
      }
      return sendJson(res, 200, { task: taskSpec(tasks[index as number] as Task, split) });
    }
    case 'tasks':
      return sendJson(res, 200, { tasks: tasks.map((t) => taskSpec(t, split)), env_name: ENV_NAME });
    case 'task_range': {
      const range = sliceRange(tasks.length, fields.start, fields.stop);
      if (typeof range === 'string') return sendError(res, 400, 'VALIDATION_ERROR', range);
      return sendJson(res, 200, { tasks: tasks.slice(range[0], range[1]).map((t) => taskSpec(t, split)) });
    }
  }
}

/**
 * `[start, stop)` as Python's `slice(start, stop).indices(length)` gives it: absent bounds are the
 * ends, negative ones count from the end, all are clamped, and start past stop is empty. A string
 * says why the bounds are unusable.
 */
function sliceRange(length: number, start: unknown, stop: unknown): [number, number] | string {
  const bound = (value: unknown, absent: number): number | undefined => {
    if (value === undefined || value === null) return absent;
    if (!Number.isSafeInteger(value)) return undefined;
    const n = value as number;
    return Math.min(length, Math.max(0, n < 0 ? n + length : n));
  };
  const from = bound(start, 0);
  const to = bound(stop, length);
  if (from === undefined || to === undefined) {
    return `start and stop must be integers or null (Python slice bounds), got ${JSON.stringify(start ?? null)} and ${JSON.stringify(stop ?? null)}`;
  }
  return [from, Math.max(from, to)];
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
    return parseClientJson(text, 'body');
  } catch (err) {
    const e = asEnvError(err);
    sendError(res, 400, e.code, e.message);
    return undefined;
  }
}

/** The path of a request's target, or undefined when the target is not a URL (`//`, `http://[`). */
function targetPath(req: IncomingMessage): string | undefined {
  try {
    return new URL(req.url ?? '/', 'http://x').pathname;
  } catch {
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
