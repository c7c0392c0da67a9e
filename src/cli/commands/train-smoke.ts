/**
 * `geolab train smoke CONFIG [--model M]` (docs/training.md, "Smoke test"): pre-flight, the environment,
 * two optimizer steps of the real trainer, its checkpoint, and one reply from the served adapter, each
 * printed as it passes; a failure names its stage and the log (exit 1). Launch's own code starts the
 * run (src/train/launch.ts), serve's plans the server (src/train/serve.ts); src/train/smoke-run.ts runs
 * the stages in order, src/train/smoke.ts holds the rest.
 */
import { EXIT } from '../../core/errors.js';
import { loadTrainConfig } from '../../train/config-file.js';
import type { TrainConfig } from '../../train/config.js';
import { formatDuration } from '../../train/log.js';
import { runSmoke, type SmokeRunEvent } from '../../train/smoke-run.js';
import { SMOKE_STEPS, smokeConfig, SmokeFailure, type Interrupt } from '../../train/smoke.js';
import type { GlobalOptions } from '../options.js';
import { printJson, printLine, warn } from '../output.js';
import { formatMetric, gate, type TrainDeps } from './train-run.js';

export interface SmokeCommandOptions extends GlobalOptions {
  /** Another base model than the config's (an id or a local folder). */
  model?: string;
  /** Another trainer script (the default is geolab's). */
  trainer?: string;
  /** Port of the served adapter (default: a free one). */
  port?: number;
}

export async function smokeCommand(configFile: string, opts: SmokeCommandOptions, deps: TrainDeps = {}): Promise<void> {
  const started = Date.now();
  const { config: userConfig } = await loadTrainConfig(configFile);
  const config = smokeConfig(userConfig, { model: opts.model });
  const say = (text: string, event: Record<string, unknown>) => (opts.json ? printJson(event) : printLine(text));
  const { interrupt, release } = onInterrupt();
  try {
    if (!(await gate(config, { json: opts.json, workspace: opts.workspace }, deps))) {
      throw new SmokeFailure('pre-flight', 'a check failed (above); nothing was started');
    }
    say('pre-flight ok', { stage: 'pre-flight', ok: true });
    await runSmoke(config, { trainer: opts.trainer, port: opts.port, workspace: opts.workspace, env: process.env, interrupt, onEvent: (event) => printEvent(event, config, opts) });
    const seconds = (Date.now() - started) / 1000;
    say(`smoke ok in ${formatDuration(seconds)}: the stack trains, saves a checkpoint and serves it`, { stage: 'done', ok: true, seconds: Math.round(seconds) });
  } catch (err) {
    if (!(err instanceof SmokeFailure)) throw err;
    printFailure(err, opts);
    process.exitCode = EXIT.problemFound;
  } finally {
    release();
  }
}

/** Ctrl-C (or SIGTERM): the stage under way ends what it started (the trainer's group, the environment server, vLLM); exit 130. */
function onInterrupt(): { interrupt: Interrupt; release: () => void } {
  const abort = new AbortController();
  const interrupt: Interrupt = { requested: false, signal: abort.signal };
  const onSigint = () => {
    interrupt.requested = true;
    abort.abort();
  };
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigint);
  return {
    interrupt,
    release: () => {
      process.off('SIGINT', onSigint);
      process.off('SIGTERM', onSigint);
    },
  };
}

function printFailure(err: SmokeFailure, opts: SmokeCommandOptions): void {
  if (opts.json) printJson({ stage: 'failed', at: err.stage, message: err.message, log: err.log ?? null });
  warn(`geolab: smoke failed at ${err.stage}: ${err.message}`);
  if (err.log) warn(`log: ${err.log}`);
}

function printEvent(event: SmokeRunEvent, config: TrainConfig, opts: SmokeCommandOptions): void {
  if (opts.json) return printJson(event);
  switch (event.stage) {
    case 'config':
      return printLine(`smoke run in ${config.output_dir}: ${config.model}, ${SMOKE_STEPS} steps from one generation batch of ${config.grpo.generation_batch_size} completions`);
    case 'environment':
      return printLine(event.local ? `environment up: ${event.url} (local, pid ${event.pid})` : `environment: ${event.url} (remote; pre-flight played a step on it)`);
    case 'trainer':
      return printLine(`trainer started: pid ${event.pid}, log ${event.log}`);
    case 'phase':
      return printLine(event.phase === 'loading' ? 'trainer loading the model' : 'trainer training');
    case 'step': {
      const shown = ['reward', 'loss', 'completions/mean_length'].filter((k) => event.metrics[k] !== undefined).map((k) => `${k} ${formatMetric(event.metrics[k]!)}`);
      return printLine(`step ${event.step}/${event.max_steps}${shown.length ? ` · ${shown.join(' · ')}` : ''}`);
    }
    case 'warning':
      return printLine(`warning: ${event.message}`);
    case 'checkpoint':
      return printLine(`checkpoint checkpoint-${event.step}: ${event.path}`);
    case 'serving':
      return printLine(`serving ${event.model} on ${event.url} (pid ${event.pid}, log ${event.log})`);
    case 'reply':
      return printLine(`served, one reply: ${JSON.stringify(event.content.length > 200 ? `${event.content.slice(0, 197)}...` : event.content)}`);
  }
}
