/**
 * One HTTP connection cannot take the server down (docs/reliability.md): the real `geolab env
 * serve` in a process of its own, and raw TCP clients that pipeline requests without reading a
 * reply, on the stateless reset and on a session's steps. The server's resident memory is sampled
 * from /proc while they do; the abusive connection is closed, the server stays up, and a client
 * that pipelines a few requests and reads gets every reply in order.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';

const HOME = tempDir('geolab-pipelining-');
const MIB = 2 ** 20;
/** What one abusive connection may cost the server over the 10 s it is watched. */
const BUDGET_MIB = 50;
let server: ChildProcess;
let port: number;
let url: string;

beforeAll(async () => {
  server = spawn(process.execPath, [BIN, 'env', 'serve', '--port', '0', '--json'], { env: { ...process.env, GEOLAB_HOME: HOME }, stdio: ['ignore', 'pipe', 'pipe'] });
  url = await new Promise<string>((resolve, reject) => {
    let stderr = '';
    server.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    server.once('exit', (code) => reject(new Error(`env serve exited ${code}: ${stderr}`)));
    createInterface({ input: server.stdout as NodeJS.ReadableStream }).once('line', (line) => resolve(String((JSON.parse(line) as { url: string }).url)));
  });
  port = Number(new URL(url).port);
  // The task's panorama drawn and the renderer warm before anything is measured.
  for (let i = 0; i < 3; i++) expect((await post('/reset', { split: 'train', index: 1 })).status).toBe(200);
}, 120_000);
afterAll(() => {
  server.kill('SIGTERM');
});

const post = (path: string, body: unknown) => fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

function rssBytes(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m);
  return Number(line?.[1] ?? 0) * 1024;
}

function request(method: string, path: string, body?: unknown): string {
  const text = body === undefined ? '' : JSON.stringify(body);
  return `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`;
}

/**
 * Writes `count` copies of a request on one connection, as fast as the socket takes them, never
 * reading; samples the server's RSS for `watchMs`. Resolves with the peak growth and whether the
 * server closed the connection.
 */
async function flood(raw: string, count: number, watchMs: number): Promise<{ peakGrowth: number; closed: boolean }> {
  const base = rssBytes(server.pid!);
  let peak = base;
  const socket: Socket = connect(port, '127.0.0.1');
  socket.pause(); // never reads a reply
  let closed = false;
  socket.on('close', () => (closed = true));
  socket.on('error', () => undefined);
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  const batch = raw.repeat(50);
  let sent = 0;
  const write = () => {
    while (sent < count && !closed) {
      sent += 50;
      if (!socket.write(batch)) return void socket.once('drain', write);
    }
  };
  write();
  const started = performance.now();
  while (performance.now() - started < watchMs) {
    peak = Math.max(peak, rssBytes(server.pid!));
    await new Promise((r) => setTimeout(r, 100));
  }
  // A paused socket never sees the server's end: read what is buffered, and the end if it came.
  socket.resume();
  for (let i = 0; i < 40 && !closed; i++) await new Promise((r) => setTimeout(r, 50));
  socket.destroy();
  return { peakGrowth: peak - base, closed };
}

describe('a connection that pipelines without reading', () => {
  it('on POST /reset: closed, the server grows by at most 50 MB over 10 s, and stays up', async () => {
    const { peakGrowth, closed } = await flood(request('POST', '/reset', { split: 'train', index: 1 }), 20_000, 10_000);
    expect(closed).toBe(true);
    expect(peakGrowth / MIB).toBeLessThan(BUDGET_MIB);
    expect(server.exitCode).toBeNull();
    expect(await (await fetch(`${url}/health`)).json()).toEqual({ status: 'healthy' });
    expect((await post('/reset', { split: 'train', index: 2 })).status).toBe(200);
  }, 60_000);

  it("on a session's steps: the same (closed once it has taken no reply byte for 10 s), and the session's owner can still close it", async () => {
    const opened = (await (await post('/sessions', { split: 'train', index: 1 })).json()) as { session_id: string };
    const step = request('POST', `/sessions/${opened.session_id}/step`, { action: { op: 'pan', delta_deg: 10 } });
    const { peakGrowth, closed } = await flood(step, 20_000, 13_000);
    expect(closed).toBe(true);
    expect(peakGrowth / MIB).toBeLessThan(BUDGET_MIB);
    expect(server.exitCode).toBeNull();
    expect((await fetch(`${url}/sessions/${opened.session_id}`, { method: 'DELETE' })).status).toBe(200);
  }, 60_000);
});

describe('a client that pipelines a few requests and reads', () => {
  it('gets every reply, in order', async () => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (text += chunk));
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    const paths = ['/health', '/metadata', '/health', '/geoguesser_env/splits', '/health', '/schema', '/health'];
    socket.write(paths.map((p) => request('GET', p)).join(''));
    // Replies follow one another with no line break between a body and the next status line.
    const statuses = () => text.match(/HTTP\/1\.1 \d+/g) ?? [];
    for (let i = 0; i < 200 && statuses().length < paths.length; i++) await new Promise((r) => setTimeout(r, 25));
    socket.destroy();
    expect(statuses()).toEqual(paths.map(() => 'HTTP/1.1 200'));
    // In order: the health replies stand where their requests did.
    const bodies = text.split(/HTTP\/1\.1 200 OK\r\n/).slice(1);
    expect(bodies.map((b) => b.includes('"status":"healthy"'))).toEqual(paths.map((p) => p === '/health'));
  }, 30_000);
});
