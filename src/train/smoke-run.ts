/**
 * The stages of `geolab train smoke` after pre-flight (docs/training.md, "Smoke test"), in order:
 * the smoke's config written, the run launched by launch's own code, followed to its checkpoint, and
 * that checkpoint served and asked once. Each stage is reported as an event as it passes; one that
 * fails throws a SmokeFailure naming its stage and the log to read. The CLI prints the events; the
 * TUI can call the same function.
 */
import { join } from 'node:path';
import { EXIT, GeolabError, ServiceError } from '../core/errors.js';
import type { TrainConfig } from './config.js';
import { ENV_LOG_FILE, launch, LOG_FILE } from './launch.js';
import { followTraining, prepareSmokeDir, serveOnce, SmokeFailure, type Interrupt, type SmokeEvent } from './smoke.js';

/** The smoke's events: the config it wrote, then those of src/train/smoke.ts. */
export type SmokeRunEvent = { stage: 'config'; config_file: string; output_dir: string } | SmokeEvent;

export interface SmokeRunOptions {
  /** Another trainer script (the default is geolab's). */
  trainer?: string;
  /** Port of the served adapter (default: a free one). */
  port?: number;
  workspace?: string;
  /** The environment the trainer and vLLM see. */
  env: NodeJS.ProcessEnv;
  /** Set on Ctrl-C: the stage under way ends what it started. */
  interrupt: Interrupt;
  onEvent: (event: SmokeRunEvent) => void;
}

/** Runs the smoke of `config` (already the smoke's, see smokeConfig) from its config file to the served reply. */
export async function runSmoke(config: TrainConfig, options: SmokeRunOptions): Promise<void> {
  const { onEvent, interrupt } = options;
  const file = prepareSmokeDir(config);
  onEvent({ stage: 'config', config_file: file, output_dir: config.output_dir });
  const record = await launch({ configPath: file, config, resume: false, script: options.trainer, workspace: options.workspace }).catch((err: Error) => {
    if (err instanceof GeolabError && err.exitCode === EXIT.interrupted) throw err;
    // The environment server's failure is a ServiceError naming its log; anything else is the trainer's start.
    if (err instanceof ServiceError) throw new SmokeFailure('environment', err.message, join(config.output_dir, ENV_LOG_FILE));
    throw new SmokeFailure('training', err.message, join(config.output_dir, LOG_FILE));
  });
  const env = record.env_server;
  onEvent({ stage: 'environment', url: env?.url ?? config.env.url ?? '', local: env !== null, pid: env?.pid ?? null });
  onEvent({ stage: 'trainer', pid: record.pid, log: record.log_path });
  const checkpoint = await followTraining(record, onEvent, interrupt).catch((err: unknown) => {
    // A failure while training that names no log of its own is read in the trainer's.
    throw err instanceof SmokeFailure && err.log === undefined ? new SmokeFailure(err.stage, err.message, record.log_path) : err;
  });
  await serveOnce(file, checkpoint.step, { env: options.env, port: options.port, onEvent, interrupt });
}
