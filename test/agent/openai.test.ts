import { afterEach, describe, expect, it } from 'vitest';
import { chatCompletion, checkModel, listModels, redact, type Endpoint } from '../../src/agent/openai.js';
import { EXIT, ServiceError, UsageError } from '../../src/core/errors.js';
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

  it('sends the key as a bearer token only when there is one, and redacts it from errors', async () => {
    const key = 'sk-test-0123456789abcdef';
    server = await startScriptedOpenAI({ script: [{ text: 'a' }, { status: 401, body: { error: `bad key ${key}` } }] });
    await chatCompletion(endpointOf(server), { messages: hello });
    expect(server.requests[0]!.headers.authorization).toBeUndefined();
    const call = await chatCompletion(endpointOf(server, { apiKey: key }), { messages: hello });
    expect(server.requests[1]!.headers.authorization).toBe(`Bearer ${key}`);
    expect(call.errors.join(' ')).not.toContain(key);
    expect(call.errors[0]).toContain('[redacted]');
    expect(redact(`x ${key} y ${key}`, key)).toBe('x [redacted] y [redacted]');
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
