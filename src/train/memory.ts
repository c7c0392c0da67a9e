/**
 * The memory gate (docs/training.md, "The memory gate"): whether the training side (weights, LoRA,
 * optimizer state, activations at the configured lengths) and vLLM's share of the card fit on it,
 * and whether vLLM's share holds its own copy of the weights and one max_model_len sequence.
 * Estimates, printed term by term so the user can check them; bf16 weights throughout.
 */
import type { TrainConfig } from './config.js';
import type { ModelFacts, ModelShape } from './model-files.js';

/** Tokens of the prompt (system prompt, task text and first view) added to max_completion_length. */
export const PROMPT_TOKENS = 1024;
/** vLLM's own working memory inside its share: profiling peak, sampler, CUDA graphs. */
export const VLLM_WORKING_BYTES = 2 * 2 ** 30;
/** The CUDA context and allocator slack of the training process. */
export const CUDA_OVERHEAD_BYTES = 2 * 2 ** 30;

/**
 * Qwen/Qwen3.5-4B when it is not downloaded yet: ~8.4e9 bytes of bf16 weights, and the shape assumed
 * from its config (hidden 2560, 32 layers, intermediate 9216, vocabulary 248,320; full attention in
 * every 4th layer, 4 KV heads of 256).
 */
export const QWEN35_4B: Omit<ModelFacts, 'source'> = {
  weightBytes: 8.4e9,
  sizeFrom: 'built-in (not downloaded yet)',
  shape: { hidden: 2560, layers: 32, vocab: 248_320, intermediate: 9216, attentionLayers: 8, kvBytesPerTokenLayer: 2 * 4 * 256 * 2 },
  shapeFrom: 'built-in',
};

export interface MemoryTerm {
  label: string;
  bytes: number;
  how: string;
}

export interface MemoryBudget {
  card: number;
  terms: MemoryTerm[];
  total: number;
  fits: boolean;
  /** vLLM's share against what it must hold. */
  vllm: { share: number; needs: number; fits: boolean };
  /** The arithmetic, one line per term. */
  lines: string[];
}

export function memoryBudget(config: TrainConfig, facts: Omit<ModelFacts, 'source'>, cardBytes: number): MemoryBudget {
  const g = config.grpo;
  const s = facts.shape;
  const loraParams = loraParameterCount(config.lora.r, config.lora.target_modules, s);
  const seq = g.max_completion_length + PROMPT_TOKENS;
  const b = g.per_device_train_batch_size;
  const perLayerToken = 2 * (10 * s.hidden + 4 * s.intermediate);
  const layerActs = g.gradient_checkpointing ? b * seq * (s.layers * s.hidden * 2 + perLayerToken) : b * seq * s.layers * perLayerToken;
  const logits = b * g.max_completion_length * s.vocab * 8;
  const share = g.vllm_gpu_memory_utilization * cardBytes;
  const kv = g.max_model_len * s.attentionLayers * s.kvBytesPerTokenLayer;
  const terms: MemoryTerm[] = [
    { label: 'weights', bytes: facts.weightBytes, how: facts.sizeFrom },
    { label: 'LoRA', bytes: loraParams * 8, how: `${fmtCount(loraParams)} params (r=${config.lora.r} on ${config.lora.target_modules.join(',')}) x 8 B (fp32 weight + gradient)` },
    { label: 'optimizer', bytes: loraParams * 8, how: `AdamW, 2 fp32 moments per LoRA param` },
    { label: "vLLM's share", bytes: share, how: `grpo.vllm_gpu_memory_utilization ${g.vllm_gpu_memory_utilization} x ${gib(cardBytes)}` },
    {
      label: 'activations',
      bytes: layerActs + logits,
      how:
        `${b} x ${seq} tokens (max_completion_length ${g.max_completion_length} + ${PROMPT_TOKENS} prompt): ` +
        `${g.gradient_checkpointing ? 'checkpointed layers' : 'all layers'} ${gib(layerActs)} + logits ${g.max_completion_length} x ${s.vocab.toLocaleString('en-US')} x 8 B ${gib(logits)}`,
    },
    { label: 'CUDA context', bytes: CUDA_OVERHEAD_BYTES, how: 'context and allocator slack' },
  ];
  const total = terms.reduce((a, t) => a + t.bytes, 0);
  const needs = facts.weightBytes + kv + VLLM_WORKING_BYTES;
  const vllm = { share, needs, fits: share >= needs };
  const lines = [
    ...terms.map((t) => `${t.label.padEnd(13)} ${gib(t.bytes).padStart(9)}  ${t.how}`),
    `${'total'.padEnd(13)} ${gib(total).padStart(9)}  of ${gib(cardBytes)} on the card${total <= cardBytes ? '' : ': does not fit'}`,
    `vLLM's share ${gib(share)} must hold weights ${gib(facts.weightBytes)} + KV for one ${g.max_model_len}-token sequence ${gib(kv)} ` +
      `(${s.attentionLayers} attention layers x ${fmtCount(s.kvBytesPerTokenLayer)} B/token) + ${gib(VLLM_WORKING_BYTES)} working = ${gib(needs)}${vllm.fits ? '' : ': does not fit'}`,
  ];
  return { card: cardBytes, terms, total, fits: total <= cardBytes && vllm.fits, vllm, lines };
}

/** LoRA A and B matrices per adapted module per layer: r x (in + out). MLP modules see the intermediate width. */
export function loraParameterCount(r: number, modules: readonly string[], s: ModelShape): number {
  const perLayer = modules.reduce((sum, m) => sum + r * (/gate|up|down|fc|mlp/.test(m) ? s.hidden + s.intermediate : 2 * s.hidden), 0);
  return perLayer * s.layers;
}

export const gib = (bytes: number) => `${(bytes / 2 ** 30).toFixed(1)} GiB`;
const fmtCount = (n: number) => (n >= 1e6 ? `${(n / 1e6).toFixed(1)}M` : Math.round(n).toLocaleString('en-US'));
