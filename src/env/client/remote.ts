/**
 * The environment over the wire: one WebSocket session per episode at `<url>/ws`, the Task API
 * over HTTP (through src/http.ts). Requests are answered in order, each with a timeout. A dropped
 * connection fails the episode in flight with a clear environment error, never a silent resume:
 * the next reset opens a new session.
 */
import type WebSocket from 'ws';
import { ServiceError } from '../../core/errors.js';
import { isRecord } from '../../core/values.js';
import { EnvError, type Action, type EnvErrorCode, type ResetRequest, type StepResult } from '../types.js';
import type { EnvClient, SplitInfo } from './types.js';
import { wsModule } from '../../vendor/commonjs.js';
import { HttpError, httpRequest } from '../../http.js';

/** The Task API answers a split list or one task's spec: far below this (docs/reliability.md, "Size caps"). */
const MAX_ANSWER_BYTES = 16 * 2 ** 20;

export interface RemoteOptions {
  /** Per request, in ms (a render on a busy server can take a while). */
  timeoutMs?: number;
  connectTimeoutMs?: number;
}

interface Pending {
  expect: 'observation' | 'state' | 'mcp';
  resolve(value: unknown): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

export class RemoteEnvClient implements EnvClient {
  readonly kind = 'remote';
  readonly location: string;
  private readonly httpBase: string;
  private readonly wsUrl: string;
  private socket: WebSocket | undefined;
  /** Why the current episode can no longer go on, once its connection is gone. */
  private lost: string | undefined;
  private readonly pending: Pending[] = [];

  constructor(
    url: string,
    private readonly options: RemoteOptions = {},
  ) {
    const base = new URL(url);
    if (!['http:', 'https:', 'ws:', 'wss:'].includes(base.protocol)) {
      throw new ServiceError(`environment URL must be http(s):// or ws(s)://, got ${url}`);
    }
    const http = base.protocol.replace(/^ws/, 'http');
    const root = `${base.host}${base.pathname.replace(/\/(ws)?\/?$/, '')}`;
    this.httpBase = `${http}//${root}`;
    this.wsUrl = `${http.replace(/^http/, 'ws')}//${root}/ws`;
    this.location = this.httpBase;
  }

  async reset(request: ResetRequest = {}): Promise<StepResult> {
    this.dropSocket();
    await this.connect();
    return (await this.request({ type: 'reset', data: request }, 'observation')) as StepResult;
  }

  async step(action: Action): Promise<StepResult> {
    return (await this.request({ type: 'step', data: action }, 'observation')) as StepResult;
  }

  state(): Promise<unknown> {
    return this.request({ type: 'state' }, 'state');
  }

  mcp(request: unknown): Promise<unknown> {
    return this.request({ type: 'mcp', data: request }, 'mcp');
  }

  async splits(): Promise<SplitInfo[]> {
    return (await this.http('GET', '/geoguesser_env/splits')) as SplitInfo[];
  }

  /** One task's truth-free spec (OpenEnv's Task API answers `{"task": spec}`). */
  async task(split: string, index: number): Promise<Record<string, unknown>> {
    const answer = (await this.http('POST', '/geoguesser_env/task', { split, index })) as { task?: unknown } | null;
    if (!isRecord(answer?.task)) throw new ServiceError(`the environment at ${this.httpBase} answered /geoguesser_env/task without a task`);
    return answer.task;
  }

  /** A GET or POST to the server's HTTP routes; 4xx answers become EnvErrors with the server's code. */
  async http(method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
    try {
      const res = await httpRequest({ method, url: this.httpBase + path, json: body, timeoutMs: this.timeoutMs, maxBytes: MAX_ANSWER_BYTES });
      return parseOrNull(res.text());
    } catch (err) {
      if (!(err instanceof HttpError)) throw err;
      const failure = err.failure;
      if (failure.kind === 'too-large') {
        throw new ServiceError(`the environment at ${this.httpBase} answered ${path} with more than ${MAX_ANSWER_BYTES / 2 ** 20} MiB`);
      }
      if (failure.kind === 'no-answer') {
        const why = failure.cause === 'timeout' ? `no answer within ${this.timeoutMs} ms` : (failure.code ?? failure.message);
        throw new ServiceError(`cannot reach the environment at ${this.httpBase}: ${why}`);
      }
      const payload = parseOrNull(failure.text) as { code?: EnvErrorCode; message?: string } | null;
      throw new EnvError(payload?.code ?? 'EXECUTION_ERROR', payload?.message ?? `HTTP ${failure.status} from ${path}`);
    }
  }

  async close(): Promise<void> {
    const socket = this.socket;
    this.dropSocket();
    if (socket && socket.readyState === socket.OPEN) {
      await new Promise<void>((resolve) => {
        socket.once('close', () => resolve());
        socket.close(1000, 'client closing');
        setTimeout(resolve, 1000).unref();
      });
    }
  }

  private get timeoutMs(): number {
    return this.options.timeoutMs ?? 60_000;
  }

  private connect(): Promise<void> {
    return new Promise((resolve, reject) => {
      const socket = new (wsModule().WebSocket)(this.wsUrl, { handshakeTimeout: this.options.connectTimeoutMs ?? 10_000 });
      this.socket = socket;
      this.lost = undefined;
      socket.once('open', () => resolve());
      socket.on('message', (data) => this.onMessage(data.toString()));
      socket.once('error', (err) => {
        this.connectionLost(`connection error: ${causeOf(err)}`);
        reject(new ServiceError(`cannot reach the environment at ${this.wsUrl}: ${causeOf(err)}`));
      });
      socket.once('close', (code, reason) => {
        const why = reason.length ? `${code} ${reason.toString()}` : String(code);
        this.connectionLost(`the server closed the connection (${why})`);
      });
    });
  }

  private request(message: unknown, expect: Pending['expect']): Promise<unknown> {
    const socket = this.socket;
    if (this.lost !== undefined || !socket || socket.readyState !== socket.OPEN) {
      const why = this.lost ?? 'no episode: call reset first';
      return Promise.reject(new ServiceError(`environment session at ${this.wsUrl} is gone: ${why}; the episode in flight failed`));
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        // The answer order is now unknowable: end the session rather than mismatch replies.
        this.connectionLost(`no answer within ${this.timeoutMs} ms`);
        socket.terminate();
      }, this.timeoutMs);
      this.pending.push({ expect, resolve, reject, timer });
      socket.send(JSON.stringify(message));
    });
  }

  private onMessage(text: string): void {
    let message: { type?: string; data?: unknown };
    try {
      message = JSON.parse(text) as typeof message;
    } catch {
      return this.connectionLost('the server sent a message that is not JSON');
    }
    const head = this.pending.shift();
    if (message.type === 'error') {
      const data = (message.data ?? {}) as { code?: EnvErrorCode; message?: string };
      const err = new EnvError(data.code ?? 'EXECUTION_ERROR', data.message ?? 'environment error');
      if (head) {
        clearTimeout(head.timer);
        head.reject(err);
      } else if (data.code === 'CAPACITY_REACHED') {
        this.connectionLost(err.message);
      }
      return;
    }
    if (!head) return;
    clearTimeout(head.timer);
    if (message.type !== head.expect) {
      head.reject(new ServiceError(`the environment answered "${message.type}" where "${head.expect}" was expected`));
      return;
    }
    head.resolve(message.data);
  }

  private connectionLost(why: string): void {
    if (this.lost === undefined) this.lost = why;
    for (const p of this.pending.splice(0)) {
      clearTimeout(p.timer);
      p.reject(new ServiceError(`environment connection to ${this.wsUrl} lost: ${why}; the episode in flight failed`));
    }
  }

  private dropSocket(): void {
    const socket = this.socket;
    this.socket = undefined;
    if (!socket) return;
    socket.removeAllListeners();
    socket.on('error', () => {});
    if (socket.readyState === socket.OPEN || socket.readyState === socket.CONNECTING) socket.terminate();
    this.connectionLost('a new episode was started');
    this.lost = undefined;
  }
}

function parseOrNull(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

function causeOf(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as Error & { cause?: { code?: string; message?: string } }).cause;
    return cause?.code ?? cause?.message ?? (err as NodeJS.ErrnoException).code ?? err.message;
  }
  return String(err);
}
