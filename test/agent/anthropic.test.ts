/**
 * The `anthropic` provider against a real loopback Messages API stand-in: the request's wire shape
 * (system apart, images as base64 blocks, tools with input_schema, tool_use and tool_result blocks,
 * alternating turns), the reply read back in the policy's shape, and the same retry, refused-key and
 * gone semantics as the OpenAI provider. Then a whole episode played through the model policy.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { anthropicCompletion } from '../../src/agent/anthropic.js';
import { EndpointGoneError, type Endpoint, type WireMessage } from '../../src/agent/openai.js';
import { knowledgeFromTask } from '../../src/agent/leak-guard.js';
import { createModelPolicy } from '../../src/agent/policies/model.js';
import { runEpisode } from '../../src/agent/runner.js';
import { isCompleted } from '../../src/core/episode.js';
import { truthOf } from '../../src/core/tasks.js';
import { EmbeddedEnvClient } from '../../src/env/client/embedded.js';
import { createEnvironment } from '../../src/env/environment.js';
import { demoSplits } from '../../src/env/task-splits.js';
import { tempDir } from '../helpers/fixtures.js';
import { startScriptedAnthropic, type ScriptedAnthropic } from '../helpers/scripted-anthropic.js';
import { toolCall } from '../helpers/scripted-openai.js';

let server: ScriptedAnthropic | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const endpointOf = (s: ScriptedAnthropic, overrides: Partial<Endpoint> = {}): Endpoint => ({
  provider: 'anthropic',
  baseUrl: s.baseUrl,
  model: 'claude-stand-in',
  baseDelayMs: 5,
  timeoutMs: 2_000,
  ...overrides,
});

const PIXEL = Buffer.from('/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQH/wAALCAABAAEBAREA/8QAFAABAAAAAAAAAAAAAAAAAAAACf/EABQQAQAAAAAAAAAAAAAAAAAAAAD/2gAIAQEAAD8AKp//2Q==', 'base64');

describe('the Messages API request', () => {
  it('sends system apart, images as base64 blocks, tools with input_schema, and calls and results as blocks of alternating turns', async () => {
    server = await startScriptedAnthropic({ script: [{ toolCalls: [toolCall('guess', { lat: 1, lon: 2 })], reasoning: 'mull', content: 'Guessing.' }] });
    const dataUrl = `data:image/jpeg;base64,${PIXEL.toString('base64')}`;
    const messages: WireMessage[] = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: [{ type: 'text', text: 'Where?' }, { type: 'image_url', image_url: { url: dataUrl } }] },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'look', arguments: '{"heading_deg":90}' } }] },
      { role: 'tool', tool_call_id: 'call_1', name: 'look', content: 'Facing east.' },
      { role: 'user', content: [{ type: 'text', text: 'The view after look:' }, { type: 'image_url', image_url: { url: dataUrl } }] },
    ];
    const tools = [{ type: 'function', function: { name: 'guess', description: 'Submit.', parameters: { type: 'object', properties: { lat: { type: 'number' } } } } }];
    const key = 'sk-ant-test-0123456789abcdef';
    const call = await anthropicCompletion(endpointOf(server, { apiKey: key, maxTokens: 512, extraBody: { thinking: { type: 'enabled', budget_tokens: 2048 } } }), { messages, tools });

    const { body, headers } = server.requests[0]!;
    expect(headers['x-api-key']).toBe(key);
    expect(headers['anthropic-version']).toBe('2023-06-01');
    expect(headers.authorization).toBeUndefined();
    expect(body).toMatchObject({ model: 'claude-stand-in', max_tokens: 512, system: 'Be brief.', thinking: { type: 'enabled', budget_tokens: 2048 } });
    expect(body.tools).toEqual([{ name: 'guess', description: 'Submit.', input_schema: { type: 'object', properties: { lat: { type: 'number' } } } }]);
    expect(body.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(body.messages[0]!.content[1]).toEqual({ type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: PIXEL.toString('base64') } });
    expect(body.messages[1]!.content).toEqual([{ type: 'tool_use', id: 'call_1', name: 'look', input: { heading_deg: 90 } }]);
    expect(body.messages[2]!.content.map((b) => b.type)).toEqual(['tool_result', 'text', 'image']);
    expect(body.messages[2]!.content[0]).toEqual({ type: 'tool_result', tool_use_id: 'call_1', content: 'Facing east.' });

    expect(call.reply).toMatchObject({ content: 'Guessing.', reasoning: 'mull', finishReason: 'tool_use', tokensIn: 201, tokensOut: 21, tokensTotal: 222 });
    expect(call.reply!.toolCalls).toEqual([{ id: 'toolu_1_0', type: 'function', function: { name: 'guess', arguments: '{"lat":1,"lon":2}' } }]);
  });

  it('retries an overloaded 529, and a refused key or a dead server is an EndpointGoneError as with OpenAI', async () => {
    server = await startScriptedAnthropic({ script: [{ status: 529 }, { text: 'ok' }, { status: 401 }, { die: true }] });
    const hello: WireMessage[] = [{ role: 'user', content: 'hi' }];
    const ok = await anthropicCompletion(endpointOf(server), { messages: hello });
    expect(ok).toMatchObject({ attempts: 2, reply: { content: 'ok', finishReason: 'end_turn' } });
    expect(ok.errors[0]).toMatch(/^attempt 1: HTTP 529/);

    const refused = anthropicCompletion(endpointOf(server, { apiKeyEnv: 'ANTHROPIC_API_KEY' }), { messages: hello });
    await expect(refused).rejects.toThrow(EndpointGoneError);
    await expect(refused).rejects.toThrow(/refused the request \(HTTP 401.*\$ANTHROPIC_API_KEY is not set/);

    const gone = anthropicCompletion(endpointOf(server), { messages: hello });
    await expect(gone).rejects.toThrow(`the model endpoint at ${server.baseUrl} is gone`);
  });
});

describe('an episode through the model policy', () => {
  it('plays look then guess over the Messages API and records the provider', async () => {
    const task = (await demoSplits()).get('eval')![0]!;
    const truth = truthOf(task);
    server = await startScriptedAnthropic({ script: [{ toolCalls: [toolCall('look', { heading_deg: 90 })] }, { toolCalls: [toolCall('guess', { lat: truth.lat, lon: truth.lon })] }] });
    const env = createEnvironment({ splits: await demoSplits(), panoramasDir: tempDir(), demo: true, workers: 0 });
    try {
      const policy = createModelPolicy({ endpoint: endpointOf(server), protocol: 'tools', guard: knowledgeFromTask(task), name: 'sonnet-stand-in' });
      const record = await runEpisode({ client: new EmbeddedEnvClient(env), policy, split: 'eval', index: 0, maxTurns: 4 });
      expect(isCompleted(record), JSON.stringify(record).slice(0, 300)).toBe(true);
      if (!isCompleted(record)) return;
      expect(record.model_name).toBe('sonnet-stand-in');
      expect(record.model).toMatchObject({ provider: 'anthropic', model: 'claude-stand-in' });
      expect(record.outcome.distance_km).toBeLessThan(1);
      expect(record.turns[1]!.model).toMatchObject({ finish_reason: 'tool_use', tokens: { input: 201, output: 21, total: 222 } });
      // The second request carries the look's result as a tool_result, then its view as an image.
      const second = server.requests[1]!.body.messages.at(-1)!;
      expect(second.content.map((b) => b.type)).toEqual(['tool_result', 'text', 'image']);
    } finally {
      await env.close();
    }
  });
});
