/**
 * The recipe as TRL receives it: the GRPOConfig and LoraConfig keyword arguments geolab_trainer.py
 * builds from a config (its grpo_kwargs and lora_kwargs, the same keys and values in the same order).
 * `train launch --dry-run` prints them, so every argument of the published run can be read before a
 * GPU is spent; docs/training.md ("The recipe against TRL's defaults") compares each with the
 * published value and TRL's default.
 */
import type { TrainConfig } from './config.js';

export type Arguments = Record<string, unknown>;

/** GRPOConfig(**this), importance-sampling correction first. */
export function grpoArguments(c: TrainConfig): Arguments {
  const g = c.grpo;
  return {
    vllm_importance_sampling_correction: g.vllm_importance_sampling_correction,
    vllm_importance_sampling_mode: g.vllm_importance_sampling_mode,
    vllm_importance_sampling_clip_min: g.vllm_importance_sampling_clip_min,
    vllm_importance_sampling_clip_max: g.vllm_importance_sampling_clip_max,
    output_dir: c.output_dir,
    run_name: c.name,
    seed: g.seed,
    max_steps: g.max_steps,
    learning_rate: g.learning_rate,
    per_device_train_batch_size: g.per_device_train_batch_size,
    gradient_accumulation_steps: g.gradient_accumulation_steps,
    num_generations: g.num_generations,
    generation_batch_size: g.generation_batch_size,
    temperature: g.temperature,
    beta: g.beta,
    scale_rewards: g.scale_rewards,
    num_iterations: g.num_iterations,
    max_completion_length: g.max_completion_length,
    max_tool_calling_iterations: c.episode.max_turns,
    use_vllm: g.use_vllm,
    vllm_mode: g.vllm_mode,
    vllm_gpu_memory_utilization: g.vllm_gpu_memory_utilization,
    vllm_max_model_length: g.max_model_len,
    save_strategy: 'steps',
    save_steps: g.save_steps,
    logging_steps: g.logging_steps,
    bf16: g.bf16,
    gradient_checkpointing: g.gradient_checkpointing,
    chat_template_kwargs: { ...g.chat_template_kwargs },
    mask_truncated_completions: g.mask_truncated_completions,
    log_completions: g.log_completions,
    num_completions_to_print: g.num_completions_to_print,
    report_to: 'none',
    push_to_hub: false,
  };
}

/** peft's LoraConfig(**this). */
export function loraArguments(c: TrainConfig): Arguments {
  return {
    r: c.lora.r,
    lora_alpha: c.lora.alpha,
    lora_dropout: c.lora.dropout,
    target_modules: [...c.lora.target_modules],
    task_type: 'CAUSAL_LM',
  };
}

/** `name=value` as Python would read it back (JSON values; true/false/null as Python spells them). */
export function argumentLines(args: Arguments): string[] {
  return Object.entries(args).map(([key, value]) => `${key}=${pythonLiteral(value)}`);
}

function pythonLiteral(value: unknown): string {
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (value === null || value === undefined) return 'None';
  if (Array.isArray(value)) return `[${value.map(pythonLiteral).join(', ')}]`;
  if (typeof value === 'object') return `{${Object.entries(value as Record<string, unknown>).map(([k, v]) => `${JSON.stringify(k)}: ${pythonLiteral(v)}`).join(', ')}}`;
  return JSON.stringify(value);
}
