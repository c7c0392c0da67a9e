/**
 * Which model a command talks to, from its flags: `--models FILE` (the harness's model file, one
 * entry picked with `--name` when it holds several) or `--model NAME --base-url URL`. One reading for
 * every command that sends model requests (`eval run`, `episodes retry`, `episodes fork`), so a flag
 * means the same everywhere; the key is read from the variable the spec names, never taken as a flag.
 */
import { readFileSync } from 'node:fs';
import { InputError, UsageError } from '../core/errors.js';
import { modelSpec, parseModelsFile, type ModelSpec } from './models-file.js';
import { apiKeyFrom } from './agent-settings.js';
import type { Endpoint } from './openai.js';

export interface ModelFlags {
  model?: string;
  baseUrl?: string;
  provider?: string;
  apiKeyEnv?: string;
  maxTokens?: number;
  models?: string;
}

/** Every model the flags name: each entry of `--models FILE`, or the one `--model` describes. */
export function modelSpecsOf(opts: ModelFlags): ModelSpec[] {
  if (opts.models !== undefined) {
    if (opts.model !== undefined || opts.baseUrl !== undefined) throw new UsageError('give --models FILE or --model with --base-url, not both');
    let text: string;
    try {
      text = readFileSync(opts.models, 'utf8');
    } catch (err) {
      throw new InputError(`cannot read the models file: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, { file: opts.models });
    }
    return parseModelsFile(text, opts.models);
  }
  if (opts.model === undefined) throw new UsageError('expected --model NAME (with --base-url URL), or --models FILE (the harness\'s model file)');
  if (opts.baseUrl === undefined && (opts.provider ?? 'openai') !== 'anthropic') throw new UsageError('--model needs --base-url URL (replicas comma-separated), e.g. http://127.0.0.1:8000/v1');
  const flag: Record<string, string> = { base_url: '--base-url', provider: '--provider', api_key_env: '--api-key-env', max_tokens: '--max-tokens', model: '--model' };
  return [
    modelSpec(
      { model: opts.model, base_url: opts.baseUrl, provider: opts.provider, api_key_env: opts.apiKeyEnv, max_tokens: opts.maxTokens },
      (field, message) => new UsageError(`${flag[field.replace(/\[\d+\]$/, '')] ?? field} ${message}`),
    ),
  ];
}

/** One model: the flags' only one, or the entry of the models file named `name`. */
export function oneModelSpec(opts: ModelFlags & { name?: string }): ModelSpec {
  const specs = modelSpecsOf(opts);
  if (opts.name !== undefined) {
    const spec = specs.find((s) => s.name === opts.name);
    if (!spec) throw new UsageError(`--name ${opts.name}: the models file has ${specs.map((s) => s.name).join(', ')}`);
    return spec;
  }
  if (specs.length > 1) throw new UsageError(`the models file has ${specs.length} models (${specs.map((s) => s.name).join(', ')}): pick one with --name`);
  return specs[0]!;
}

export interface EndpointSettings {
  retries?: number;
  /** Seconds before the first retry. */
  retryDelayS?: number;
  /** Seconds per attempt; the spec's own timeout_s otherwise. */
  timeoutS?: number;
  maxReplyMb?: number;
}

/** The endpoint of a spec's replica `baseUrl`, with its key read from the variable the spec names. */
export function endpointOfSpec(spec: ModelSpec, baseUrl: string, settings: EndpointSettings = {}, apiKey = apiKeyFrom(spec.apiKeyEnv)): Endpoint {
  const timeoutS = settings.timeoutS ?? spec.timeoutS;
  return {
    provider: spec.provider,
    baseUrl,
    model: spec.model,
    apiKey,
    apiKeyEnv: spec.apiKeyEnv,
    maxTokens: spec.maxTokens,
    ...(settings.retries !== undefined ? { maxAttempts: settings.retries + 1 } : {}),
    ...(settings.retryDelayS !== undefined ? { baseDelayMs: settings.retryDelayS * 1000 } : {}),
    ...(timeoutS !== undefined ? { timeoutMs: timeoutS * 1000 } : {}),
    ...(settings.maxReplyMb !== undefined ? { maxReplyBytes: Math.round(settings.maxReplyMb * 2 ** 20) } : {}),
    ...(spec.temperature !== undefined ? { temperature: spec.temperature } : {}),
    ...(spec.extraBody ? { extraBody: spec.extraBody } : {}),
  };
}
