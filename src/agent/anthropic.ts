/**
 * The Anthropic Messages API as a model endpoint (docs/endpoints.md, the harness's `anthropic` provider). The
 * model policy speaks OpenAI's chat shape; this module translates a request into a Messages request
 * (system text apart, images as base64 blocks, tool calls as tool_use blocks and their results as
 * tool_result blocks, one message per turn of the conversation) and the reply back. Retries, the
 * refused key and the endpoint that is gone are the shared loop's (openai.ts postWithRetries), so
 * both providers fail alike.
 *
 * The key goes only in `x-api-key`; what comes back is redacted as in openai.ts.
 */
import { redact, redactDeep } from '../core/secrets.js';
import { isRecord } from '../core/values.js';
import { joinUrl, postWithRetries, type ChatCall, type ChatReply, type Endpoint, type WireMessage } from './openai.js';

/** The API version the request shape follows. */
export const ANTHROPIC_VERSION = '2023-06-01';
/** The Messages API requires a cap; the harness's default. */
const DEFAULT_ANTHROPIC_MAX_TOKENS = 4096;

type Block =
  | { type: 'text'; text: string }
  | { type: 'image'; source: { type: 'base64'; media_type: string; data: string } }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'tool_result'; tool_use_id: string; content: string };

export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: Block[];
}

export async function anthropicCompletion(
  endpoint: Endpoint,
  request: { messages: WireMessage[]; tools?: unknown[] },
  signal?: AbortSignal,
): Promise<ChatCall> {
  const { system, messages } = toAnthropicMessages(request.messages);
  const tools = (request.tools ?? []).flatMap(toAnthropicTool);
  const body = {
    model: endpoint.model,
    max_tokens: endpoint.maxTokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS,
    ...(system ? { system } : {}),
    messages,
    ...(tools.length ? { tools } : {}),
    ...(endpoint.temperature !== undefined ? { temperature: endpoint.temperature } : {}),
    ...endpoint.extraBody,
  };
  const headers = {
    'content-type': 'application/json',
    'anthropic-version': ANTHROPIC_VERSION,
    ...(endpoint.apiKey ? { 'x-api-key': endpoint.apiKey } : {}),
  };
  return postWithRetries(endpoint, { url: messagesUrl(endpoint.baseUrl), body, headers, read: readAnthropicReply }, signal);
}

/** `https://api.anthropic.com` and `.../v1` both name the API: the route is `/v1/messages`. */
function messagesUrl(baseUrl: string): string {
  return /\/v1\/?$/.test(baseUrl) ? joinUrl(baseUrl, 'messages') : joinUrl(baseUrl, 'v1/messages');
}

/**
 * OpenAI-shaped messages as the Messages API takes them: system text apart, a tool's answer as a
 * tool_result block of a user turn, and consecutive turns of one role merged, since the API wants
 * user and assistant to alternate (a tool result and the image after it are one user turn).
 */
export function toAnthropicMessages(wire: readonly WireMessage[]): { system: string; messages: AnthropicMessage[] } {
  const system: string[] = [];
  const messages: AnthropicMessage[] = [];
  const push = (role: AnthropicMessage['role'], blocks: Block[]) => {
    if (blocks.length === 0) return;
    const last = messages.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  };
  for (const message of wire) {
    if (message.role === 'system') {
      system.push(textOf(message.content));
    } else if (message.role === 'tool') {
      push('user', [{ type: 'tool_result', tool_use_id: message.tool_call_id ?? '', content: textOf(message.content) }]);
    } else if (message.role === 'assistant') {
      const text = textOf(message.content);
      push('assistant', [...(text ? [{ type: 'text' as const, text }] : []), ...(message.tool_calls ?? []).flatMap(toolUse)]);
    } else {
      push('user', userBlocks(message.content));
    }
  }
  return { system: system.join('\n\n'), messages };
}

function userBlocks(content: WireMessage['content']): Block[] {
  if (content === null) return [];
  if (typeof content === 'string') return content ? [{ type: 'text', text: content }] : [];
  return content.map((part): Block => {
    if (part.type === 'text') return part;
    const data = /^data:([^;,]+);base64,(.*)$/s.exec(part.image_url.url);
    if (!data) throw new Error('an image for the Messages API must be a base64 data URL');
    return { type: 'image', source: { type: 'base64', media_type: data[1]!, data: data[2]! } };
  });
}

function textOf(content: WireMessage['content']): string {
  if (content === null) return '';
  if (typeof content === 'string') return content;
  return content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
}

function toolUse(raw: unknown): Block[] {
  const call = raw as { id?: unknown; function?: { name?: unknown; arguments?: unknown } };
  if (typeof call?.function?.name !== 'string') return [];
  const args = call.function.arguments;
  let input: Record<string, unknown> = {};
  if (isRecord(args)) input = args;
  else if (typeof args === 'string' && args.trim()) {
    try {
      const parsed: unknown = JSON.parse(args);
      // A call whose arguments were not an object was refused; the API wants an object all the same.
      if (isRecord(parsed)) input = parsed;
    } catch {
      input = {};
    }
  }
  return [{ type: 'tool_use', id: typeof call.id === 'string' ? call.id : '', name: call.function.name, input }];
}

function toAnthropicTool(raw: unknown): { name: string; description: string; input_schema: unknown }[] {
  const spec = raw as { function?: { name?: unknown; description?: unknown; parameters?: unknown } };
  const fn = spec?.function;
  if (typeof fn?.name !== 'string') return [];
  return [{ name: fn.name, description: typeof fn.description === 'string' ? fn.description : '', input_schema: fn.parameters ?? { type: 'object' } }];
}

/** A Messages reply in the shape the policy reads; tool_use blocks become OpenAI-style tool calls. */
export function readAnthropicReply(data: unknown): ChatReply | null {
  if (!isRecord(data) || !Array.isArray(data.content)) return null;
  const texts: string[] = [];
  const thinking: string[] = [];
  const toolCalls: unknown[] = [];
  for (const block of data.content as unknown[]) {
    if (!isRecord(block)) continue;
    if (block.type === 'text' && typeof block.text === 'string') texts.push(block.text);
    else if (block.type === 'thinking' && typeof block.thinking === 'string') thinking.push(block.thinking);
    else if (block.type === 'tool_use' && typeof block.name === 'string') {
      toolCalls.push({ id: typeof block.id === 'string' ? block.id : '', type: 'function', function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) } });
    }
  }
  const usage = isRecord(data.usage) ? data.usage : {};
  const tokensIn = typeof usage.input_tokens === 'number' ? usage.input_tokens : null;
  const tokensOut = typeof usage.output_tokens === 'number' ? usage.output_tokens : null;
  return {
    content: redact(texts.join('')),
    reasoning: thinking.length ? redact(thinking.join('\n')) : null,
    toolCalls: redactDeep(toolCalls),
    finishReason: typeof data.stop_reason === 'string' ? data.stop_reason : null,
    tokensIn,
    tokensOut,
    tokensTotal: tokensIn !== null && tokensOut !== null ? tokensIn + tokensOut : null,
    tokensReasoning: null,
  };
}
