/**
 * The HTTP routes: health, schema and metadata, stateless reset, stateful sessions for clients
 * without a WebSocket library, and the Task API's transport.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { splitInfos } from '../task-splits.js';
import type { SessionPool } from '../sessions.js';
import { EnvError, type EnvErrorCode, type ResetRequest, type StepResult } from '../types.js';
import { isRecord } from '../../core/values.js';
import { parseClientJson } from '../wire-json.js';
import { asEnvError, type ServedEnvironment, type ServedEpisode } from './served.js';
import { TASK_API_PATHS, taskApi } from './task-api.js';

export async function handleHttp<E extends ServedEpisode>(
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
  const known = ['/sessions', '/reset', '/step', ...TASK_API_PATHS];
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
  const reply = taskApi(env.splits, path, body);
  return sendJson(res, reply.status, reply.body);
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
export function targetPath(req: IncomingMessage): string | undefined {
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

export function sendError(res: ServerResponse, status: number, code: EnvErrorCode, message: string): void {
  sendJson(res, status, { code, message });
}
