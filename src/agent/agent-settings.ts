/**
 * What it takes to play one agent episode, as plain data: who plays (a model over an endpoint, or a
 * baseline), by which protocol, on which task. `geolab agent` fills it from flags and the TUI's
 * "Watch a model" from a form; `openAgentRun` (agent-run.ts) turns it into a run. This module is
 * pure and light (no environment, no sharp, no axios) so that a form can check values as they are typed.
 *
 * Checks return what is wrong without saying where the value came from: each shell names its own
 * source (a flag, a form field) in front.
 */
import type { LatLon } from '../core/geodesy.js';
import { registerSecret } from '../core/secrets.js';
import type { Endpoint } from './openai.js';
import type { Protocol } from './policies/model.js';
import type { PromptTemplate } from './protocols/template.js';
import type { ToolSet } from './protocols/tools.js';

export type PolicyName = 'model' | 'random-land' | 'fixed' | 'prior';
export const POLICIES: readonly PolicyName[] = ['model', 'random-land', 'fixed', 'prior'];

export const PROTOCOLS: readonly Protocol[] = ['tools', 'json'];
export const DEFAULT_PROTOCOL: Protocol = 'tools';
export const DEFAULT_SPLIT = 'eval';
/** The harness's turn budget before the forced guess. */
export const DEFAULT_MAX_TURNS = 12;
/** The size the published adapter was trained on (docs/training.md). */
export const DEFAULT_IMAGE_SIZE_PX = 448;
/** The recipe's completion cap (docs/training.md). */
export const DEFAULT_MAX_TOKENS = 6144;
/** Where `vllm serve` listens by default. */
export const DEFAULT_BASE_URL = 'http://127.0.0.1:8000/v1';

export interface AgentSettings {
  policy: PolicyName;
  protocol: Protocol;
  tools: ToolSet;
  split: string;
  /** Null: a random task of the split. */
  index: number | null;
  maxTurns: number;
  imageSizePx: number;
  /** The point of the `fixed` baseline. */
  point: LatLon | null;
  /** The model's endpoint; null for a baseline. */
  endpoint: Endpoint | null;
  /** Seed of the `random-land` baseline (default: one per task, so a sweep does not guess one point everywhere). */
  seed?: number;
  /** A remote environment server; default: the embedded one over the workspace's splits. */
  envUrl?: string;
  /** The embedded environment's panorama cache (a command's --panos). */
  panos?: string;
  /** Let the embedded environment fetch missing panoramas from Mapillary. */
  fetch?: boolean;
  /** A user's prompt template (--prompt-file) in place of geolab's instructions. */
  prompt?: PromptTemplate;
}

/** A model playing by `protocol` on one task, everything else at the harness's defaults. */
export function modelSettings(endpoint: Endpoint, choice: { protocol: Protocol; split: string; index: number | null }): AgentSettings {
  return {
    policy: 'model',
    protocol: choice.protocol,
    tools: 'trained',
    split: choice.split,
    index: choice.index,
    maxTurns: DEFAULT_MAX_TURNS,
    imageSizePx: DEFAULT_IMAGE_SIZE_PX,
    point: null,
    endpoint,
  };
}

/** Null when `text` is an http(s) URL; otherwise what is wrong with it. */
export function baseUrlProblem(text: string): string | null {
  const wrong = `must be an http(s) URL such as ${DEFAULT_BASE_URL}, got "${text}"`;
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:' ? null : wrong;
  } catch {
    return wrong;
  }
}

/** Null when `name` can name an environment variable. People paste the key itself here: say so. */
export function apiKeyEnvProblem(name: string): string | null {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name)
    ? null
    : 'takes the NAME of an environment variable (e.g. OPENAI_API_KEY), not the key itself';
}

/**
 * The key held by the variable named `name`, read at the last moment and handed only to the
 * endpoint: never stored, printed or recorded (docs/reliability.md), so it is registered for redaction as it
 * is read. An empty variable counts as unset.
 */
export function apiKeyFrom(name: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  return registerSecret((name && env[name]) || undefined, name ? `$${name}` : undefined);
}

export interface EndpointChoice {
  model: string;
  /** Already checked with `baseUrlProblem`. */
  baseUrl: string;
  apiKey?: string;
  /** The variable the key is read from, for messages. */
  apiKeyEnv?: string;
  temperature?: number;
  maxTokens?: number;
  /** Seconds per request attempt. */
  timeoutS?: number;
  /** The largest reply read, in MiB. */
  maxReplyMb?: number;
}

/** What is wrong with a largest reply in MiB: above 0, at most 1024 (a reply larger still could not be stored); null when fine. */
export function maxReplyProblem(mb: number): string | null {
  return mb > 0 && mb <= 1024 ? null : `must be MiB above 0 and at most 1024, got ${mb}`;
}

export function modelEndpoint(choice: EndpointChoice): Endpoint {
  return {
    baseUrl: choice.baseUrl.replace(/\/+$/, ''),
    model: choice.model,
    apiKey: choice.apiKey,
    ...(choice.apiKeyEnv ? { apiKeyEnv: choice.apiKeyEnv } : {}),
    temperature: choice.temperature,
    maxTokens: choice.maxTokens ?? DEFAULT_MAX_TOKENS,
    ...(choice.timeoutS !== undefined ? { timeoutMs: choice.timeoutS * 1000 } : {}),
    ...(choice.maxReplyMb !== undefined ? { maxReplyBytes: Math.round(choice.maxReplyMb * 2 ** 20) } : {}),
  };
}
