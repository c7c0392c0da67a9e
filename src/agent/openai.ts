/**
 * An OpenAI-compatible chat-completions endpoint (vLLM, OpenAI, routers; docs/endpoints.md). The I/O shell of
 * the model policy: a request with timeouts and bounded retries with exponential backoff on 429, 5xx,
 * timeouts and dropped connections. A request the endpoint answered with an error to the last
 * attempt is returned as errors for the turn's record: a provider error costs the turn, not the
 * episode. An endpoint that is gone throws EndpointGoneError and fails the episode: no attempt got
 * an answer at all (refused, timed out), or it refused the key (401/403, never retried).
 *
 * The API key comes from an environment variable chosen by the caller and is sent only as
 * `Authorization: Bearer`. Everything this module returns or throws (errors, error bodies, the
 * model's reply) is redacted first (src/core/secrets.ts).
 */
import axios, { type AxiosResponse } from 'axios';
import { ServiceError, UsageError } from '../core/errors.js';
import { redact, redactDeep, registerSecret } from '../core/secrets.js';

export interface Endpoint {
  /** Up to and including the version: `http://127.0.0.1:8000/v1`. */
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** The environment variable the key came from, named (never its value) when the key is refused. */
  apiKeyEnv?: string;
  /** Per attempt. */
  timeoutMs?: number;
  /** Attempts in all, the first included. */
  maxAttempts?: number;
  /** Delay before the first retry; each further retry waits twice as long. */
  baseDelayMs?: number;
  temperature?: number;
  maxTokens?: number;
  /** Which API the endpoint speaks (default `openai`: chat completions; `anthropic`: the Messages API, anthropic.ts). */
  provider?: 'openai' | 'anthropic';
  /** Merged into every request body, as the harness's `extra_body` (vLLM's chat_template_kwargs, ...). */
  extraBody?: Record<string, unknown>;
  /** A reply past this many bytes (decompressed) is cut off while it streams in: a provider error (default 16 MiB). */
  maxReplyBytes?: number;
}

export const DEFAULT_TIMEOUT_MS = 180_000;
/** docs/reliability.md: a model's reply is never read past this (a runaway reply once took a sweep to 4 GB). */
export const DEFAULT_MAX_REPLY_BYTES = 16 * 2 ** 20;
export const DEFAULT_MAX_ATTEMPTS = 3;
export const DEFAULT_BASE_DELAY_MS = 1_000;
/** A server's Retry-After is honoured up to this long. */
const MAX_RETRY_AFTER_MS = 30_000;

export type WirePart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };

export interface WireMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | WirePart[] | null;
  tool_calls?: unknown[];
  tool_call_id?: string;
  name?: string;
}

export interface ChatReply {
  content: string;
  /** vLLM's reasoning parser puts thinking here (`reasoning_content`, newer servers `reasoning`). */
  reasoning: string | null;
  toolCalls: unknown[];
  finishReason: string | null;
  tokensIn: number | null;
  tokensOut: number | null;
  tokensTotal: number | null;
  /** Reasoning tokens within tokensOut, when the server says (`completion_tokens_details`). */
  tokensReasoning: number | null;
}

export interface ChatCall {
  /** Null when every attempt failed. */
  reply: ChatReply | null;
  attempts: number;
  /** One line per failed attempt, key redacted. */
  errors: string[];
  latencyS: number;
}

/** The endpoint is gone or refuses the key: the episode cannot go on (exit 3, docs/sweeps.md). */
export class EndpointGoneError extends ServiceError {
  constructor(
    message: string,
    /** Attempts the failing request made (its retries are counted even though no turn records them). */
    readonly attempts = 0,
  ) {
    super(message);
  }
}

/**
 * The endpoint answers, but no request of an episode got a reply after its retries (HTTP 500 to
 * everything): as good as gone for the sweep, which takes the replica out (policies/model.ts, docs/sweeps.md).
 */
export class EndpointUnusableError extends EndpointGoneError {}

type Failure = { message: string; retry: boolean; retryAfterMs?: number; kind: 'http' | 'refused' | 'transport' };

export async function chatCompletion(
  endpoint: Endpoint,
  request: { messages: WireMessage[]; tools?: unknown[] },
  signal?: AbortSignal,
): Promise<ChatCall> {
  const body = {
    model: endpoint.model,
    messages: request.messages,
    ...(request.tools?.length ? { tools: request.tools } : {}),
    ...(endpoint.temperature !== undefined ? { temperature: endpoint.temperature } : {}),
    ...(endpoint.maxTokens !== undefined ? { max_tokens: endpoint.maxTokens } : {}),
    ...endpoint.extraBody,
  };
  return postWithRetries(endpoint, { url: joinUrl(endpoint.baseUrl, 'chat/completions'), body, headers: headers(endpoint.apiKey), read: readReply }, signal);
}

/**
 * The request loop every provider shares: POST, read the reply, retry what is worth retrying with
 * backoff, and tell a refused key or an endpoint that never answered (EndpointGoneError) from an
 * error the endpoint answered with (errors for the turn's record).
 */
export async function postWithRetries(
  endpoint: Endpoint,
  request: { url: string; body: unknown; headers: Record<string, string>; read: (data: unknown) => ChatReply | null },
  signal?: AbortSignal,
): Promise<ChatCall> {
  registerSecret(endpoint.apiKey, endpoint.apiKeyEnv ? `$${endpoint.apiKeyEnv}` : undefined);
  const maxAttempts = Math.max(1, endpoint.maxAttempts ?? DEFAULT_MAX_ATTEMPTS);
  const timeoutMs = endpoint.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxReplyBytes = endpoint.maxReplyBytes ?? DEFAULT_MAX_REPLY_BYTES;
  const errors: string[] = [];
  const started = performance.now();
  const latencyS = () => (performance.now() - started) / 1000;
  for (let attempt = 1; ; attempt++) {
    let failure: Failure;
    try {
      const res = await axios.post(request.url, request.body, {
        headers: request.headers,
        timeout: timeoutMs,
        signal,
        validateStatus: () => true,
        // Images make bodies large; the server sets its own limit.
        maxBodyLength: Infinity,
        // axios stops reading past it and rejects with ERR_BAD_RESPONSE (replyTooLarge below).
        maxContentLength: maxReplyBytes,
      });
      if (res.status >= 200 && res.status < 300) {
        const reply = request.read(res.data);
        if (reply) return { reply, attempts: attempt, errors, latencyS: latencyS() };
        failure = { message: `malformed response: ${snippet(res.data)}`, retry: false, kind: 'http' };
      } else {
        failure = {
          message: `HTTP ${res.status}: ${snippet(res.data)}`,
          retry: res.status === 429 || res.status >= 500,
          retryAfterMs: retryAfterMs(res),
          kind: res.status === 401 || res.status === 403 ? 'refused' : 'http',
        };
      }
    } catch (err) {
      if (signal?.aborted) throw abortError();
      failure = replyTooLarge(err, maxReplyBytes) ?? transportFailure(err, timeoutMs);
    }
    errors.push(`attempt ${attempt}: ${failure.message}`);
    if (failure.kind === 'refused') throw new EndpointGoneError(refusedMessage(endpoint, failure.message), attempt);
    if (!failure.retry || attempt >= maxAttempts) {
      if (failure.kind === 'transport') throw new EndpointGoneError(goneMessage(endpoint, attempt, failure.message), attempt);
      return { reply: null, attempts: attempt, errors, latencyS: latencyS() };
    }
    const backoffMs = (endpoint.baseDelayMs ?? DEFAULT_BASE_DELAY_MS) * 2 ** (attempt - 1);
    await sleep(Math.max(backoffMs, failure.retryAfterMs ?? 0), signal);
  }
}

export interface ServedModel {
  id: string;
  /** vLLM: the base model a LoRA adapter is served on. */
  parent: string | null;
  root: string | null;
}

type EndpointAccess = { apiKey?: string; apiKeyEnv?: string; timeoutMs?: number };

/** `GET {baseUrl}/models`; an endpoint that cannot be reached or answers with an error is a ServiceError (exit 3). */
export async function listModels(baseUrl: string, options: EndpointAccess = {}): Promise<ServedModel[]> {
  registerSecret(options.apiKey, options.apiKeyEnv ? `$${options.apiKeyEnv}` : undefined);
  const url = joinUrl(baseUrl, 'models');
  let res: AxiosResponse;
  try {
    res = await axios.get(url, { headers: headers(options.apiKey), timeout: options.timeoutMs ?? 15_000, validateStatus: () => true });
  } catch (err) {
    throw new ServiceError(`cannot reach the model endpoint at ${url}: ${transportFailure(err, options.timeoutMs ?? 15_000).message}`);
  }
  if (res.status === 401 || res.status === 403) throw new ServiceError(refusedMessage({ ...options, baseUrl }, `HTTP ${res.status}: ${snippet(res.data)}`));
  if (res.status < 200 || res.status >= 300) {
    throw new ServiceError(`the model endpoint answered HTTP ${res.status} at ${url}: ${snippet(res.data)}`);
  }
  const data = (res.data as { data?: unknown })?.data;
  if (!Array.isArray(data)) throw new ServiceError(`the model endpoint at ${url} did not answer with a model list`);
  return data.flatMap((entry) => {
    const e = entry as { id?: unknown; parent?: unknown; root?: unknown };
    if (typeof e.id !== 'string') return [];
    return [{ id: e.id, parent: typeof e.parent === 'string' ? e.parent : null, root: typeof e.root === 'string' ? e.root : null }];
  });
}

/**
 * The requested model must be listed: vLLM serves a request for an unknown name with nothing, and an
 * adapter name mistyped is the commonest way to evaluate the wrong thing.
 */
export async function checkModel(baseUrl: string, model: string, options: EndpointAccess = {}): Promise<ServedModel> {
  const served = await listModels(baseUrl, options);
  const found = served.find((m) => m.id === model);
  if (!found) {
    const names = served.map((m) => m.id).join(', ') || 'nothing';
    throw new UsageError(`model "${model}" is not served at ${baseUrl} (it serves: ${names}); choose one of those`);
  }
  return found;
}

/** Names the variable the key came from, never the key. */
function refusedMessage(endpoint: { baseUrl: string; apiKey?: string; apiKeyEnv?: string }, failure: string): string {
  const key = endpoint.apiKey
    ? `check the key${endpoint.apiKeyEnv ? ` in $${endpoint.apiKeyEnv}` : ''}`
    : endpoint.apiKeyEnv
      ? `$${endpoint.apiKeyEnv} is not set, so no key was sent`
      : 'no key was sent: name the variable holding it with --api-key-env';
  return `the model endpoint at ${endpoint.baseUrl} refused the request (${failure}): ${key}`;
}

function goneMessage(endpoint: Endpoint, attempts: number, failure: string): string {
  return `the model endpoint at ${endpoint.baseUrl} is gone: ${attempts} attempt${attempts === 1 ? '' : 's'} got no answer, the last ${failure}`;
}

function headers(apiKey: string | undefined): Record<string, string> {
  return { 'content-type': 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) };
}

export function joinUrl(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/${path}`;
}

function readReply(data: unknown): ChatReply | null {
  const body = data as {
    choices?: { message?: Record<string, unknown>; finish_reason?: unknown }[];
    usage?: { prompt_tokens?: unknown; completion_tokens?: unknown; total_tokens?: unknown; completion_tokens_details?: { reasoning_tokens?: unknown } };
  };
  const choice = Array.isArray(body?.choices) ? body.choices[0] : undefined;
  const message = choice?.message;
  if (!message || typeof message !== 'object') return null;
  const reasoning = message.reasoning_content ?? message.reasoning;
  // A model can repeat a key it was shown (an echoed error, a prompt): the reply is recorded and replayed.
  return {
    content: typeof message.content === 'string' ? redact(message.content) : '',
    reasoning: typeof reasoning === 'string' ? redact(reasoning) : null,
    toolCalls: Array.isArray(message.tool_calls) ? redactDeep(message.tool_calls) : [],
    finishReason: typeof choice?.finish_reason === 'string' ? choice.finish_reason : null,
    tokensIn: typeof body.usage?.prompt_tokens === 'number' ? body.usage.prompt_tokens : null,
    tokensOut: typeof body.usage?.completion_tokens === 'number' ? body.usage.completion_tokens : null,
    tokensTotal: typeof body.usage?.total_tokens === 'number' ? body.usage.total_tokens : null,
    tokensReasoning: typeof body.usage?.completion_tokens_details?.reasoning_tokens === 'number' ? body.usage.completion_tokens_details.reasoning_tokens : null,
  };
}

const RETRYABLE_CODES = new Set(['ECONNABORTED', 'ETIMEDOUT', 'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'EAI_AGAIN', 'ENOTFOUND', 'ERR_NETWORK', 'ERR_SOCKET_CONNECTION_TIMEOUT']);

/** A reply cut off at the cap: the endpoint answered, so this turn is a provider error, not a gone endpoint; not retried (it would be as large again). */
function replyTooLarge(err: unknown, maxReplyBytes: number): Failure | null {
  if (!axios.isAxiosError(err) || err.code !== 'ERR_BAD_RESPONSE' || !/maxContentLength/.test(err.message)) return null;
  return { message: `reply larger than ${formatMiB(maxReplyBytes)}, not read further`, retry: false, kind: 'http' };
}

function formatMiB(bytes: number): string {
  const mib = bytes / 2 ** 20;
  return `${Number.isInteger(mib) ? mib : mib.toFixed(1)} MiB`;
}

function transportFailure(err: unknown, timeoutMs: number): Failure {
  const code = axios.isAxiosError(err) ? err.code : (err as NodeJS.ErrnoException)?.code;
  if (code === 'ECONNABORTED' || code === 'ETIMEDOUT') return { message: `no answer within ${timeoutMs} ms (timeout)`, retry: true, kind: 'transport' };
  const message =
    code === 'ECONNREFUSED'
      ? 'connection refused (ECONNREFUSED)'
      : code
        ? `connection failed (${code})`
        : `request failed: ${redact((err as Error)?.message ?? String(err))}`;
  return { message, retry: code !== undefined && RETRYABLE_CODES.has(code), kind: 'transport' };
}

function retryAfterMs(res: AxiosResponse): number | undefined {
  const header = res.headers['retry-after'];
  const seconds = typeof header === 'string' ? Number(header) : NaN;
  return Number.isFinite(seconds) && seconds >= 0 ? Math.min(seconds * 1000, MAX_RETRY_AFTER_MS) : undefined;
}

/** A response body, short enough for one line of an error: redacted before it is cut, so no cut hides a key. */
function snippet(data: unknown): string {
  const text = redact(typeof data === 'string' ? data : (JSON.stringify(data) ?? String(data)));
  return text.length > 300 ? `${text.slice(0, 297)}...` : text;
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
