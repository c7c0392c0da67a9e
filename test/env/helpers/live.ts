/** A real environment server on 127.0.0.1 over the demo splits, and a small WebSocket test client. */
import WebSocket from 'ws';
import type { Task } from '../../../src/core/tasks.js';
import { truthOf } from '../../../src/core/tasks.js';
import { createEnvironment, type Environment } from '../../../src/env/environment.js';
import { startServer, type RunningServer, type ServerOptions } from '../../../src/env/server.js';
import { demoSplits } from '../../../src/env/task-splits.js';
import type { EngineConfig } from '../../../src/env/engine-config.js';
import { tempDir } from '../../helpers/fixtures.js';

export interface Live {
  server: RunningServer;
  env: Environment;
  splits: Map<string, readonly Task[]>;
  wsUrl: string;
  truth(split: string, index: number): { lat: number; lon: number };
  close(): Promise<void>;
}

/** Panoramas are generated once per test run into one shared cache, as a real workspace would. */
const PANOS = tempDir('geolab-panos-');

export async function startLive(
  options: ServerOptions & { config?: Partial<EngineConfig>; workers?: number } = {},
): Promise<Live> {
  const splits = await demoSplits();
  const env = createEnvironment({ splits, panoramasDir: PANOS, demo: true, workers: options.workers ?? 0, config: options.config ?? {} });
  const server = await startServer(env, { port: 0, ...options });
  return {
    server,
    env,
    splits,
    wsUrl: server.url.replace(/^http/, 'ws') + '/ws',
    truth: (split, index) => truthOf(splits.get(split)?.[index] as Task),
    close: async () => {
      await server.close();
      await env.close();
    },
  };
}

export interface WireMessage {
  type: string;
  data: Record<string, unknown> & {
    observation?: Record<string, unknown>;
    reward?: number | null;
    done?: boolean;
    metadata?: Record<string, unknown>;
    code?: string;
    message?: string;
  };
}

/** A raw protocol client: send a message, await the next answer. */
export class WireClient {
  private readonly inbox: WireMessage[] = [];
  private waiters: ((m: WireMessage) => void)[] = [];
  closed: { code: number; reason: string } | undefined;
  private closeWaiters: (() => void)[] = [];

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const message = JSON.parse(data.toString()) as WireMessage;
      const waiter = this.waiters.shift();
      if (waiter) waiter(message);
      else this.inbox.push(message);
    });
    ws.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString() };
      this.closeWaiters.splice(0).forEach((w) => w());
    });
    ws.on('error', () => {});
  }

  static open(url: string): Promise<WireClient> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url);
      const client = new WireClient(ws);
      ws.once('open', () => resolve(client));
      ws.once('error', reject);
    });
  }

  next(timeoutMs = 20_000): Promise<WireMessage> {
    const queued = this.inbox.shift();
    if (queued) return Promise.resolve(queued);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no message within timeout')), timeoutMs);
      this.waiters.push((m) => {
        clearTimeout(timer);
        resolve(m);
      });
    });
  }

  async send(message: unknown): Promise<WireMessage> {
    this.ws.send(typeof message === 'string' ? message : JSON.stringify(message));
    return this.next();
  }

  reset(data: Record<string, unknown> = {}): Promise<WireMessage> {
    return this.send({ type: 'reset', data });
  }

  step(action: Record<string, unknown>): Promise<WireMessage> {
    return this.send({ type: 'step', data: action });
  }

  waitClosed(timeoutMs = 10_000): Promise<{ code: number; reason: string }> {
    if (this.closed) return Promise.resolve(this.closed);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('socket did not close')), timeoutMs);
      this.closeWaiters.push(() => {
        clearTimeout(timer);
        resolve(this.closed as { code: number; reason: string });
      });
    });
  }

  close(): void {
    this.ws.close();
  }
}

export async function postJson(url: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> & unknown[] }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> & unknown[] };
}

export async function getJson(url: string): Promise<{ status: number; json: Record<string, unknown> & unknown[] }> {
  const res = await fetch(url);
  return { status: res.status, json: (await res.json()) as Record<string, unknown> & unknown[] };
}
