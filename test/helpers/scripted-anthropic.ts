/**
 * A real Anthropic-style Messages API server on 127.0.0.1 answering from a script, as
 * scripted-openai.ts does for chat completions: `POST /v1/messages` takes the next reply (tool_use
 * blocks, text, an HTTP error, no answer, or the server's death). Requests and headers are kept.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeServer, send, type ScriptedReply } from './scripted-openai.js';

export interface MessagesRequestBody {
  model: string;
  max_tokens: number;
  system?: string;
  messages: { role: string; content: { type: string; [key: string]: unknown }[] }[];
  tools?: { name: string; description: string; input_schema: Record<string, unknown> }[];
  [key: string]: unknown;
}

export interface ScriptedAnthropic {
  /** As a models file's base_url takes it: http://127.0.0.1:PORT */
  baseUrl: string;
  requests: { body: MessagesRequestBody; headers: IncomingHttpHeaders }[];
  close(): Promise<void>;
}

export async function startScriptedAnthropic(options: { script: ScriptedReply[] | ((body: MessagesRequestBody, n: number) => ScriptedReply) }): Promise<ScriptedAnthropic> {
  const requests: ScriptedAnthropic['requests'] = [];
  const hanging = new Set<ServerResponse>();
  const next = (body: MessagesRequestBody): ScriptedReply => {
    const n = requests.length - 1;
    if (typeof options.script === 'function') return options.script(body, n);
    return options.script[n] ?? { status: 500, body: { type: 'error', error: { type: 'api_error', message: `script exhausted at request ${n}` } } };
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (req.method !== 'POST' || path !== '/v1/messages') return send(res, 404, { type: 'error', error: { type: 'not_found_error', message: `no route ${path}` } });
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as MessagesRequestBody;
      requests.push({ body, headers: req.headers });
      const reply = next(body);
      if ('hang' in reply) return void hanging.add(res);
      if ('die' in reply) {
        server.close();
        server.closeAllConnections();
        req.socket.destroy();
        return;
      }
      if ('status' in reply) return send(res, reply.status, reply.body ?? { type: 'error', error: { type: 'api_error', message: `scripted ${reply.status}` } }, reply.headers);
      const n = requests.length;
      const content =
        'toolCalls' in reply
          ? [
              ...(reply.reasoning ? [{ type: 'thinking', thinking: reply.reasoning, signature: 'sig' }] : []),
              ...(reply.content ? [{ type: 'text', text: reply.content }] : []),
              ...reply.toolCalls.map((call, i) => ({
                type: 'tool_use',
                id: call.id ?? `toolu_${n}_${i}`,
                name: call.name,
                input: typeof call.arguments === 'string' ? (JSON.parse(call.arguments) as unknown) : call.arguments,
              })),
            ]
          : [...(reply.reasoning ? [{ type: 'thinking', thinking: reply.reasoning, signature: 'sig' }] : []), { type: 'text', text: reply.text }];
      send(res, 200, {
        id: `msg_${n}`,
        type: 'message',
        role: 'assistant',
        model: body.model,
        content,
        stop_reason: 'toolCalls' in reply ? 'tool_use' : (reply.finishReason ?? 'end_turn'),
        stop_sequence: null,
        usage: { input_tokens: 200 + n, output_tokens: 20 + n },
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () => closeServer(server, hanging),
  };
}
