/**
 * An OpenAI-compatible chat-completions endpoint (vLLM, OpenAI, routers; docs/endpoints.md). The I/O
 * shell of the model policy: a request with timeouts and bounded retries with exponential backoff on
 * 429, 5xx, timeouts and dropped connections, made by the one HTTP client (src/http.ts). A request
 * the endpoint answered with an error to the last attempt is returned as errors for the turn's
 * record: a provider error costs the turn, not the episode. An endpoint that is gone throws
 * EndpointGoneError and fails the episode: no attempt got an answer at all (refused, timed out), or
 * it refused the key (401/403, never retried).
 *
 * The API key comes from an environment variable chosen by the caller and is sent only as
 * `Authorization: Bearer`. Everything this module returns or throws (errors, error bodies, the
 * model's reply) is redacted first (src/core/secrets.ts).
 */
import { ServiceError, UsageError } from '../core/errors.js';
import { redact, redactDeep, registerSecret } from '../core/secrets.js';
import { formatBytes } from '../files.js';
import { HttpError, httpRequest, type HttpFailure, type HttpResponse } from '../http.js';

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
  const timeoutMs = endpoint.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxReplyBytes = endpoint.maxReplyBytes ?? DEFAULT_MAX_REPLY_BYTES;
  const started = performance.now();
  const latencyS = () => (performance.now() - started) / 1000;
  const errorsOf = (failures: HttpFailure[]) => failures.map((failure, i) => `attempt ${i + 1}: ${failureMessage(failure, maxReplyBytes)}`);
  let res: HttpResponse;
  try {
    res = await httpRequest({
      method: 'POST',
      url: request.url,
      headers: request.headers,
      json: request.body,
      timeoutMs,
      maxBytes: maxReplyBytes,
      signal,
      retry: {
        attempts: Math.max(1, endpoint.maxAttempts ?? DEFAULT_MAX_ATTEMPTS),
        baseDelayMs: endpoint.baseDelayMs ?? DEFAULT_BASE_DELAY_MS,
        // http.ts's defaults: 429, 5xx, timeouts and dropped connections are tried again (a refused
        // key, 401/403, never), a server's Retry-After honoured up to 30 s.
      },
    });
  } catch (err) {
    if (!(err instanceof HttpError)) throw err;
    const { failure, attempts } = err;
    const errors = errorsOf(err.failures);
    const message = failureMessage(failure, maxReplyBytes);
    if (failure.kind === 'status' && (failure.status === 401 || failure.status === 403)) throw new EndpointGoneError(refusedMessage(endpoint, message), attempts);
    if (failure.kind === 'no-answer') throw new EndpointGoneError(goneMessage(endpoint, attempts, message), attempts);
    // The endpoint answered: a provider error for the turn's record. A reply too large is not
    // retried (it would be as large again).
    return { reply: null, attempts, errors, latencyS: latencyS() };
  }
  const errors = errorsOf(res.failures);
  const data = bodyData(res.text());
  const reply = request.read(data);
  if (reply) return { reply, attempts: res.attempts, errors, latencyS: latencyS() };
  // A malformed reply is not retried: the endpoint would answer the same.
  errors.push(`attempt ${res.attempts}: malformed response: ${snippet(data)}`);
  return { reply: null, attempts: res.attempts, errors, latencyS: latencyS() };
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
  const timeoutMs = options.timeoutMs ?? 15_000;
  let body: unknown;
  try {
    body = bodyData((await httpRequest({ url, headers: headers(options.apiKey), timeoutMs, maxBytes: DEFAULT_MAX_REPLY_BYTES })).text());
  } catch (err) {
    if (!(err instanceof HttpError)) throw err;
    const { failure } = err;
    if (failure.kind === 'too-large') throw new ServiceError(`the model endpoint at ${url} answered with more than ${formatBytes(DEFAULT_MAX_REPLY_BYTES)}, not a model list`);
    if (failure.kind === 'no-answer') throw new ServiceError(`cannot reach the model endpoint at ${url}: ${failureMessage(failure, DEFAULT_MAX_REPLY_BYTES)}`);
    const body = snippet(bodyData(failure.text));
    if (failure.status === 401 || failure.status === 403) throw new ServiceError(refusedMessage({ ...options, baseUrl }, `HTTP ${failure.status}: ${body}`));
    throw new ServiceError(`the model endpoint answered HTTP ${failure.status} at ${url}: ${body}`);
  }
  const data = (body as { data?: unknown } | null)?.data;
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

/** One attempt's failure as the turn's record and the errors say it. */
function failureMessage(failure: HttpFailure, maxReplyBytes: number): string {
  switch (failure.kind) {
    case 'status':
      return `HTTP ${failure.status}: ${snippet(bodyData(failure.text))}`;
    case 'too-large':
      return `reply larger than ${formatBytes(maxReplyBytes)}, not read further`;
    case 'no-answer':
      if (failure.cause === 'timeout') return `no answer within ${failure.timeoutMs} ms (timeout)`;
      if (failure.cause === 'refused') return 'connection refused (ECONNREFUSED)';
      return failure.code ? `connection failed (${failure.code})` : `request failed: ${redact(failure.message)}`;
  }
}

/** A body as the reply readers take it: parsed JSON, else its text (empty or not JSON). */
function bodyData(text: string): unknown {
  if (text === '') return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** A response body, short enough for one line of an error: redacted before it is cut, so no cut hides a key. */
function snippet(data: unknown): string {
  const text = redact(typeof data === 'string' ? data : (JSON.stringify(data) ?? String(data)));
  return text.length > 300 ? `${text.slice(0, 297)}...` : text;
}
