/**
 * `geolab eval run`: a pass@k sweep of one or more models over a split, in the harness's layout, every
 * episode also recorded in the workspace. Resumable (an episode already recorded for its model,
 * prompt version, split, task and sample is skipped), one sweep per output folder, spread over model
 * replicas and environment servers. Draws no TUI.
 *
 * Exit codes: 0 every episode recorded; 1 some episode failed (environment error, leak guard);
 * 2 bad usage, or the folder is another sweep's; 3 a model endpoint or the environment had no
 * replica left: gone, refusing the key, or unusable (no request of an episode got a reply after its
 * retries, as from an endpoint answering HTTP 500 to everything); the episodes are recorded as
 * failed, and a re-run plays them again; 130 interrupted. The summary and sweep.json count per
 * model the retries, provider-error turns, failed and aborted episodes (docs/sweeps.md).
 */
import { setMaxListeners } from 'node:events';
import { maxReplyProblem, DEFAULT_IMAGE_SIZE_PX, DEFAULT_MAX_TURNS, DEFAULT_PROTOCOL, DEFAULT_SPLIT, PROTOCOLS } from '../../agent/agent-settings.js';
import type { Protocol } from '../../agent/policies/model.js';
import type { ToolSet } from '../../agent/protocols/tools.js';
import { EXIT, UsageError } from '../../core/errors.js';
import { checkedPanosDir } from '../../files.js';
import { modelSpecsOf, type ModelFlags } from '../../agent/endpoint-choice.js';
import { parseIndices, parseShard, shardFromEnvironment, type Shard } from '../../eval/run/plan.js';
import type { SweepHooks, SweepOptions, SweepOutcome } from '../../eval/run/start.js';
import type { GlobalOptions } from '../options.js';
import { printJson, printLine, warn, warnSkipped } from '../output.js';

export interface EvalRunOptions extends GlobalOptions, ModelFlags {
  split?: string;
  limit?: number;
  indices?: string;
  passes?: number;
  concurrency?: number;
  maxTurns?: number;
  protocol?: Protocol;
  tools?: ToolSet;
  promptFile?: string;
  env?: string[];
  out?: string;
  runId?: string;
  /** `I/N`, or `auto`: from a Slurm array job or a Kubernetes Indexed Job. */
  shard?: string;
  /** N for `--shard auto` where the scheduler does not say it (Kubernetes). */
  shards?: number;
  retries?: number;
  /** Seconds before the first retry of a model request. */
  retryDelay?: number;
  /** Seconds per model request attempt. */
  timeout?: number;
  /** The largest model reply read, in MiB. */
  maxReplyMb?: number;
  imageSize?: number;
  panos?: string;
}

export const DEFAULT_PASSES = 4;
export const DEFAULT_CONCURRENCY = 8;

export async function evalRunCommand(opts: EvalRunOptions): Promise<void> {
  const options = sweepOptionsOf(opts);
  const controller = new AbortController();
  // Every request and wait of every episode in flight listens to it: many more than Node's default ten.
  setMaxListeners(0, controller.signal);
  const interrupt = () => {
    // A second Ctrl-C does not wait for the episodes in flight; the lock left behind is taken over next time.
    if (controller.signal.aborted) process.exit(EXIT.interrupted);
    controller.abort();
  };
  const { startSweep } = await import('../../eval/run/start.js');
  const terminal = terminalHooks();
  try {
    const outcome = await startSweep(options, {
      ...terminal.hooks,
      signal: controller.signal,
      // From the lock on, an interrupt ends the sweep through its own finally blocks, which release the lock.
      onLocked: () => {
        process.on('SIGINT', interrupt);
        process.on('SIGTERM', interrupt);
      },
    });
    terminal.end();
    printOutcome(outcome, opts.json);
  } finally {
    process.off('SIGINT', interrupt);
    process.off('SIGTERM', interrupt);
  }
}

/** The flags checked, as the sweep service takes them. */
function sweepOptionsOf(opts: EvalRunOptions): SweepOptions {
  const models = modelSpecsOf(opts);
  const passes = integerIn('--passes', opts.passes ?? DEFAULT_PASSES, 1, 1000);
  const concurrency = integerIn('--concurrency', opts.concurrency ?? DEFAULT_CONCURRENCY, 1, 1024);
  const maxTurns = integerIn('--max-turns', opts.maxTurns ?? DEFAULT_MAX_TURNS, 1, 200);
  const imageSizePx = integerIn('--image-size', opts.imageSize ?? DEFAULT_IMAGE_SIZE_PX, 32, 4096);
  const retries = integerIn('--retries', opts.retries ?? 2, 0, 20);
  if (opts.retryDelay !== undefined && !(opts.retryDelay >= 0)) throw new UsageError(`--retry-delay must be seconds >= 0, got ${opts.retryDelay}`);
  if (opts.timeout !== undefined && !(opts.timeout > 0)) throw new UsageError(`--timeout must be seconds above 0, got ${opts.timeout}`);
  const replyProblem = opts.maxReplyMb === undefined ? null : maxReplyProblem(opts.maxReplyMb);
  if (replyProblem) throw new UsageError(`--max-reply-mb ${replyProblem}`);
  if (opts.limit !== undefined) integerIn('--limit', opts.limit, 1, Number.MAX_SAFE_INTEGER);
  if (opts.limit !== undefined && opts.indices !== undefined) throw new UsageError('--limit and --indices are alternatives: give one');
  const protocol = opts.protocol ?? DEFAULT_PROTOCOL;
  if (!PROTOCOLS.includes(protocol)) throw new UsageError(`--protocol must be ${PROTOCOLS.join(' or ')}, got "${String(protocol)}"`);
  const indices = opts.indices === undefined ? undefined : parseIndices(opts.indices);
  const shard = shardOf(opts);
  const env = (opts.env ?? []).flatMap((u) => u.split(',')).map((u) => u.trim()).filter(Boolean);
  const panos = opts.panos === undefined ? undefined : checkedPanosDir(opts.panos, '--panos');
  return {
    models, split: opts.split ?? DEFAULT_SPLIT, limit: opts.limit, indices, passes, concurrency,
    // Without --concurrency, how many are in flight follows the machine (docs/sweeps.md).
    adaptive: opts.concurrency === undefined,
    maxTurns, imageSizePx, retries, retryDelayS: opts.retryDelay, timeoutS: opts.timeout, maxReplyMb: opts.maxReplyMb,
    protocol, tools: opts.tools ?? 'trained', promptFile: opts.promptFile, env, panos,
    out: opts.out, runId: opts.runId, fallbackRunId: schedulerRunId(opts) ?? undefined, shard, workspace: opts.workspace,
  };
}

/** stderr while the sweep runs: a line per episode, or on a terminal one live line redrawn. */
function terminalHooks(): { hooks: SweepHooks; end(): void } {
  const tty = Boolean(process.stderr.isTTY);
  let drawing = false;
  return {
    hooks: {
      onNote: (text) => {
        // A line of its own, off the progress line on a terminal.
        if (drawing) process.stderr.write('\r\x1b[K');
        warn(`geolab: ${text}`);
      },
      onSkipped: warnSkipped,
      onEpisode: (line) => {
        if (!tty) warn(line);
      },
      onProgress: (line) => {
        if (!tty) return;
        drawing = true;
        process.stderr.write(`\r\x1b[K${line}`);
      },
    },
    end: () => {
      if (drawing) process.stderr.write('\n');
    },
  };
}

function printOutcome(outcome: SweepOutcome, json: boolean | undefined): void {
  if (json) printJson({ run_id: outcome.runId, out: outcome.out, status: outcome.status, models: outcome.models });
  else for (const line of outcome.summary) printLine(line);
  warn(`geolab: ${outcome.machine}`);
  for (const message of outcome.gone) warn(`geolab: ${message}`);
  process.exitCode = outcome.exitCode;
}

// ---------------------------------------------------------------------------------------------
// Shards

/** `--shard I/N`, or `--shard auto` from the scheduler's variables, said once on stderr. */
function shardOf(opts: EvalRunOptions): Shard | undefined {
  if (opts.shards !== undefined && opts.shard?.trim() !== 'auto') throw new UsageError('--shards N goes with --shard auto (a Kubernetes Indexed Job\'s completions); --shard I/N says N itself');
  if (opts.shard === undefined) return undefined;
  if (opts.shard.trim() !== 'auto') return parseShard(opts.shard);
  const { shard, source } = shardFromEnvironment(process.env, opts.shards);
  warn(`geolab: --shard auto: playing shard ${shard.index}/${shard.count} (0-based), from ${source}`);
  return shard;
}

/**
 * Under `--shard auto` in a Slurm array job without --run-id, every task of the array names the run
 * after the array's job id, so the shards starting at once agree on it.
 */
function schedulerRunId(opts: EvalRunOptions): string | null {
  const job = process.env.SLURM_ARRAY_JOB_ID;
  return opts.shard?.trim() === 'auto' && job && /^\d+$/.test(job) ? `slurm-${job}` : null;
}

function integerIn(flag: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) throw new UsageError(`${flag} must be an integer from ${min} to ${max}, got ${value}`);
  return value;
}
