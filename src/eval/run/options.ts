/**
 * A sweep's settings as a person gives them (the flags of `geolab eval run`, the Eval board's new-sweep
 * form) turned into the checked options `startSweep` takes. One reading for both, so a default or a
 * range means the same wherever a sweep starts (docs/sweeps.md). What only a command line has (a
 * shard, a scheduler's run id) the command adds to what this returns.
 */
import { maxReplyProblem, DEFAULT_IMAGE_SIZE_PX, DEFAULT_MAX_TURNS, DEFAULT_PROTOCOL, DEFAULT_SPLIT, PROTOCOLS } from '../../agent/agent-settings.js';
import { modelSpecsOf, type ModelFlags } from '../../agent/endpoint-choice.js';
import type { ModelSpec } from '../../agent/models-file.js';
import type { Protocol } from '../../agent/policies/model.js';
import type { ToolSet } from '../../agent/protocols/tools.js';
import { UsageError } from '../../core/errors.js';
import { integerIn } from '../../core/values.js';
import { checkedPanosDir } from '../../files.js';
import { parseIndices } from './plan.js';
import type { SweepOptions } from './start.js';

/** The settings of a sweep before they are checked; each is the flag of the same name. */
export interface SweepFlags extends ModelFlags {
  /** Of a models file's entries, only these (by name); none: every entry. */
  names?: string[];
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
  retries?: number;
  /** Seconds before the first retry of a model request. */
  retryDelay?: number;
  /** Seconds per model request attempt. */
  timeout?: number;
  /** The largest model reply read, in MiB. */
  maxReplyMb?: number;
  imageSize?: number;
  panos?: string;
  workspace?: string;
}

export const DEFAULT_PASSES = 4;
export const DEFAULT_CONCURRENCY = 8;

/** The whole numbers each count may be, both ends included. */
export const SWEEP_RANGES = {
  passes: [1, 1000],
  concurrency: [1, 1024],
  limit: [1, Number.MAX_SAFE_INTEGER],
} as const satisfies Record<string, readonly [number, number]>;

/** The settings checked, as the sweep service takes them; a UsageError names the flag at fault. */
export function sweepOptionsOf(opts: SweepFlags): SweepOptions {
  const models = chosenModels(modelSpecsOf(opts), opts.names);
  const passes = integerIn('--passes', opts.passes ?? DEFAULT_PASSES, ...SWEEP_RANGES.passes);
  const concurrency = integerIn('--concurrency', opts.concurrency ?? DEFAULT_CONCURRENCY, ...SWEEP_RANGES.concurrency);
  const maxTurns = integerIn('--max-turns', opts.maxTurns ?? DEFAULT_MAX_TURNS, 1, 200);
  const imageSizePx = integerIn('--image-size', opts.imageSize ?? DEFAULT_IMAGE_SIZE_PX, 32, 4096);
  const retries = integerIn('--retries', opts.retries ?? 2, 0, 20);
  if (opts.retryDelay !== undefined && !(opts.retryDelay >= 0)) throw new UsageError(`--retry-delay must be seconds >= 0, got ${opts.retryDelay}`);
  if (opts.timeout !== undefined && !(opts.timeout > 0)) throw new UsageError(`--timeout must be seconds above 0, got ${opts.timeout}`);
  const replyProblem = opts.maxReplyMb === undefined ? null : maxReplyProblem(opts.maxReplyMb);
  if (replyProblem) throw new UsageError(`--max-reply-mb ${replyProblem}`);
  if (opts.limit !== undefined) integerIn('--limit', opts.limit, ...SWEEP_RANGES.limit);
  if (opts.limit !== undefined && opts.indices !== undefined) throw new UsageError('--limit and --indices are alternatives: give one');
  const protocol = opts.protocol ?? DEFAULT_PROTOCOL;
  if (!PROTOCOLS.includes(protocol)) throw new UsageError(`--protocol must be ${PROTOCOLS.join(' or ')}, got "${String(protocol)}"`);
  const indices = opts.indices === undefined ? undefined : parseIndices(opts.indices);
  const env = (opts.env ?? []).flatMap((u) => u.split(',')).map((u) => u.trim()).filter(Boolean);
  const panos = opts.panos === undefined ? undefined : checkedPanosDir(opts.panos, '--panos');
  return {
    models, split: opts.split ?? DEFAULT_SPLIT, limit: opts.limit, indices, passes, concurrency,
    // Without --concurrency, how many are in flight follows the machine (docs/sweeps.md).
    adaptive: opts.concurrency === undefined,
    maxTurns, imageSizePx, retries, retryDelayS: opts.retryDelay, timeoutS: opts.timeout, maxReplyMb: opts.maxReplyMb,
    protocol, tools: opts.tools ?? 'trained', promptFile: opts.promptFile, env, panos,
    out: opts.out, runId: opts.runId, workspace: opts.workspace,
  };
}

/** A name the models file does not hold (the new-sweep form points at its names field). */
export class UnknownModelNameError extends UsageError {}

/** The entries named, in the file's order; each name must be one of the file's. */
function chosenModels(specs: ModelSpec[], names: readonly string[] | undefined): ModelSpec[] {
  if (!names?.length) return specs;
  const missing = names.filter((n) => !specs.some((s) => s.name === n));
  if (missing.length) throw new UnknownModelNameError(`the models file has no model named ${missing.join(', ')} (it has ${specs.map((s) => s.name).join(', ')})`);
  return specs.filter((s) => names.includes(s.name));
}
