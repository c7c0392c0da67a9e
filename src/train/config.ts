/**
 * The geolab training config (docs/training.md): one JSON file that `geolab train init` writes, pre-flight
 * checks, `train launch` hands to the Python trainer (src/train/python/), and the trainer reads.
 * Every default is the published run 1's recipe, except max_steps (it plateaued by 200-250).
 * Pure: the reader of the file lives with the commands; this module validates and derives.
 */
import { z } from '../vendor/zod.js';

export const TRAIN_CONFIG_VERSION = 1;

/**
 * Why `text` is not an environment server's address, or undefined when it is one: it must parse as a
 * URL with the scheme http or https (written `http://` or `https://`, as the trainer reads it) and a
 * host. A `file:` or host-less URL would pass a looser check here and be refused by the trainer later.
 */
export function httpUrlProblem(text: string): string | undefined {
  if (text.trim() === '') return 'expected an http(s) URL, got nothing';
  if (/\s/.test(text)) return 'expected an http(s) URL without spaces';
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `expected an http(s) URL, got "${text}" (not a URL)`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `expected an http(s) URL, got the scheme "${url.protocol.slice(0, -1)}"`;
  if (!text.startsWith(`${url.protocol}//`)) return `expected an http(s) URL written ${url.protocol}//HOST`;
  if (url.hostname === '') return 'expected an http(s) URL with a host';
  return undefined;
}

/** TRL's importance-sampling modes (docs/training.md). */
export const IS_MODES = ['token_truncate', 'token_mask', 'sequence_truncate', 'sequence_mask'] as const;

const positiveInt = z.number().int('expected an integer').positive('expected an integer > 0');
const fraction = (lo: number, hi: number) => z.number().min(lo, `expected a number in [${lo}, ${hi}]`).max(hi, `expected a number in [${lo}, ${hi}]`);

export const TrainConfigSchema = z.strictObject({
  version: z.literal(TRAIN_CONFIG_VERSION, { error: `expected ${TRAIN_CONFIG_VERSION}` }),
  /** The run's name: its folder under the workspace's train/ and its LoRA module name when served. */
  name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'expected letters, digits, "_", "-", "." (at most 64)'),
  /** Checkpoints, traces/rollouts.jsonl, progress.jsonl and the log go here (absolute once resolved). */
  output_dir: z.string().min(1, 'expected a directory'),
  model: z.string().min(1, 'expected a model id or path').default('Qwen/Qwen3.5-4B'),
  env: z
    .strictObject({
      /** local: `train launch` starts `geolab env serve` on loopback; remote: url is already serving. */
      mode: z.enum(['local', 'remote']).default('local'),
      /** Remote: the server's base URL. Local: filled in by launch with the address it bound. */
      url: z
        .string('expected an http(s) URL')
        .superRefine((value, ctx) => {
          const problem = httpUrlProblem(value);
          if (problem) ctx.addIssue({ code: 'custom', message: problem });
        })
        .optional(),
      /** The split the trainer plays (a workspace task set name, served under that name). */
      split: z.string().min(1).default('train'),
      /** Local: task files served as splits (`SPLIT=FILE`), else the workspace's task sets. */
      tasks: z.array(z.string()).default([]),
      /** Local: the panorama cache; default the workspace's. */
      panos: z.string().optional(),
    })
    .prefault({}),
  lora: z
    .strictObject({
      r: positiveInt.default(16),
      alpha: positiveInt.default(32),
      dropout: fraction(0, 1).default(0.05),
      target_modules: z.array(z.string().min(1)).min(1).default(['q_proj', 'k_proj', 'v_proj', 'o_proj']),
    })
    .prefault({}),
  grpo: z
    .strictObject({
      // The published run's GRPOConfig arguments, each written out so none falls to a library default
      // (docs/training.md, "The recipe against TRL's defaults"). Importance-sampling correction first:
      // TRL turns it on by default, and on this task it scaled the gradient to about 1e-4.
      vllm_importance_sampling_correction: z.boolean().default(false),
      vllm_importance_sampling_mode: z.enum(IS_MODES).default('token_truncate'),
      vllm_importance_sampling_clip_min: z.number().min(0, 'expected a number >= 0').default(0.2),
      vllm_importance_sampling_clip_max: z.number().positive('expected a number > 0').default(3.0),
      use_vllm: z.literal(true, { error: 'expected true: the recipe generates with vLLM' }).default(true),
      vllm_mode: z.literal('colocate', { error: 'expected "colocate": vLLM shares the training GPU' }).default('colocate'),
      num_generations: positiveInt.default(8),
      generation_batch_size: positiveInt.default(8),
      per_device_train_batch_size: positiveInt.default(1),
      gradient_accumulation_steps: positiveInt.default(8),
      learning_rate: z.number().positive('expected a number > 0').default(3e-5),
      temperature: z.number().positive('expected a number > 0').default(1.0),
      beta: z.number().min(0, 'expected a number >= 0').default(0),
      scale_rewards: z.enum(['group', 'batch', 'none']).default('group'),
      num_iterations: positiveInt.default(1),
      max_steps: positiveInt.default(250),
      max_completion_length: positiveInt.default(6144),
      max_model_len: positiveInt.default(32768),
      save_steps: positiveInt.default(25),
      seed: z.number().int().default(0),
      vllm_gpu_memory_utilization: fraction(0.05, 0.95).default(0.22),
      /** Passed to the chat template in training, and by `train serve` to the served model (thinking off). */
      chat_template_kwargs: z.record(z.string(), z.unknown()).default({ enable_thinking: false }),
      mask_truncated_completions: z.boolean().default(true),
      bf16: z.boolean().default(true),
      gradient_checkpointing: z.boolean().default(true),
      logging_steps: positiveInt.default(1),
      log_completions: z.boolean().default(true),
      num_completions_to_print: positiveInt.default(2),
    })
    .prefault({}),
  episode: z
    .strictObject({
      /** Tool-call turns per rollout; the only budget the model is told about. */
      max_turns: positiveInt.default(12),
      /** Views are downscaled to this side before the model sees them. */
      view_px: positiveInt.default(448),
    })
    .prefault({}),
  /** GPUs on this machine; more than one launches through `accelerate launch`. */
  gpus: positiveInt.default(1),
  trace_rollouts: z.boolean().default(true),
  /** Names (never values) of environment variables the run needs, e.g. HF_TOKEN. */
  secrets: z.array(z.string().regex(/^[A-Z_][A-Z0-9_]*$/, 'expected an environment variable name')).default([]),
  /** Python interpreter for the trainer (a venv's python for the pinned requirements). */
  python: z.string().min(1).default('python3'),
});

export type TrainConfig = z.output<typeof TrainConfigSchema>;
export type TrainConfigInput = z.input<typeof TrainConfigSchema>;

export interface ConfigProblem {
  field: string;
  message: string;
}

/** Validates a parsed config; problems name the field path (e.g. `grpo.max_steps`). */
export function parseTrainConfig(value: unknown): { config: TrainConfig } | { problems: ConfigProblem[] } {
  const parsed = TrainConfigSchema.safeParse(value);
  if (!parsed.success) {
    return { problems: parsed.error.issues.map((i) => ({ field: i.path.join('.') || '(root)', message: i.message })) };
  }
  const problems = consistency(parsed.data);
  return problems.length ? { problems } : { config: parsed.data };
}

/** What the recipe's numbers mean per optimizer step, as TRL computes them. */
export interface Derived {
  /** Completions per optimizer step across all GPUs. */
  completionsPerStep: number;
  /** Distinct tasks per optimizer step (each task yields num_generations completions). */
  tasksPerStep: number;
  /** Optimizer steps served by one generation batch (TRL's steps_per_generation). */
  stepsPerGeneration: number;
  /** Tasks the whole run draws. */
  tasksTotal: number;
  /** Checkpoints the run writes. */
  checkpoints: number;
}

export function derive(c: TrainConfig): Derived {
  const g = c.grpo;
  const completionsPerStep = g.per_device_train_batch_size * g.gradient_accumulation_steps * c.gpus;
  const tasksPerStep = completionsPerStep / g.num_generations;
  return {
    completionsPerStep,
    tasksPerStep,
    stepsPerGeneration: g.generation_batch_size / (g.per_device_train_batch_size * c.gpus),
    tasksTotal: tasksPerStep * g.max_steps,
    checkpoints: Math.floor(g.max_steps / g.save_steps),
  };
}

/** Rules between fields that TRL would otherwise reject an hour into a run (or never). */
function consistency(c: TrainConfig): ConfigProblem[] {
  const g = c.grpo;
  const out: ConfigProblem[] = [];
  if (g.num_generations < 2) out.push({ field: 'grpo.num_generations', message: 'expected at least 2: GRPO compares completions within a group' });
  if (g.generation_batch_size % g.num_generations !== 0) {
    out.push({ field: 'grpo.generation_batch_size', message: `expected a multiple of num_generations (${g.num_generations})` });
  }
  const perStep = g.per_device_train_batch_size * g.gradient_accumulation_steps * c.gpus;
  if (perStep % g.num_generations !== 0) {
    out.push({
      field: 'grpo.gradient_accumulation_steps',
      message: `per_device_train_batch_size x gradient_accumulation_steps x gpus (${perStep}) must be a multiple of num_generations (${g.num_generations}), so every step holds whole groups`,
    });
  }
  if (g.generation_batch_size % (g.per_device_train_batch_size * c.gpus) !== 0) {
    out.push({ field: 'grpo.generation_batch_size', message: `expected a multiple of per_device_train_batch_size x gpus (${g.per_device_train_batch_size * c.gpus})` });
  }
  if (g.max_completion_length >= g.max_model_len) {
    out.push({ field: 'grpo.max_completion_length', message: `expected less than max_model_len (${g.max_model_len}): the prompt needs room` });
  }
  if (g.vllm_importance_sampling_clip_min >= g.vllm_importance_sampling_clip_max) {
    out.push({ field: 'grpo.vllm_importance_sampling_clip_min', message: `expected less than vllm_importance_sampling_clip_max (${g.vllm_importance_sampling_clip_max})` });
  }
  if (c.env.mode === 'remote' && !c.env.url) out.push({ field: 'env.url', message: 'expected the server URL for a remote environment' });
  return out;
}
