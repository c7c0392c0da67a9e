/**
 * MCP over an episode (docs/protocol.md): JSON-RPC 2.0 `tools/list` and `tools/call` with the MCP tool
 * names. A call is exactly the equivalent step (same costs, budget and ordering), and its result is
 * the feedback text plus the image.
 *
 * Errors: a malformed request is -32600, an unknown method -32601, an unknown tool or arguments
 * that fail validation -32602 (nothing spent). A call the episode cannot carry out (no episode yet,
 * a renderer failure) and a call after the end are tool results with `isError: true`, as MCP wants
 * execution errors reported to the model rather than as protocol errors.
 */
import { OP_JSON_SCHEMAS } from './action-json-schemas.js';
import { MCP_TOOL_NAMES, MCP_TOOL_OPS, toolArguments, type McpToolName } from './actions.js';
import type { Episode } from './engine.js';
import { toolDescriptions } from './feedback.js';
import { EnvError, type StepResult } from './types.js';
import { isRecord } from '../core/values.js';

export type JsonRpcId = string | number | null;

export interface JsonRpcError {
  code: number;
  message: string;
  data?: unknown;
}

export type JsonRpcResponse =
  | { jsonrpc: '2.0'; id: JsonRpcId; result: unknown }
  | { jsonrpc: '2.0'; id: JsonRpcId; error: JsonRpcError };

export const JSONRPC_INVALID_REQUEST = -32600;
export const JSONRPC_METHOD_NOT_FOUND = -32601;
export const JSONRPC_INVALID_PARAMS = -32602;

export interface McpTool {
  name: McpToolName;
  description: string;
  inputSchema: Record<string, unknown>;
}

export type McpContent =
  | { type: 'text'; text: string }
  | { type: 'image'; data: string; mimeType: 'image/jpeg' | 'image/png' };

export interface McpToolResult {
  content: McpContent[];
  isError?: boolean;
}

/** The tools an episode offers, each with its JSON Schema and a one-sentence description with its cost. */
export function mcpTools(freeMeasures: number): McpTool[] {
  const descriptions = toolDescriptions(freeMeasures);
  return MCP_TOOL_NAMES.map((name) => ({ name, description: descriptions[name], inputSchema: inputSchemaOf(name) }));
}

export async function handleMcp(episode: Episode, request: unknown): Promise<JsonRpcResponse> {
  const id = isRecord(request) ? request.id : undefined;
  if (
    !isRecord(request) ||
    request.jsonrpc !== '2.0' ||
    typeof request.method !== 'string' ||
    !(id === undefined || id === null || typeof id === 'string' || typeof id === 'number')
  ) {
    return failure(null, JSONRPC_INVALID_REQUEST, 'expected a JSON-RPC 2.0 request: {"jsonrpc": "2.0", "id", "method", "params"}');
  }
  // Over the environment's transports every message is answered, so a missing id answers as null.
  const replyId = id ?? null;
  switch (request.method) {
    case 'tools/list':
      return success(replyId, { tools: mcpTools(episode.config.freeMeasures) });
    case 'tools/call':
      return callTool(episode, replyId, request.params);
    default:
      return failure(replyId, JSONRPC_METHOD_NOT_FOUND, `unknown method "${request.method}": expected tools/list or tools/call`);
  }
}

async function callTool(episode: Episode, id: JsonRpcId, params: unknown): Promise<JsonRpcResponse> {
  if (!isRecord(params) || typeof params.name !== 'string') {
    return failure(id, JSONRPC_INVALID_PARAMS, 'tools/call expects params {"name": <tool>, "arguments": {...}}');
  }
  const name = params.name;
  if (!Object.hasOwn(MCP_TOOL_OPS, name)) {
    return failure(id, JSONRPC_INVALID_PARAMS, `unknown tool "${name}": expected one of ${MCP_TOOL_NAMES.join(', ')}`);
  }
  const args = params.arguments ?? {};
  if (!isRecord(args)) return failure(id, JSONRPC_INVALID_PARAMS, `${name}: arguments must be an object`);
  try {
    return success(id, toolResult(await episode.step({ ...args, op: MCP_TOOL_OPS[name as McpToolName] })));
  } catch (err) {
    if (!(err instanceof EnvError)) throw err;
    if (err.code === 'VALIDATION_ERROR') return failure(id, JSONRPC_INVALID_PARAMS, err.message, { code: err.code });
    return success(id, { content: [{ type: 'text', text: err.message }], isError: true } satisfies McpToolResult);
  }
}

function toolResult(step: StepResult): McpToolResult {
  const { feedback, image_base64, image_kind } = step.observation;
  const content: McpContent[] = [{ type: 'text', text: feedback }];
  if (image_base64 !== null) {
    content.push({ type: 'image', data: image_base64, mimeType: image_kind === 'view' ? 'image/jpeg' : 'image/png' });
  }
  return step.metadata.refused === true ? { content, isError: true } : { content };
}

/** The op's schema without `op` (the tool name says it); the guess needs lat+lon or a response. */
function inputSchemaOf(name: McpToolName): Record<string, unknown> {
  const op = MCP_TOOL_OPS[name];
  const { $schema: _dialect, properties: _all, required: _allRequired, ...rest } = OP_JSON_SCHEMAS[op];
  const { properties, required } = toolArguments(op);
  return {
    ...rest,
    properties,
    ...(required.length > 0 ? { required } : {}),
    ...(name === 'submit_guess' ? { anyOf: [{ required: ['lat', 'lon'] }, { required: ['response'] }] } : {}),
  };
}

function success(id: JsonRpcId, result: unknown): JsonRpcResponse {
  return { jsonrpc: '2.0', id, result };
}

function failure(id: JsonRpcId, code: number, message: string, data?: unknown): JsonRpcResponse {
  return { jsonrpc: '2.0', id, error: data === undefined ? { code, message } : { code, message, data } };
}

