import { afterEach, describe, expect, it } from 'vitest';
import { chatCompletion, checkModel, EndpointGoneError, listModels, type Endpoint } from '../../src/agent/openai.js';
import { EXIT, ServiceError, UsageError } from '../../src/core/errors.js';
import { FRAGMENT_CHARS } from '../../src/core/secrets.js';
import { startScriptedOpenAI, toolCall, type ScriptedOpenAI } from '../helpers/scripted-openai.js';

let server: ScriptedOpenAI | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const endpointOf = (s: ScriptedOpenAI, overrides: Partial<Endpoint> = {}): Endpoint => ({
  baseUrl: s.baseUrl,
  model: 'scripted',
  baseDelayMs: 5,
  timeoutMs: 2_000,
  ...overrides,
});
const hello = [{ role: 'user' as const, content: 'hello' }];

describe('chat completions', () => {
  it('sends model, messages, tools, temperature and max_tokens, and reads the reply', async () => {
    server = await startScriptedOpenAI({ script: [{ toolCalls: [toolCall('look', { heading_deg: 90 })], reasoning: 'east first' }] });
    const tools = [{ type: 'function', function: { name: 'look', description: 'd', parameters: {} } }];
    const call = await chatCompletion(endpointOf(server, { temperature: 0.7, maxTokens: 99 }), { messages: hello, tools });
    expect(server.requests[0]!.body).toMatchObject({ model: 'scripted', messages: hello, tools, temperature: 0.7, max_tokens: 99 });
    expect(call).toMatchObject({ attempts: 1, errors: [] });
    expect(call.reply).toMatchObject({ reasoning: 'east first', finishReason: 'tool_calls', tokensIn: 101, tokensOut: 11 });
    expect(call.reply!.toolCalls).toMatchObject([{ function: { name: 'look', arguments: '{"heading_deg":90}' } }]);
  });

  it('retries a 500 and records the attempt', async () => {
    server = await startScriptedOpenAI({ script: [{ status: 500, body: { error: 'overloaded' } }, { text: 'ok' }] });
    const call = await chatCompletion(endpointOf(server), { messages: hello });
    expect(call.reply?.content).toBe('ok');
    expect(call.attempts).toBe(2);
    expect(call.errors).toEqual(['attempt 1: HTTP 500: {"error":"overloaded"}']);
  });

  it('retries 429 and timeouts, and gives up after the last attempt without throwing', async () => {
    server = await startScriptedOpenAI({ script: [{ status: 429 }, { hang: true }, { status: 503 }] });
    const call = await chatCompletion(endpointOf(server, { timeoutMs: 300 }), { messages: hello });
    expect(call.reply).toBeNull();
    expect(call.attempts).toBe(3);
    expect(call.errors[0]).toMatch(/^attempt 1: HTTP 429/);
    expect(call.errors[1]).toBe('attempt 2: no answer within 300 ms (timeout)');
    expect(call.errors[2]).toMatch(/^attempt 3: HTTP 503/);
  });

  it('does not retry a client error', async () => {
    server = await startScriptedOpenAI({ script: [{ status: 400, body: { error: 'context too long' } }, { text: 'never' }] });
    const call = await chatCompletion(endpointOf(server), { messages: hello });
    expect(call).toMatchObject({ reply: null, attempts: 1 });
    expect(server.requests).toHaveLength(1);
  });

  it('sends the key as a bearer token only when there is one', async () => {
    const key = 'sk-test-0123456789abcdef';
    server = await startScriptedOpenAI({ script: [{ text: 'a' }, { text: 'b' }] });
    await chatCompletion(endpointOf(server), { messages: hello });
    expect(server.requests[0]!.headers.authorization).toBeUndefined();
    await chatCompletion(endpointOf(server, { apiKey: key }), { messages: hello });
    expect(server.requests[1]!.headers.authorization).toBe(`Bearer ${key}`);
  });

  it('gives up at once on 401 and 403, naming the endpoint and the key variable, never the key', async () => {
    const key = 'sk-refused-9f8e7d6c5b4a3210';
    for (const status of [401, 403]) {
      server = await startScriptedOpenAI({ script: [{ status, body: { error: `key ${key} is revoked; ${key.slice(0, 14)}` } }, { text: 'never' }] });
      const err = await chatCompletion(endpointOf(server, { apiKey: key, apiKeyEnv: 'GEO_KEY' }), { messages: hello }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(EndpointGoneError);
      expect((err as EndpointGoneError).exitCode).toBe(EXIT.unreachable);
      const message = (err as Error).message;
      expect(message).toContain(`the model endpoint at ${server.baseUrl} refused the request (HTTP ${status}`);
      expect(message).toContain('$GEO_KEY');
      expect(fragmentsOf(key).filter((f) => message.includes(f))).toEqual([]);
      expect(server.requests).toHaveLength(1);
      await server.close();
    }
    server = undefined;
  });

  it('gives up on an endpoint that refuses connections or never answers, after the retries', async () => {
    server = await startScriptedOpenAI({ script: [{ text: 'alive' }, { die: true }] });
    const endpoint = endpointOf(server, { timeoutMs: 300 });
    expect((await chatCompletion(endpoint, { messages: hello })).reply?.content).toBe('alive');
    const refused = await chatCompletion(endpoint, { messages: hello }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(EndpointGoneError);
    expect((refused as Error).message).toBe(`the model endpoint at ${server.baseUrl} is gone: 3 attempts got no answer, the last connection refused (ECONNREFUSED)`);

    server = await startScriptedOpenAI({ script: [{ hang: true }, { hang: true }, { hang: true }, { text: 'too late' }] });
    const hung = await chatCompletion(endpointOf(server, { timeoutMs: 200 }), { messages: hello }).catch((e: unknown) => e);
    expect(hung).toBeInstanceOf(EndpointGoneError);
    expect((hung as Error).message).toMatch(/is gone: 3 attempts got no answer, the last no answer within 200 ms \(timeout\)$/);
    expect(server.requests).toHaveLength(3);
  });

  it('redacts the key, whole or cut off, from error bodies and replies, before cutting a long body short', async () => {
    const key = 'sk-live-AbCdEfGhIjKlMnOpQrStUvWx';
    // Cut before redacting, this body would keep the first 10 characters of the key (a cut at 297).
    const long = `${'y'.repeat(287)}${key}`;
    server = await startScriptedOpenAI({
      script: [
        { status: 500, body: { error: `bad key ${key}` } },
        { status: 502, body: `upstream said: ${key.slice(3, 15)}` },
        { status: 503, body: long },
        { toolCalls: [toolCall('look', { heading_deg: 90, note: key })], content: `The key is ${key}.`, reasoning: `I saw ${key.slice(-11)} once` },
      ],
    });
    const call = await chatCompletion(endpointOf(server, { apiKey: key, maxAttempts: 4 }), { messages: hello });
    const everything = JSON.stringify(call);
    expect(fragmentsOf(key).filter((f) => everything.includes(f))).toEqual([]);
    expect(call.errors[1]).toBe('attempt 2: HTTP 502: upstream said: [redacted]');
    expect(call.reply?.content).toBe('The key is [redacted].');
    expect(call.reply?.reasoning).toBe('I saw [redacted] once');
  });

  it('throws on abort instead of recording an error', async () => {
    server = await startScriptedOpenAI({ script: [{ hang: true }] });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    await expect(chatCompletion(endpointOf(server), { messages: hello }, controller.signal)).rejects.toThrow(/aborted/);
  });
});

describe('model listing', () => {
  it('lists the served models with an adapter base', async () => {
    server = await startScriptedOpenAI({ script: [], models: [{ id: 'Qwen/Qwen3.5-4B' }, { id: 'run1', parent: 'Qwen/Qwen3.5-4B' }] });
    expect(await listModels(server.baseUrl)).toEqual([
      { id: 'Qwen/Qwen3.5-4B', parent: null, root: 'Qwen/Qwen3.5-4B' },
      { id: 'run1', parent: 'Qwen/Qwen3.5-4B', root: 'run1' },
    ]);
    expect(await checkModel(server.baseUrl, 'run1')).toMatchObject({ parent: 'Qwen/Qwen3.5-4B' });
  });

  it('refuses a model the endpoint does not serve, naming what it serves', async () => {
    server = await startScriptedOpenAI({ script: [], models: [{ id: 'run1' }] });
    const err = await checkModel(server.baseUrl, 'run2').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toContain('it serves: run1');
  });

  it('reports a refused key as a service error (exit 3) naming the key variable, never the key', async () => {
    const key = 'sk-listing-5e6f7a8b9c0d1e2f';
    server = await startScriptedOpenAI({ script: [], modelsError: { status: 403, body: { error: `forbidden for ${key.slice(2)}` } } });
    const err = await checkModel(server.baseUrl, 'scripted', { apiKey: key, apiKeyEnv: 'GEO_KEY' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect((err as ServiceError).exitCode).toBe(EXIT.unreachable);
    expect((err as Error).message).toBe(`the model endpoint at ${server.baseUrl} refused the request (HTTP 403: {"error":"forbidden for [redacted]"}): check the key in $GEO_KEY`);
  });

  it('reports an unreachable endpoint as a service error (exit 3)', async () => {
    server = await startScriptedOpenAI({ script: [] });
    const url = server.baseUrl;
    await server.close();
    server = undefined;
    const err = await listModels(url).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect((err as ServiceError).exitCode).toBe(EXIT.unreachable);
    expect((err as Error).message).toContain('ECONNREFUSED');
  });
});

/** Every run of FRAGMENT_CHARS characters of a key: none may appear anywhere. */
function fragmentsOf(key: string): string[] {
  return Array.from({ length: key.length - FRAGMENT_CHARS + 1 }, (_, i) => key.slice(i, i + FRAGMENT_CHARS));
}
