/**
 * The one HTTP client (docs/architecture.md, "Modules and what they own"; docs/reliability.md,
 * "HTTP requests"): model endpoints, the Mapillary API and a remote environment's routes all go
 * through `httpRequest`. It owns what every caller needs and used to write again: a deadline per
 * attempt, a response read as a stream and counted so a body past the cap is cut off (never held
 * whole), redirects as browsers follow them (credentials kept to their origin), retries with
 * exponential backoff and Retry-After, and failures as typed outcomes (no answer, an HTTP status,
 * too large). Callers map a failure to their own error and wording.
 *
 * Built on axios (its Node `http` adapter), one shared instance with the default keep-alive agent:
 * a sweep makes thousands of requests, so a request costs one timer and one AbortController more
 * than a bare axios call, nothing else.
 */
import axios, { type AxiosResponse } from 'axios';
import type { Readable } from 'node:stream';
import { redact } from './core/secrets.js';

export interface HttpRequest {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  url: string;
  headers?: Record<string, string>;
  /** Sent as JSON (`content-type: application/json` unless a header says otherwise). */
  json?: unknown;
  /** Sent as is; ignored when `json` is given. */
  body?: Buffer | string;
  /** Per attempt, from the connection through the last byte of the body. */
  timeoutMs: number;
  /** The largest body read (decompressed); more fails the attempt as `too-large`. */
  maxBytes: number;
  /** Aborting it ends the request (and a wait between attempts) with an AbortError. */
  signal?: AbortSignal;
  /** Without it, one attempt. */
  retry?: RetryPolicy;
}

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  attempts: number;
  /** The wait before the first retry; each further one waits twice as long. */
  baseDelayMs: number;
  /** Which failures are tried again (default `isTransient`); `too-large` never is. */
  retryable?: (failure: HttpFailure) => boolean;
  /** A server's Retry-After is honoured up to this (default 30 s). */
  maxRetryAfterMs?: number;
}

/** Why an attempt got no answer. */
export type NoAnswerCause = 'timeout' | 'refused' | 'reset' | 'dns' | 'other';

export type HttpFailure =
  /** No response, or the connection broke before the body was in. */
  | { kind: 'no-answer'; cause: NoAnswerCause; timeoutMs: number; code?: string; message: string }
  /** A response outside 2xx, its body read up to ERROR_BODY_BYTES. */
  | { kind: 'status'; status: number; text: string; retryAfterMs?: number }
  /** A body (or its declared Content-Length) past `maxBytes`: cut off, never read further. */
  | { kind: 'too-large'; maxBytes: number };

export interface HttpResponse {
  status: number;
  /** Lower-case names. */
  header(name: string): string | undefined;
  body: Buffer;
  text(): string;
  /** The body parsed as JSON; throws SyntaxError when it is not. */
  json(): unknown;
  /** Attempts made, this one included. */
  attempts: number;
  /** The failed attempts before this one, in order. */
  failures: HttpFailure[];
}

/** The last attempt failed; `failures` holds every attempt's failure, `failure` the last. */
export class HttpError extends Error {
  readonly failure: HttpFailure;
  constructor(readonly failures: HttpFailure[]) {
    const failure = failures[failures.length - 1]!;
    super(describeFailure(failure));
    this.name = 'HttpError';
    this.failure = failure;
  }
  get attempts(): number {
    return this.failures.length;
  }
}

/** An error response's body is read this far, enough for any message; the rest is dropped. */
export const ERROR_BODY_BYTES = 64 * 1024;
const DEFAULT_MAX_RETRY_AFTER_MS = 30_000;

/** 429 and 5xx answers, timeouts and connections refused, reset or not resolved: worth another try. */
export function isTransient(failure: HttpFailure): boolean {
  if (failure.kind === 'status') return failure.status === 429 || failure.status >= 500;
  return failure.kind === 'no-answer' && failure.cause !== 'other';
}

/** One line for a failure, for a caller that has no wording of its own. */
export function describeFailure(failure: HttpFailure): string {
  switch (failure.kind) {
    case 'no-answer':
      return failure.cause === 'timeout' ? `no answer within ${failure.timeoutMs} ms` : `no answer: ${failure.code ?? failure.message}`;
    case 'status':
      return `HTTP ${failure.status}`;
    case 'too-large':
      return `response larger than ${failure.maxBytes} bytes`;
  }
}

// One instance for every request. Bodies come and go as they are: a JSON body is stringified here
// once (axios's own transform would parse a string body again to check it) and the response is a
// stream this module counts.
const client = axios.create({
  adapter: 'http',
  // Redirects are followed here (followRedirect), not by axios: its follow-redirects layer wraps
  // every request, redirected or not, and cost ~0.15 ms of CPU a request (a sweep makes thousands).
  maxRedirects: 0,
  responseType: 'stream',
  decompress: true,
  validateStatus: () => true,
  // Images make model requests large; the server sets its own limit.
  maxBodyLength: Infinity,
  maxContentLength: -1,
  transformRequest: [(data: unknown) => data],
  transformResponse: [(data: unknown) => data],
});

/** Sends the request, trying again as `retry` allows; resolves with a 2xx response, else throws HttpError. */
export async function httpRequest(request: HttpRequest): Promise<HttpResponse> {
  const retry = request.retry;
  const attempts = Math.max(1, retry?.attempts ?? 1);
  const failures: HttpFailure[] = [];
  for (let attempt = 1; ; attempt++) {
    const outcome = await attemptOnce(request);
    if (!('kind' in outcome)) return { ...outcome, attempts: attempt, failures };
    failures.push(outcome);
    const retryable = outcome.kind !== 'too-large' && (retry?.retryable ?? isTransient)(outcome);
    if (!retry || !retryable || attempt >= attempts) throw new HttpError(failures);
    const backoffMs = retry.baseDelayMs * 2 ** (attempt - 1);
    const retryAfterMs = outcome.kind === 'status' && outcome.retryAfterMs !== undefined ? Math.min(outcome.retryAfterMs, retry.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS) : 0;
    await sleep(Math.max(backoffMs, retryAfterMs), request.signal);
  }
}

type Answer = Omit<HttpResponse, 'attempts' | 'failures'>;

/** Thrown into the body stream when the attempt's deadline passes. */
class Deadline extends Error {}

/** Statuses that send the client elsewhere (with a Location). */
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Redirects followed in one attempt, as browsers and follow-redirects allow. */
const MAX_REDIRECTS = 5;

/** One attempt: the request, and the requests its redirects ask for, up to MAX_REDIRECTS. */
async function attemptOnce(request: HttpRequest): Promise<Answer | HttpFailure> {
  let current = request;
  for (let hop = 0; ; hop++) {
    const outcome = await exchange(current);
    if (!('location' in outcome)) return outcome;
    const to = redact(outcome.location);
    if (hop === MAX_REDIRECTS) return { kind: 'status', status: outcome.status, text: `more than ${MAX_REDIRECTS} redirects (the last to ${to})` };
    const next = followRedirect(current, outcome.status, outcome.location);
    if (!next) return { kind: 'status', status: outcome.status, text: `a redirect to ${to}, which is no http or https address` };
    current = next;
  }
}

/**
 * The request a redirect asks for, as browsers make it: 303, and 301 or 302 after a POST, fetch the
 * new place with GET and no body; 307 and 308 send the same request again. Credentials (the
 * Authorization, Cookie and Proxy-Authorization headers) go only to the origin they were meant for.
 * Null when the Location is no http or https address.
 */
function followRedirect(request: HttpRequest, status: number, location: string): HttpRequest | null {
  const from = new URL(request.url);
  const to = URL.canParse(location, from.href) ? new URL(location, from) : null;
  if (to?.protocol !== 'http:' && to?.protocol !== 'https:') return null;
  const method = request.method ?? 'GET';
  const toGet = status === 303 ? method !== 'GET' : (status === 301 || status === 302) && method === 'POST';
  const crossOrigin = to.origin !== from.origin;
  const dropped = (name: string) => (crossOrigin && CREDENTIALS.has(name)) || (toGet && name === 'content-type');
  const headers = request.headers && Object.fromEntries(Object.entries(request.headers).filter(([name]) => !dropped(name.toLowerCase())));
  return { ...request, url: to.href, headers, ...(toGet ? { method: 'GET' as const, json: undefined, body: undefined } : {}) };
}

const CREDENTIALS = new Set(['authorization', 'cookie', 'proxy-authorization']);

/** A redirect's answer: where to go next. */
interface Redirect {
  status: number;
  location: string;
}

async function exchange(request: HttpRequest): Promise<Answer | HttpFailure | Redirect> {
  const { signal, timeoutMs } = request;
  if (signal?.aborted) throw abortError();
  const controller = new AbortController();
  let body: Readable | undefined;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
    body?.destroy(new Deadline());
  }, timeoutMs);
  const onAbort = () => {
    controller.abort();
    body?.destroy(abortError());
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const json = request.json !== undefined;
    const res: AxiosResponse<Readable> = await client.request({
      method: request.method ?? 'GET',
      url: request.url,
      headers: json ? { 'content-type': 'application/json', ...request.headers } : request.headers,
      data: json ? JSON.stringify(request.json) : request.body,
      signal: controller.signal,
    });
    body = res.data;
    if (timedOut) body.destroy(new Deadline());
    const header = (name: string) => headerValue(res, name);
    const location = header('location');
    if (REDIRECTS.has(res.status) && location) {
      // Its body is not read: the next request may go elsewhere, and a kept-alive socket with an
      // unread body would be handed to it.
      drop(res);
      return { status: res.status, location };
    }
    const ok = res.status >= 200 && res.status < 300;
    const declared = Number(header('content-length') ?? NaN);
    if (ok && declared > request.maxBytes) {
      drop(res);
      return { kind: 'too-large', maxBytes: request.maxBytes };
    }
    const { bytes, over } = await readCapped(body, ok ? request.maxBytes : ERROR_BODY_BYTES);
    if (over) {
      drop(res);
      if (ok) return { kind: 'too-large', maxBytes: request.maxBytes };
    }
    if (!ok) {
      const retryAfterMs = parseRetryAfter(header('retry-after'));
      return { kind: 'status', status: res.status, text: bytes.toString('utf8'), ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
    }
    return { status: res.status, header, body: bytes, text: () => bytes.toString('utf8'), json: () => JSON.parse(bytes.toString('utf8')) as unknown };
  } catch (err) {
    if (signal?.aborted) throw abortError();
    return noAnswer(err, timedOut, timeoutMs);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * The body up to `max` bytes; `over` once it goes past them, when the stream is destroyed and the
 * rest never read, so a body of any size costs at most `max` in memory.
 */
async function readCapped(body: Readable, max: number): Promise<{ bytes: Buffer; over: boolean }> {
  const chunks: Buffer[] = [];
  let total = 0;
  let over = false;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    if (total + chunk.length > max) {
      chunks.push(chunk.subarray(0, max - total));
      total = max;
      over = true;
      body.destroy();
      break;
    }
    chunks.push(chunk);
    total += chunk.length;
  }
  return { bytes: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total), over };
}

/** Hangs up: the socket goes with the request, so a server sending more is not read on. */
function drop(res: AxiosResponse<Readable>): void {
  res.data.destroy();
  (res.request as { destroy?: () => void } | undefined)?.destroy?.();
}

function headerValue(res: AxiosResponse, name: string): string | undefined {
  const value: unknown = (res.headers as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : Array.isArray(value) ? value.join(', ') : value === undefined || value === null ? undefined : String(value);
}

const CAUSES: Record<string, NoAnswerCause> = {
  ECONNABORTED: 'timeout',
  ETIMEDOUT: 'timeout',
  ERR_SOCKET_CONNECTION_TIMEOUT: 'timeout',
  ECONNREFUSED: 'refused',
  ECONNRESET: 'reset',
  EPIPE: 'reset',
  ERR_NETWORK: 'reset',
  EAI_AGAIN: 'dns',
  ENOTFOUND: 'dns',
};

function noAnswer(err: unknown, timedOut: boolean, timeoutMs: number): HttpFailure {
  if (timedOut || err instanceof Deadline) return { kind: 'no-answer', cause: 'timeout', timeoutMs, code: 'ETIMEDOUT', message: `no answer within ${timeoutMs} ms` };
  const e = err as (Error & { code?: unknown; cause?: { code?: unknown } }) | undefined;
  const code = typeof e?.code === 'string' ? e.code : typeof e?.cause?.code === 'string' ? e.cause.code : undefined;
  const message = redact(e?.message ?? String(err));
  return { kind: 'no-answer', cause: (code && CAUSES[code]) || 'other', timeoutMs, ...(code ? { code } : {}), message };
}

/** Seconds or an HTTP date; undefined when absent or unreadable. */
function parseRetryAfter(header: string | undefined): number | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const at = Date.parse(header);
  return Number.isFinite(at) ? Math.max(0, at - Date.now()) : undefined;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError());
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function abortError(): Error {
  return new DOMException('aborted', 'AbortError');
}
