/**
 * After training: the vLLM command that serves a run's LoRA adapter beside its base model
 * (docs/endpoints.md, docs/training.md "Serving the result"), and the `geolab eval run` line that scores
 * adapter and base alike. The adapter is the final one (the trainer saves it to `<output_dir>/final/`),
 * else the last complete `checkpoint-N`.
 *
 * Served in the mode it was trained in: the vLLM of the config's own Python environment, the base
 * model's reasoning parser, the training chat template kwargs (thinking off) as the server's default,
 * and a models file whose two arms (adapter, base) send those kwargs with every request as well.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { InputError, UsageError } from '../core/errors.js';
import { writeFileAtomic } from '../files.js';
import { CONFIG_FILE, loadTrainConfig } from './config-file.js';
import { checkpointDir, checkpointSteps } from './checkpoints.js';
import type { TrainConfig } from './config.js';

/** vLLM's own default port; eval run's --base-url follows it. */
export const DEFAULT_SERVE_PORT = 8000;
/** A checkpoint or final adapter is complete once peft has written this (it is written with the weights). */
const ADAPTER_MARKER = 'adapter_config.json';
/** Where geolab_trainer.py saves the adapter when the run is done. */
export const FINAL_ADAPTER_DIR = 'final';

export interface ServePlan {
  model: string;
  /** The LoRA module name the endpoint serves, and the model `eval run` asks for. */
  name: string;
  adapter: string;
  /** The checkpoint's step; null for the final adapter. */
  checkpoint: number | null;
  port: number;
  /** argv of the server: `<venv>/bin/vllm serve` or `<python> -m vllm.entrypoints.openai.api_server`. */
  command: string[];
  /** The harness's models file `evalCommand` reads: the adapter and the base, asked the same way. */
  modelsFile: string;
  models: EvalModel[];
  /** argv of the evaluation against it, starting with `geolab`. */
  evalCommand: string[];
}

/** One entry of the models file (docs/eval.md: the harness's model file). */
export interface EvalModel {
  name: string;
  provider: 'openai';
  model: string;
  base_url: string;
  extra_body: { chat_template_kwargs: Record<string, unknown> };
}

/** Ranks vLLM accepts for --max-lora-rank (its LoRAConfig); the adapter's r is rounded up to one. */
export const VLLM_LORA_RANKS = [8, 16, 32, 64, 128, 256, 320, 512] as const;

export function maxLoraRank(r: number): number {
  return VLLM_LORA_RANKS.find((rank) => rank >= r) ?? r;
}

/** The vLLM server of the config's Python environment, as argv up to and including the model. */
export function vllmServer(python: string, model: string): string[] {
  if (python.includes('/')) {
    const bin = join(dirname(python), 'vllm');
    if (existsSync(bin)) return [bin, 'serve', model];
  }
  return [python, '-m', 'vllm.entrypoints.openai.api_server', '--model', model];
}

/** Qwen3 and Qwen3.x bases (an id or a local folder) think unless told not to: vLLM's qwen3 parser. */
export function reasoningParser(model: string): string | undefined {
  if (/^qwen3/i.test(basename(model.replace(/\/+$/, '')))) return 'qwen3';
  try {
    const type = (JSON.parse(readFileSync(join(model, 'config.json'), 'utf8')) as { model_type?: unknown }).model_type;
    if (typeof type === 'string' && /^qwen3/i.test(type)) return 'qwen3';
  } catch {
    // not a local model folder
  }
  return undefined;
}

/** JSON as Python's json.dumps spells it ("{"enable_thinking": false}"), the form vLLM's docs show. */
export function jsonArgument(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(jsonArgument).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value as Record<string, unknown>).map(([k, v]) => `${JSON.stringify(k)}: ${jsonArgument(v)}`).join(', ')}}`;
  }
  return JSON.stringify(value);
}

/** RUN is a run folder (holding config.json) or a config file. */
export async function planServe(run: string, options: { port?: number; checkpoint?: number } = {}): Promise<ServePlan> {
  const file = existsSync(run) && statSync(run).isDirectory() ? join(run, CONFIG_FILE) : run;
  const { config } = await loadTrainConfig(file);
  const port = options.port ?? DEFAULT_SERVE_PORT;
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new UsageError('--port must be 1..65535');
  const { adapter, checkpoint } = findAdapter(config, options.checkpoint);
  // A checkpoint is named by its step, so the recorded episodes say which adapter played.
  const name = checkpoint === null ? config.name : `${config.name}-ckpt${checkpoint}`;
  const baseUrl = `http://127.0.0.1:${port}/v1`;
  const template = config.grpo.chat_template_kwargs;
  const parser = reasoningParser(config.model);
  const models: EvalModel[] = [
    { name, provider: 'openai', model: name, base_url: baseUrl, extra_body: { chat_template_kwargs: { ...template } } },
    { name: `${config.name}-base`, provider: 'openai', model: config.model, base_url: baseUrl, extra_body: { chat_template_kwargs: { ...template } } },
  ];
  const modelsFile = join(config.output_dir, `eval-models.${name}.json`);
  return {
    model: config.model,
    name,
    adapter,
    checkpoint,
    port,
    command: [
      ...vllmServer(config.python, config.model),
      '--enable-lora', '--lora-modules', `${name}=${adapter}`,
      // vLLM refuses adapters of a higher rank than this (its default is 16).
      '--max-lora-rank', String(maxLoraRank(config.lora.r)),
      '--enable-auto-tool-choice', '--tool-call-parser', 'qwen3_xml',
      ...(parser ? ['--reasoning-parser', parser] : []),
      // The template kwargs the adapter was trained with (thinking off) are the server's default too.
      ...(Object.keys(template).length ? ['--default-chat-template-kwargs', jsonArgument(template)] : []),
      '--max-model-len', String(config.grpo.max_model_len),
      '--host', '127.0.0.1', '--port', String(port),
    ],
    modelsFile,
    models,
    evalCommand: ['geolab', 'eval', 'run', '--models', modelsFile],
  };
}

/** Writes the plan's models file (beside the run's checkpoints), as `eval run --models` reads it. */
export function writeModelsFile(plan: ServePlan): void {
  writeFileAtomic(plan.modelsFile, JSON.stringify(plan.models, null, 2) + '\n');
}

/** The checkpoints under output_dir that hold a complete adapter, by step. */
export function listCheckpoints(outputDir: string): { step: number; dir: string }[] {
  return checkpointSteps(outputDir)
    .map((step) => ({ step, dir: checkpointDir(outputDir, step) }))
    .filter((c) => existsSync(join(c.dir, ADAPTER_MARKER)));
}

function findAdapter(config: TrainConfig, wanted: number | undefined): { adapter: string; checkpoint: number | null } {
  const outputDir = config.output_dir;
  const checkpoints = listCheckpoints(outputDir);
  const steps = checkpoints.map((c) => c.step).join(', ') || 'none yet';
  if (wanted !== undefined) {
    const found = checkpoints.find((c) => c.step === wanted);
    if (!found) throw new UsageError(`--checkpoint ${wanted}: no complete checkpoint-${wanted} under ${outputDir} (checkpoints: ${steps})`);
    return { adapter: found.dir, checkpoint: found.step };
  }
  const final = join(outputDir, FINAL_ADAPTER_DIR);
  if (existsSync(join(final, ADAPTER_MARKER))) return { adapter: final, checkpoint: null };
  const last = checkpoints[checkpoints.length - 1];
  if (!last) {
    throw new InputError(`no adapter yet: neither a final adapter (${FINAL_ADAPTER_DIR}/${ADAPTER_MARKER}) nor a checkpoint-N with one; the trainer writes one every ${config.grpo.save_steps} steps`, { file: outputDir });
  }
  return { adapter: last.dir, checkpoint: last.step };
}

/** An argv as a line a POSIX shell reads back the same. */
export function shellLine(argv: readonly string[]): string {
  return argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}
