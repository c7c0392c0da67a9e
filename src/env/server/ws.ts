/** The stateful WebSocket at /ws: one session per connection, messages answered in order. */
import type { RawData, WebSocket } from 'ws';
import type { SessionPool, Session } from '../sessions.js';
import { EnvError, type EnvErrorCode, type ResetRequest } from '../types.js';
import { isRecord } from '../../core/values.js';
import { parseClientJson } from '../wire-json.js';
import { asEnvError, type ServedEnvironment, type ServedEpisode } from './served.js';

/** Messages read ahead of their answers; beyond this a connection is not read until they are answered. */
const MAX_QUEUED_MESSAGES = 16;

/**
 * One connection's session. Messages are answered in order, one at a time. Memory per connection
 * is bounded: at most MAX_QUEUED_MESSAGES are read ahead (then the socket is paused, so a flood
 * waits in the client's own buffers), and a client whose unread replies plus queued messages pass
 * `maxUnsent` bytes is closed with 1008 and its queue dropped unanswered.
 */
export function serveSocket<E extends ServedEpisode>(env: ServedEnvironment<E>, pool: SessionPool<E>, ws: WebSocket, maxUnsent: number): void {
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
      while (inbox.length > 0 && ws.readyState === ws.OPEN && !overBound()) {
        const next = inbox.shift()!;
        inboxBytes -= next.bytes;
        if (ws.isPaused && inbox.length < MAX_QUEUED_MESSAGES / 2) ws.resume();
        await answerMessage(env, pool, session, ws, next.raw, next.isBinary);
      }
    } finally {
      answering = false;
    }
    if (ws.readyState === ws.OPEN) overBound();
  };

  ws.on('message', (raw: RawData, isBinary: boolean) => {
    if (ws.readyState !== ws.OPEN) return;
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
  if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(value));
}

function errorMessage(code: EnvErrorCode, message: string) {
  return { type: 'error', data: { message, code } };
}
