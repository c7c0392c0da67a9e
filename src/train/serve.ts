/**
 * After training: the vLLM command that serves a run's LoRA adapter beside its base model
 * (docs/endpoints.md), and the `geolab eval run` line that scores it. The adapter is the final one (the
 * trainer saves it to `<output_dir>/final/`), else the last complete `checkpoint-N`.
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { InputError, UsageError } from '../core/errors.js';
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
  /** argv of the server, starting with `vllm`. */
  command: string[];
  /** argv of the evaluation against it, starting with `geolab`. */
  evalCommand: string[];
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
  return {
    model: config.model,
    name,
    adapter,
    checkpoint,
    port,
    command: [
      'vllm', 'serve', config.model,
      '--enable-lora', '--lora-modules', `${name}=${adapter}`,
      // vLLM refuses adapters of a higher rank than this (its default is 16).
      '--max-lora-rank', String(config.lora.r),
      '--enable-auto-tool-choice', '--tool-call-parser', 'qwen3_xml',
      '--max-model-len', String(config.grpo.max_model_len),
      '--host', '127.0.0.1', '--port', String(port),
    ],
    evalCommand: ['geolab', 'eval', 'run', '--model', name, '--base-url', `http://127.0.0.1:${port}/v1`],
  };
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
