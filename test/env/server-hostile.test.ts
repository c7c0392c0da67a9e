/** Hostile or unlucky input never takes the server down (docs/reliability.md): targets, nesting, unread replies. */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../src/env/wire-json.js';
import { getJson, startLive, WireClient, type Live } from './helpers/live.js';

let live: Live;
beforeAll(async () => {
  live = await startLive({ maxSessions: 8 });
});
afterAll(() => live.close());

/** Sends raw bytes on a fresh TCP connection and returns everything the server answers. */
function rawExchange(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      answer += chunk;
      // A server that answers but keeps the connection open has still answered.
      if (answer.includes('\r\n\r\n')) socket.end();
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(answer));
    socket.write(request);
  });
}

/** Polls for a condition; the deadline only stops a broken server from hanging the run. */
async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 2000 && !condition(); i++) await new Promise((r) => setTimeout(r, 50));
  if (!condition()) throw new Error(`gave up waiting for ${what}`);
}

const UPGRADE_HEADERS =
  'Host: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n';

describe('request targets', () => {
  it('answers 400 to targets that are not URLs, upgrade or not, and every open session goes on', async () => {
    const open = await WireClient.open(live.wsUrl);
    await open.reset({ split: 'train', index: 1 });
    for (const target of ['//', 'http://[', '//a:99999/ws', '//a:99999/health']) {
      const upgrade = await rawExchange(live.server.port, `GET ${target} HTTP/1.1\r\n${UPGRADE_HEADERS}`);
      expect(upgrade, `upgrade to ${target}`).toMatch(/^HTTP\/1\.1 400 /);
      const plain = await rawExchange(live.server.port, `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
      expect(plain, `GET ${target}`).toMatch(/^HTTP\/1\.1 400 /);
    }
    expect((await getJson(`${live.server.url}/health`)).json).toEqual({ status: 'healthy' });
    const step = await open.step({ op: 'pan', delta_deg: 20 });
    expect(step.type).toBe('observation');
    expect(step.data.observation?.steps_remaining).toBe(23);
    open.close();
  });

  it('HEAD /health answers as GET does, without a body', async () => {
    const head = await fetch(`${live.server.url}/health`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('application/json');
    expect(await head.text()).toBe('');
    const raw = await rawExchange(live.server.port, 'HEAD /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    expect(raw).toMatch(/^HTTP\/1\.1 200 /);
    expect(raw.slice(raw.indexOf('\r\n\r\n') + 4)).toBe('');
  });
});

describe('nesting', () => {
  const deep = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

  it('counts brackets outside strings only, escaped quotes included', () => {
    expect(nestsDeeperThan(`{"a":${deep(MAX_JSON_DEPTH - 1)}}`, MAX_JSON_DEPTH)).toBe(false);
    expect(nestsDeeperThan(`{"a":${deep(MAX_JSON_DEPTH)}}`, MAX_JSON_DEPTH)).toBe(true);
    expect(nestsDeeperThan(JSON.stringify({ label: `\\"${'['.repeat(500)}` }), MAX_JSON_DEPTH)).toBe(false);
  });

  it('JSON nested deeper than the limit is a VALIDATION_ERROR over WebSocket and a 400 over HTTP', async () => {
    const c = await WireClient.open(live.wsUrl);
    const depth = 200_000;
    for (const message of [
      `{"type":"reset","data":{"split":${deep(depth)}}}`,
      `{"type":"step","data":{"op":"look","heading_deg":${deep(depth)}}}`,
      deep(depth),
    ]) {
      const answer = await c.send(message);
      expect(answer.type).toBe('error');
      expect(answer.data.code).toBe('VALIDATION_ERROR');
      expect(answer.data.message).toContain(`deeper than ${MAX_JSON_DEPTH}`);
    }
    expect((await c.reset({ split: 'train', index: 0 })).type).toBe('observation');
    c.close();

    for (const path of ['/sessions', '/reset', '/geoguesser_env/num_tasks']) {
      const res = await fetch(live.server.url + path, { method: 'POST', body: `{"split":${deep(depth)}}` });
      expect(res.status, path).toBe(400);
      expect(await res.json()).toMatchObject({ code: 'VALIDATION_ERROR' });
    }
    expect((await getJson(`${live.server.url}/health`)).json).toEqual({ status: 'healthy' });
  });
});

describe('a client that sends without reading', () => {
  it('is closed with 1008 and a reason once its unsent replies pass the bound; other sessions go on', async () => {
    const bounded = await startLive({ maxUnsentBytes: 256 * 1024 });
    try {
      const other = await WireClient.open(bounded.wsUrl);
      await other.reset({ split: 'train', index: 2 });

      const flooder = new WebSocket(bounded.wsUrl);
      await new Promise((resolve, reject) => flooder.once('open', resolve).once('error', reject));
      const closed = new Promise<{ code: number; reason: string }>((resolve) =>
        flooder.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
      );
      flooder.pause(); // never reads a reply
      const reset = JSON.stringify({ type: 'reset', data: { split: 'train', index: 0 } });
      for (let i = 0; i < 3000; i++) flooder.send(reset);
      // Its session ends when the server gives up on it, long before 3000 resets are answered.
      await until(() => bounded.server.sessions() === 1, "the flooder's session to end");

      flooder.resume();
      const { code, reason } = await closed;
      expect(code).toBe(1008);
      expect(reason).toMatch(/^replies not read: \d+ bytes unsent, over the 262144 byte limit$/);
      const step = await other.step({ op: 'pan', delta_deg: 30 });
      expect(step.type).toBe('observation');
      other.close();
    } finally {
      await bounded.close();
    }
    // The flood is answered until the kernel's socket buffers and the bound are full: a few seconds
    // alone, far longer on a loaded machine.
  }, 150_000);
});
