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
import { EXIT, UsageError } from '../../core/errors.js';
import { sweepOptionsOf, type SweepFlags } from '../../eval/run/options.js';
import { parseShard, shardFromEnvironment, type Shard } from '../../eval/run/plan.js';
import type { SweepHooks, SweepOptions, SweepOutcome } from '../../eval/run/start.js';
import type { GlobalOptions } from '../options.js';
import { printJson, printLine, warn, warnSkipped } from '../output.js';

export interface EvalRunOptions extends GlobalOptions, Omit<SweepFlags, 'names' | 'workspace'> {
  /** `I/N`, or `auto`: from a Slurm array job or a Kubernetes Indexed Job. */
  shard?: string;
  /** N for `--shard auto` where the scheduler does not say it (Kubernetes). */
  shards?: number;
}

export async function evalRunCommand(opts: EvalRunOptions): Promise<void> {
  const options = sweepOptionsFromFlags(opts);
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

/** The flags checked, as the sweep service takes them (src/eval/run/options.ts, shared with the Eval board's form). */
function sweepOptionsFromFlags(opts: EvalRunOptions): SweepOptions {
  const options = sweepOptionsOf(opts);
  return { ...options, shard: shardOf(opts), fallbackRunId: schedulerRunId(opts) ?? undefined };
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
