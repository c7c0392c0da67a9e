/**
 * The models of a sweep: the harness's model file (`--models FILE`, a JSON list of `{name, provider,
 * model, base_url, api_key_env, max_tokens, concurrency, extra_body, thinking}`, read as it is), or one
 * model from flags. Pure: the file's text in, checked specs out, each problem an InputError naming the
 * file and the field. Keys the harness reads for other commands (`probe_*`) are let through unread.
 */
import { InputError } from '../core/errors.js';
import { isRecord } from '../core/values.js';

export type Provider = 'openai' | 'anthropic';

export interface ModelSpec {
  /** model_name of the records (the arm). */
  name: string;
  provider: Provider;
  /** The model id sent to the endpoint. */
  model: string;
  /** One or more replicas serving the same model. */
  baseUrls: string[];
  /** The variable holding the key; never the key. */
  apiKeyEnv: string;
  maxTokens: number;
  /** Episodes of this model in flight at once; default: the sweep's --concurrency. */
  concurrency?: number;
  /** Merged into every request body (vLLM's chat_template_kwargs, Anthropic's thinking). */
  extraBody?: Record<string, unknown>;
  temperature?: number;
  timeoutS?: number;
  /** The file's thinking setting as written, for the record's identity. */
  thinking?: unknown;
}

/** The harness's defaults. */
export const DEFAULT_BASE_URLS: Readonly<Record<Provider, string>> = { openai: 'https://api.openai.com/v1', anthropic: 'https://api.anthropic.com' };
const DEFAULT_KEY_ENV: Readonly<Record<Provider, string>> = { openai: 'OPENAI_API_KEY', anthropic: 'ANTHROPIC_API_KEY' };
export const DEFAULT_MODEL_MAX_TOKENS = 4096;
/** Anthropic's thinking budgets for the harness's named levels. */
const THINKING_BUDGETS: Readonly<Record<string, number>> = { on: 4096, low: 2048, medium: 8192, high: 16384 };
/**
 * A thinking block cut off by the token cap leaves an empty reply, which reads as a model that cannot
 * see: with thinking on, the cap is raised to at least this (the harness's floor).
 */
export const MIN_THINKING_TOKENS = 8192;
/** Providers the harness accepts as OpenAI-compatible. */
const OPENAI_ALIASES = new Set(['openai', 'openai-compatible', 'hf', 'vllm']);

export function parseModelsFile(text: string, file: string): ModelSpec[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new InputError(`not valid JSON: ${(err as Error).message} (expected the harness's model file: a JSON list of model specs)`, { file });
  }
  if (!Array.isArray(value)) throw new InputError('expected a JSON list of model specs ([{"name": ..., "provider": ..., "model": ...}, ...])', { file });
  if (value.length === 0) throw new InputError('the list of model specs is empty', { file });
  const specs = value.map((entry, i) => modelSpec(entry, (field, message) => new InputError(message, { file, field: `[${i}]${field ? `.${field}` : ''}` })));
  const names = new Set<string>();
  specs.forEach((spec, i) => {
    if (names.has(spec.name)) throw new InputError(`model name "${spec.name}" is given twice: each arm needs its own name`, { file, field: `[${i}].name` });
    names.add(spec.name);
  });
  return specs;
}

type Fail = (field: string, message: string) => Error;

/** One spec, from the file or from flags (the same checks, each message naming its field). */
export function modelSpec(entry: unknown, fail: Fail): ModelSpec {
  if (!isRecord(entry)) return fail('', `expected an object, got ${shown(entry)}`) as never;
  const str = (key: string): string | undefined => {
    const v = entry[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string' || v.trim() === '') throw fail(key, `expected a non-empty string, got ${shown(v)}`);
    return v.trim();
  };
  const int = (key: string, min: number): number | undefined => {
    const v = entry[key];
    if (v === undefined || v === null) return undefined;
    if (!Number.isInteger(v) || (v as number) < min) throw fail(key, `expected a whole number >= ${min}, got ${shown(v)}`);
    return v as number;
  };
  const model = str('model');
  if (!model) throw fail('model', 'is required: the model id the endpoint serves');
  const providerText = (str('provider') ?? 'openai').toLowerCase();
  const provider: Provider | undefined = providerText === 'anthropic' ? 'anthropic' : OPENAI_ALIASES.has(providerText) ? 'openai' : undefined;
  if (!provider) throw fail('provider', `expected "openai" or "anthropic", got ${shown(entry.provider)}`);
  const baseUrls = urlsOf(entry.base_url, provider, fail);
  const apiKeyEnv = str('api_key_env') ?? DEFAULT_KEY_ENV[provider];
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(apiKeyEnv)) throw fail('api_key_env', 'takes the NAME of an environment variable (e.g. OPENAI_API_KEY), not the key itself');
  const temperature = entry.temperature;
  if (temperature !== undefined && temperature !== null && !(typeof temperature === 'number' && temperature >= 0 && temperature <= 2)) {
    throw fail('temperature', `expected a number from 0 to 2, got ${shown(temperature)}`);
  }
  const timeoutS = entry.timeout_s;
  if (timeoutS !== undefined && timeoutS !== null && !(typeof timeoutS === 'number' && timeoutS > 0)) throw fail('timeout_s', `expected seconds above 0, got ${shown(timeoutS)}`);
  const extra = entry.extra_body;
  if (extra !== undefined && extra !== null && !isRecord(extra)) throw fail('extra_body', `expected an object, got ${shown(extra)}`);
  const thinking = thinkingOf(entry.thinking, fail);
  const requested = int('max_tokens', 1) ?? DEFAULT_MODEL_MAX_TOKENS;
  const concurrency = int('concurrency', 1);
  const spec: ModelSpec = {
    name: str('name') ?? model,
    provider,
    model,
    baseUrls,
    apiKeyEnv,
    maxTokens: thinking.on ? Math.max(requested, MIN_THINKING_TOKENS) : requested,
    ...(concurrency !== undefined ? { concurrency } : {}),
    ...(typeof temperature === 'number' && !(provider === 'anthropic' && thinking.on) ? { temperature } : {}),
    ...(typeof timeoutS === 'number' ? { timeoutS } : {}),
    ...(entry.thinking !== undefined && entry.thinking !== null ? { thinking: entry.thinking } : {}),
  };
  const extraBody = withThinking({ ...(extra ?? {}) }, provider, baseUrls, thinking);
  if (Object.keys(extraBody).length > 0) spec.extraBody = extraBody;
  return spec;
}

type Thinking = { given: boolean; on: boolean; budget: number | null; level: string | null };

function thinkingOf(value: unknown, fail: Fail): Thinking {
  if (value === undefined || value === null) return { given: false, on: false, budget: null, level: null };
  if (value === false || value === 'off') return { given: true, on: false, budget: null, level: null };
  if (value === true) return { given: true, on: true, budget: THINKING_BUDGETS.on!, level: 'on' };
  if (Number.isInteger(value) && (value as number) > 0) return { given: true, on: true, budget: value as number, level: null };
  if (typeof value === 'string' && value.trim() !== '') return { given: true, on: true, budget: THINKING_BUDGETS[value] ?? THINKING_BUDGETS.on!, level: value };
  throw fail('thinking', `expected true/false, "off", a level ("low", "medium", "high") or a token budget, got ${shown(value)}`);
}

/**
 * The intent translated into each endpoint's mechanism, unless extra_body already sets it: Anthropic's
 * thinking budget, OpenAI's reasoning effort, vLLM's chat-template switch.
 */
function withThinking(extra: Record<string, unknown>, provider: Provider, baseUrls: readonly string[], thinking: Thinking): Record<string, unknown> {
  if (!thinking.given) return extra;
  if (provider === 'anthropic') {
    if (thinking.on && extra.thinking === undefined) extra.thinking = { type: 'enabled', budget_tokens: thinking.budget };
    return extra;
  }
  if (baseUrls.every((url) => url.startsWith('https://api.openai.com'))) {
    if (extra.reasoning_effort === undefined) extra.reasoning_effort = thinking.on ? (thinking.level ?? 'medium') : 'none';
    return extra;
  }
  const template = isRecord(extra.chat_template_kwargs) ? { ...extra.chat_template_kwargs } : {};
  if (template.enable_thinking === undefined) template.enable_thinking = thinking.on;
  extra.chat_template_kwargs = template;
  return extra;
}

/** base_url: one URL, several comma-separated, or a list of them (replicas of one model). */
function urlsOf(value: unknown, provider: Provider, fail: Fail): string[] {
  if (value === undefined || value === null) return [DEFAULT_BASE_URLS[provider]];
  const items = typeof value === 'string' ? value.split(',') : Array.isArray(value) ? value : null;
  if (!items) throw fail('base_url', `expected a URL, comma-separated URLs or a list of URLs, got ${shown(value)}`);
  const urls = items.map((item, i) => {
    const text = typeof item === 'string' ? item.trim() : '';
    if (!isHttpUrl(text)) throw fail(Array.isArray(value) ? `base_url[${i}]` : 'base_url', `expected an http(s) URL such as http://127.0.0.1:8000/v1, got ${shown(item)}`);
    return text.replace(/\/+$/, '');
  });
  if (urls.length === 0) throw fail('base_url', 'expected at least one URL');
  if (new Set(urls).size !== urls.length) throw fail('base_url', 'names one URL twice');
  return urls;
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

function shown(value: unknown): string {
  return value === undefined ? 'nothing' : (JSON.stringify(value)?.slice(0, 60) ?? String(value));
}
