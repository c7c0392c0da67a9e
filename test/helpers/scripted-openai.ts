/**
 * A real OpenAI-compatible HTTP server on 127.0.0.1 that answers from a script: each chat request
 * takes the next reply (native tool calls, plain text, an HTTP error, no answer at all, or the
 * server's death). Every request body and its headers are kept for the test to read.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ScriptedReply =
  | { toolCalls: { name: string; arguments: string | Record<string, unknown>; id?: string }[]; content?: string; reasoning?: string }
  | { text: string; reasoning?: string; finishReason?: string }
  | { status: number; body?: unknown; headers?: Record<string, string> }
  /** Never answers: the client's timeout has to end it. */
  | { hang: true }
  /** Drops this request and every connection and stops listening: from then on the port refuses. */
  | { die: true };

export interface ChatRequestBody {
  model: string;
  messages: { role: string; content: unknown; tool_calls?: unknown[]; tool_call_id?: string; name?: string }[];
  tools?: { type: string; function: { name: string; description: string; parameters: Record<string, unknown> } }[];
  temperature?: number;
  max_tokens?: number;
}

export interface ScriptedOpenAI {
  /** With the version, as `--base-url` takes it: http://127.0.0.1:PORT/v1 */
  baseUrl: string;
  requests: { body: ChatRequestBody; headers: IncomingHttpHeaders }[];
  modelListings: number;
  close(): Promise<void>;
}

export const toolCall = (name: string, args: string | Record<string, unknown>) => ({ name, arguments: args });

/**
 * A script that plays these tool calls in order, one a turn: the tool results the request already
 * holds say which turn it is; past the last, the last is repeated (a guess ends the episode).
 */
export function toolSteps(...steps: ReturnType<typeof toolCall>[]): (body: ChatRequestBody) => ScriptedReply {
  return (body) => {
    const results = body.messages.filter((m) => m.role === 'tool').length;
    return { toolCalls: [steps[Math.min(results, steps.length - 1)] as ReturnType<typeof toolCall>] };
  };
}

export async function startScriptedOpenAI(options: {
  script: ScriptedReply[] | ((body: ChatRequestBody, n: number) => ScriptedReply);
  models?: { id: string; parent?: string }[];
  /** An error `/v1/models` answers instead of the list (a refused key, say). */
  modelsError?: { status: number; body?: unknown };
  /** Each chat reply waits this long first, as a model takes time to answer. */
  latencyMs?: number;
}): Promise<ScriptedOpenAI> {
  const models = options.models ?? [{ id: 'scripted' }];
  const requests: ScriptedOpenAI['requests'] = [];
  const hanging = new Set<ServerResponse>();
  let modelListings = 0;
  const next = (body: ChatRequestBody): ScriptedReply => {
    const n = requests.length - 1;
    if (typeof options.script === 'function') return options.script(body, n);
    return options.script[n] ?? { status: 500, body: { error: { message: `script exhausted at request ${n}` } } };
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (req.method === 'GET' && path === '/v1/models') {
        modelListings++;
        if (options.modelsError) return send(res, options.modelsError.status, options.modelsError.body ?? {});
        return send(res, 200, { object: 'list', data: models.map((m) => ({ id: m.id, object: 'model', root: m.id, parent: m.parent ?? null })) });
      }
      if (req.method !== 'POST' || path !== '/v1/chat/completions') return send(res, 404, { error: { message: `no route ${path}` } });
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequestBody;
      requests.push({ body, headers: req.headers });
      if (options.latencyMs) setTimeout(() => answer(req, res, body), options.latencyMs);
      else answer(req, res, body);
    });
  });
  const answer = (req: IncomingMessage, res: ServerResponse, body: ChatRequestBody): void => {
      const reply = next(body);
      if ('hang' in reply) {
        hanging.add(res);
        return;
      }
      if ('die' in reply) {
        server.close();
        server.closeAllConnections();
        req.socket.destroy();
        return;
      }
      if ('status' in reply) return send(res, reply.status, reply.body ?? { error: { message: `scripted ${reply.status}` } }, reply.headers);
      const n = requests.length;
      const message =
        'toolCalls' in reply
          ? {
              role: 'assistant',
              content: reply.content ?? null,
              reasoning_content: reply.reasoning ?? null,
              tool_calls: reply.toolCalls.map((call, i) => ({
                id: call.id ?? `call_${n}_${i}`,
                type: 'function',
                function: { name: call.name, arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments) },
              })),
            }
          : { role: 'assistant', content: reply.text, reasoning_content: reply.reasoning ?? null };
      const finishReason = 'toolCalls' in reply ? 'tool_calls' : (reply.finishReason ?? 'stop');
      send(res, 200, {
        id: `chatcmpl-${n}`,
        object: 'chat.completion',
        model: body.model,
        choices: [{ index: 0, message, finish_reason: finishReason }],
        usage: { prompt_tokens: 100 + n, completion_tokens: 10 + n, total_tokens: 110 + 2 * n },
      });
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    get modelListings() {
      return modelListings;
    },
    close: () => closeServer(server, hanging),
  };
}

export function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** Closes a scripted server: replies held open on purpose are cut first, so close() does not wait on them. */
export function closeServer(server: Server, hanging: ReadonlySet<ServerResponse>): Promise<void> {
  return new Promise<void>((resolve) => {
    for (const res of hanging) res.destroy();
    if (!server.listening) return resolve();
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
