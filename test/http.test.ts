/** The one HTTP client (src/http.ts) against a real server on 127.0.0.1 whose routes each misbehave one way. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpError, httpRequest, isTransient, type HttpFailure } from '../src/http.js';

let server: Server;
let base: string;
/** A second origin (another port), for redirects that leave the first. */
let other: Server;
let otherBase: string;
/** Requests per path, so a test can count attempts. */
const hits = new Map<string, number>();
/** When each request to a path arrived (ms), for the waits between attempts. */
const arrivals = new Map<string, number[]>();
/** Bytes the chunked route wrote before the client hung up. */
let chunkedSent = 0;
const KiB = 1024;

function chunked(res: ServerResponse): void {
  const chunk = Buffer.alloc(64 * KiB, 0x61);
  res.writeHead(200, { 'content-type': 'application/octet-stream' });
  const more = () => {
    while (!res.destroyed && chunkedSent < 64 * 1024 * KiB) {
      chunkedSent += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', more);
    }
    res.end();
  };
  res.on('close', () => res.removeAllListeners('drain'));
  more();
}

function route(req: IncomingMessage, res: ServerResponse, body: string): void {
  const path = new URL(req.url ?? '/', 'http://x').pathname;
  const n = (hits.get(path) ?? 0) + 1;
  hits.set(path, n);
  arrivals.set(path, [...(arrivals.get(path) ?? []), performance.now()]);
  switch (path) {
    case '/echo':
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ method: req.method, type: req.headers['content-type'] ?? null, body }));
    case '/gzip':
      return void res.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync('{"zipped":true}'));
    case '/hang':
      return; // never answers
    case '/trickle': // headers at once, then the body never ends
      res.writeHead(200);
      return void res.write('a');
    case '/declared': // a Content-Length over any small cap, and hardly a byte of it
      return void res.writeHead(200, { 'content-length': String(1024 * KiB) }).end();
    case '/chunked':
      return chunked(res);
    case '/flaky': // 503 twice, then an answer
      return void (n <= 2 ? res.writeHead(503).end('busy') : res.end('at last'));
    case '/later': // 429 asking for a second's wait, then an answer
      return void (n === 1 ? res.writeHead(429, { 'retry-after': '1' }).end('slow down') : res.end('ok'));
    case '/bad':
      return void res.writeHead(400, { 'content-type': 'application/json' }).end('{"code":"VALIDATION_ERROR"}');
    case '/reset': // the connection dropped without an answer
      return void req.socket.destroy();
    case '/see-other': // the answer is elsewhere: fetched with GET, whatever the method was
      return void res.writeHead(303, { location: '/echo' }).end();
    case '/found':
      return void res.writeHead(302, { location: `${base}/echo` }).end();
    case '/temporary': // the same request again, body and all, at the new place
      return void res.writeHead(307, { location: '/echo' }).end();
    case '/elsewhere': // another origin: credentials stay behind
      return void res.writeHead(307, { location: `${otherBase}/headers` }).end();
    case '/headers':
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ authorization: req.headers.authorization ?? null }));
    case '/loop':
      return void res.writeHead(302, { location: '/loop' }).end();
    case '/to-file':
      return void res.writeHead(302, { location: 'file:///etc/passwd' }).end();
    default:
      res.writeHead(404).end();
  }
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => route(req, res, body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  other = createServer((req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ authorization: req.headers.authorization ?? null })));
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  otherBase = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const s of [server, other]) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

/** The HttpError a request ends with (fails the test if it resolves). */
async function failureOf(promise: Promise<unknown>): Promise<HttpError> {
  const err = await promise.then(
    () => new Error('resolved'),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(HttpError);
  return err as HttpError;
}

const quick = { timeoutMs: 2_000, maxBytes: 1024 * KiB };

describe('httpRequest', () => {
  it('sends JSON and reads the answer as JSON, text or bytes, decompressed', async () => {
    const res = await httpRequest({ ...quick, method: 'POST', url: `${base}/echo`, json: { a: [1, 2] } });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ method: 'POST', type: 'application/json', body: '{"a":[1,2]}' });
    expect(res.header('content-type')).toBe('application/json');
    expect(res).toMatchObject({ attempts: 1, failures: [] });
    const raw = await httpRequest({ ...quick, method: 'POST', url: `${base}/echo`, headers: { 'content-type': 'text/plain' }, body: 'plain words' });
    expect(raw.json()).toMatchObject({ type: 'text/plain', body: 'plain words' });
    const zipped = await httpRequest({ ...quick, url: `${base}/gzip` });
    expect(zipped.text()).toBe('{"zipped":true}');
    expect(zipped.body.equals(Buffer.from('{"zipped":true}'))).toBe(true);
  });

  it('a server that never answers, or stops mid-body, is a timeout: no answer within the deadline', async () => {
    for (const path of ['/hang', '/trickle']) {
      const started = performance.now();
      const err = await failureOf(httpRequest({ ...quick, url: `${base}${path}`, timeoutMs: 200 }));
      expect(err.failure).toMatchObject({ kind: 'no-answer', cause: 'timeout', timeoutMs: 200 });
      expect(err.message).toBe('no answer within 200 ms');
      expect(performance.now() - started).toBeLessThan(1_500);
    }
  });

  it('a declared Content-Length over the cap is refused before the body is read', async () => {
    const err = await failureOf(httpRequest({ ...quick, url: `${base}/declared`, maxBytes: 1000 }));
    expect(err.failure).toEqual({ kind: 'too-large', maxBytes: 1000 });
    expect(err.attempts).toBe(1);
  });

  it('a chunked body past the cap is cut off while streaming: the client hangs up near the cap', async () => {
    const cap = 256 * KiB;
    const err = await failureOf(httpRequest({ ...quick, url: `${base}/chunked`, maxBytes: cap, retry: { attempts: 3, baseDelayMs: 1 } }));
    expect(err.failure).toEqual({ kind: 'too-large', maxBytes: cap });
    // Too large is never tried again: it would be as large again.
    expect(err.attempts).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(chunkedSent).toBeGreaterThan(cap);
    // The server stopped when the socket closed: far short of the 64 MiB on offer.
    expect(chunkedSent).toBeLessThan(16 * 1024 * KiB);
  });

  it('retries 503 with exponential backoff, then succeeds, keeping the failed attempts', async () => {
    const res = await httpRequest({ ...quick, url: `${base}/flaky`, retry: { attempts: 3, baseDelayMs: 100 } });
    expect(res.text()).toBe('at last');
    expect(res.attempts).toBe(3);
    expect(res.failures).toEqual([
      { kind: 'status', status: 503, text: 'busy' },
      { kind: 'status', status: 503, text: 'busy' },
    ]);
    const [first, second, third] = arrivals.get('/flaky')!;
    expect(second! - first!).toBeGreaterThanOrEqual(90);
    expect(third! - second!).toBeGreaterThanOrEqual(190);
  });

  it('gives up after the last attempt with every failure', async () => {
    hits.delete('/flaky');
    const err = await failureOf(httpRequest({ ...quick, url: `${base}/flaky`, retry: { attempts: 2, baseDelayMs: 1 } }));
    expect(err.attempts).toBe(2);
    expect(err.failure).toEqual({ kind: 'status', status: 503, text: 'busy' });
    expect(err.message).toBe('HTTP 503');
  });

  it("honours Retry-After over a shorter backoff, up to the policy's cap", async () => {
    const res = await httpRequest({ ...quick, url: `${base}/later`, retry: { attempts: 2, baseDelayMs: 10 } });
    expect(res.text()).toBe('ok');
    expect(res.failures).toEqual([{ kind: 'status', status: 429, text: 'slow down', retryAfterMs: 1000 }]);
    const [first, second] = arrivals.get('/later')!;
    expect(second! - first!).toBeGreaterThanOrEqual(950);

    hits.delete('/later');
    arrivals.delete('/later');
    await httpRequest({ ...quick, url: `${base}/later`, retry: { attempts: 2, baseDelayMs: 10, maxRetryAfterMs: 50 } });
    const [again, soon] = arrivals.get('/later')!;
    expect(soon! - again!).toBeLessThan(500);
  });

  it('does not retry a 400, and keeps its body for the caller', async () => {
    const err = await failureOf(httpRequest({ ...quick, url: `${base}/bad`, retry: { attempts: 3, baseDelayMs: 1 } }));
    expect(hits.get('/bad')).toBe(1);
    expect(err.failure).toEqual({ kind: 'status', status: 400, text: '{"code":"VALIDATION_ERROR"}' });
  });

  it('a refused connection is no answer, with its code, and retried as transient', async () => {
    // A port just closed: nothing listens there.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const err = await failureOf(httpRequest({ ...quick, url: `http://127.0.0.1:${port}/`, retry: { attempts: 2, baseDelayMs: 1 } }));
    expect(err.attempts).toBe(2);
    expect(err.failure).toMatchObject({ kind: 'no-answer', cause: 'refused', code: 'ECONNREFUSED' });
    expect(err.message).toBe('no answer: ECONNREFUSED');
  });

  it('a dropped connection is no answer (reset); the caller chooses what is retried', async () => {
    const onlyStatuses = (f: HttpFailure) => f.kind === 'status' && isTransient(f);
    const err = await failureOf(httpRequest({ ...quick, url: `${base}/reset`, retry: { attempts: 3, baseDelayMs: 1, retryable: onlyStatuses } }));
    expect(err.failure).toMatchObject({ kind: 'no-answer', cause: 'reset', code: 'ECONNRESET' });
    expect(hits.get('/reset')).toBe(1);
  });

  it('follows redirects as browsers do: 303 and a POST answered 302 become GET, 307 sends the same request again', async () => {
    const posted = { ...quick, method: 'POST' as const, json: { n: 1 } };
    for (const path of ['/see-other', '/found']) {
      const res = await httpRequest({ ...posted, url: `${base}${path}` });
      expect(res.json(), path).toEqual({ method: 'GET', type: null, body: '' });
    }
    const again = await httpRequest({ ...posted, url: `${base}/temporary` });
    expect(again.json()).toEqual({ method: 'POST', type: 'application/json', body: '{"n":1}' });
    expect(again).toMatchObject({ status: 200, attempts: 1, failures: [] });
  });

  it('keeps credentials on its own origin only, and gives up on a redirect loop without retrying it', async () => {
    const auth = { ...quick, headers: { authorization: 'Bearer sk-test' } };
    expect((await httpRequest({ ...auth, url: `${base}/headers` })).json()).toEqual({ authorization: 'Bearer sk-test' });
    expect((await httpRequest({ ...auth, url: `${base}/elsewhere` })).json()).toEqual({ authorization: null });
    hits.delete('/loop');
    const err = await failureOf(httpRequest({ ...quick, url: `${base}/loop`, retry: { attempts: 3, baseDelayMs: 1 } }));
    expect(err.attempts).toBe(1);
    expect(hits.get('/loop')).toBeLessThanOrEqual(6);
    expect(err.failure).toMatchObject({ kind: 'status', status: 302, text: expect.stringMatching(/^more than 5 redirects/) });
    // Only to http and https: a Location elsewhere ends the attempt as its status.
    const file = await failureOf(httpRequest({ ...quick, url: `${base}/to-file`, retry: { attempts: 3, baseDelayMs: 1 } }));
    expect(file.failure).toMatchObject({ kind: 'status', status: 302, text: 'a redirect to file:///etc/passwd, which is no http or https address' });
    expect(file.attempts).toBe(1);
  });

  it('an abort ends the request and the wait between attempts with an AbortError', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const hung = httpRequest({ ...quick, url: `${base}/hang`, signal: controller.signal });
    await expect(hung).rejects.toThrow(/aborted/);
    await expect(hung).rejects.toMatchObject({ name: 'AbortError' });

    hits.delete('/flaky');
    const waiting = new AbortController();
    setTimeout(() => waiting.abort(), 100);
    const started = performance.now();
    await expect(httpRequest({ ...quick, url: `${base}/flaky`, signal: waiting.signal, retry: { attempts: 3, baseDelayMs: 5_000 } })).rejects.toMatchObject({ name: 'AbortError' });
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
