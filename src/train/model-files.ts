/**
 * A model's files on this machine, for pre-flight's memory gate (docs/training.md, "The memory gate"):
 * a local folder, or the Hugging Face cache's snapshot of a hub id
 * (`$HF_HUB_CACHE`, else `$HF_HOME/hub`, else `~/.cache/huggingface/hub`, then
 * `models--ORG--NAME/snapshots/REVISION/`). Read: the weights' size in bytes and the shape numbers.
 */
import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export interface ModelShape {
  hidden: number;
  layers: number;
  vocab: number;
  intermediate: number;
  /** Layers that keep a KV cache (all but the linear-attention ones of a hybrid model). */
  attentionLayers: number;
  /** Bytes of K and V per token per attention layer, in bf16. */
  kvBytesPerTokenLayer: number;
}

export interface ModelFacts {
  /** Where the numbers were read, or why they were assumed. */
  source: string;
  weightBytes: number;
  /** How weightBytes was found. */
  sizeFrom: string;
  shape: ModelShape;
  /** How the shape was found. */
  shapeFrom: string;
}

/** The folder holding a model's config and weights, or undefined when it is not on this machine. */
export function locateModel(model: string, env: NodeJS.ProcessEnv): string | undefined {
  if (isDir(model)) return model;
  if (!/^[\w.-]+\/[\w.-]+$/.test(model)) return undefined;
  const hub = env.HF_HUB_CACHE || (env.HF_HOME ? join(env.HF_HOME, 'hub') : join(env.HOME || homedir(), '.cache', 'huggingface', 'hub'));
  const repo = join(hub, `models--${model.replace('/', '--')}`);
  const snapshots = join(repo, 'snapshots');
  if (!isDir(snapshots)) return undefined;
  // The revision refs/main names, else any snapshot that holds a config or an index.
  const main = readText(join(repo, 'refs', 'main'))?.trim();
  if (main && isDir(join(snapshots, main))) return join(snapshots, main);
  const found = readdirSync(snapshots)
    .map((rev) => join(snapshots, rev))
    .filter((dir) => existsSync(join(dir, 'config.json')) || existsSync(join(dir, 'model.safetensors.index.json')));
  return found.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
}

/** Size and shape from a model folder; undefined when it holds neither an index, a weights file nor a config. */
export function readModelFacts(dir: string): ModelFacts | undefined {
  const config = readJson(join(dir, 'config.json'));
  let weightBytes: number | undefined;
  let sizeFrom = '';
  const total = (readJson(join(dir, 'model.safetensors.index.json'))?.metadata as { total_size?: unknown } | undefined)?.total_size;
  if (typeof total === 'number' && total > 0) {
    weightBytes = total;
    sizeFrom = 'model.safetensors.index.json metadata.total_size';
  } else {
    const single = safetensorsDataBytes(join(dir, 'model.safetensors'));
    if (single) {
      weightBytes = single;
      sizeFrom = 'model.safetensors header';
    }
  }
  const shape = config ? shapeFromConfig(config) : undefined;
  if (weightBytes === undefined && shape) {
    weightBytes = paramsFromShape(shape, config?.tie_word_embeddings === true) * 2;
    sizeFrom = 'config.json (hidden_size, num_hidden_layers, vocab_size, intermediate_size), bf16';
  }
  if (weightBytes === undefined) return undefined;
  return {
    source: dir,
    weightBytes,
    sizeFrom,
    shape: shape ?? shapeFromSize(weightBytes),
    shapeFrom: shape ? 'config.json' : 'estimated from the size (no config.json)',
  };
}

/** The numbers of config.json (or its text_config, for a multimodal model) pre-flight needs. */
export function shapeFromConfig(raw: Record<string, unknown>): ModelShape | undefined {
  const text = (typeof raw.text_config === 'object' && raw.text_config !== null ? raw.text_config : {}) as Record<string, unknown>;
  const num = (key: string): number | undefined => {
    const v = text[key] ?? raw[key];
    return typeof v === 'number' && v > 0 ? v : undefined;
  };
  const hidden = num('hidden_size');
  const layers = num('num_hidden_layers');
  const vocab = num('vocab_size');
  if (!hidden || !layers || !vocab) return undefined;
  const heads = num('num_attention_heads') ?? Math.max(1, Math.round(hidden / 128));
  const headDim = num('head_dim') ?? hidden / heads;
  const kvHeads = num('num_key_value_heads') ?? heads;
  const types = text.layer_types ?? raw.layer_types;
  const interval = num('full_attention_interval');
  const attentionLayers = Array.isArray(types) ? types.filter((t) => t === 'full_attention').length || layers : interval ? Math.ceil(layers / interval) : layers;
  return { hidden, layers, vocab, intermediate: num('intermediate_size') ?? 4 * hidden, attentionLayers, kvBytesPerTokenLayer: 2 * kvHeads * headDim * 2 };
}

/** Parameters of a decoder of this shape: embeddings (and head, untied), attention and MLP per layer. */
function paramsFromShape(s: ModelShape, tied: boolean): number {
  return s.vocab * s.hidden * (tied ? 1 : 2) + s.layers * (4 * s.hidden * s.hidden + 3 * s.hidden * s.intermediate);
}

/**
 * Without config.json: the shape of a typical decoder of that many bf16 parameters (layers x hidden
 * near 0.037 x params^(2/3), as in the Qwen3 family; 80 hidden units per layer), dense attention with
 * a quarter of the width in K/V heads, Qwen's vocabulary. A rough stand-in, and the message says so.
 */
export function shapeFromSize(weightBytes: number): ModelShape {
  const params = weightBytes / 2;
  const layerWidth = 0.037 * Math.pow(params, 2 / 3);
  const hidden = Math.round(Math.sqrt(layerWidth * 80) / 128) * 128 || 128;
  const layers = Math.max(1, Math.round(layerWidth / hidden));
  return { hidden, layers, vocab: 151_936, intermediate: 4 * hidden, attentionLayers: layers, kvBytesPerTokenLayer: 2 * (hidden / 4) * 2 };
}

/** The bytes of tensor data in one safetensors file: its JSON header's largest end offset. */
function safetensorsDataBytes(file: string): number | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const len = Buffer.alloc(8);
    if (readSync(fd, len, 0, 8, 0) !== 8) return undefined;
    const size = Number(len.readBigUInt64LE());
    if (size <= 0 || size > 100 << 20) return undefined;
    const header = Buffer.alloc(size);
    if (readSync(fd, header, 0, size, 8) !== size) return undefined;
    const json = JSON.parse(header.toString('utf8')) as Record<string, { data_offsets?: [number, number] }>;
    const end = Math.max(0, ...Object.values(json).map((t) => t.data_offsets?.[1] ?? 0));
    return end > 0 ? end : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function readText(file: string): string | undefined {
  try {
    return statSync(file).isFile() && statSync(file).size < 4 << 20 ? readFileSync(file, 'utf8') : undefined;
  } catch {
    return undefined;
  }
}

function readJson(file: string): Record<string, unknown> | undefined {
  const text = readText(file);
  if (text === undefined) return undefined;
  try {
    const v = JSON.parse(text) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
