/**
 * The plan of a sweep (issue 12 §1), pure: the work list of (model, prompt version, split, index,
 * sample) episodes, the shard of it this machine plays, and what is left once the episodes already
 * recorded are taken away. Pass p of a sweep is sample p of every task, so passes pool into pass@k
 * with no two episodes claiming the same attempt (the harness's `--sample-offset`).
 */
import { UsageError } from '../../core/errors.js';

/** One episode to play; its key is the harness's resume key. */
export interface WorkItem {
  model: string;
  promptVersion: string;
  split: string;
  index: number;
  sample: number;
}

export interface Shard {
  /** 0-based. */
  index: number;
  count: number;
}

/** `--shard I/N`: this machine plays shard I (0-based) of N. */
export function parseShard(text: string): Shard {
  const match = /^(\d+)\/(\d+)$/.exec(text.trim());
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (!match || count < 1 || index >= count) throw new UsageError(`--shard expects I/N with 0 <= I < N (e.g. 0/4), got "${text}"`);
  return { index, count };
}

/** The variables `--shard auto` reads, by scheduler. */
export const SLURM_SHARD_VARS = ['SLURM_ARRAY_TASK_ID', 'SLURM_ARRAY_TASK_COUNT', 'SLURM_ARRAY_TASK_MIN', 'SLURM_ARRAY_TASK_STEP'] as const;
export const KUBERNETES_SHARD_VAR = 'JOB_COMPLETION_INDEX';

export interface ChosenShard {
  shard: Shard;
  /** Where I and N came from, for the line printed at the start. */
  source: string;
}

/**
 * `--shard auto`: I and N from the scheduler running this process as one of an array.
 *
 * Slurm array job: I is SLURM_ARRAY_TASK_ID made 0-based, less SLURM_ARRAY_TASK_MIN when set (the
 * array's first index: `--array=1-3` plays shards 0..2), divided by SLURM_ARRAY_TASK_STEP when set
 * (`--array=0-8:4`); N is SLURM_ARRAY_TASK_COUNT, or `--shards N`. Kubernetes Indexed Job: I is
 * JOB_COMPLETION_INDEX (0-based already), N is `--shards N`, the Job's `completions`, which Kubernetes
 * does not export. Everything that does not add up is a usage error naming the variables.
 */
export function shardFromEnvironment(env: NodeJS.ProcessEnv, shards?: number): ChosenShard {
  const slurm = env.SLURM_ARRAY_TASK_ID !== undefined && env.SLURM_ARRAY_TASK_ID !== '';
  const kube = env[KUBERNETES_SHARD_VAR] !== undefined && env[KUBERNETES_SHARD_VAR] !== '';
  if (shards !== undefined && !(Number.isInteger(shards) && shards >= 1)) throw new UsageError(`--shards must be an integer >= 1, got ${shards}`);
  if (slurm && kube) throw new UsageError(`--shard auto: both SLURM_ARRAY_TASK_ID (Slurm) and ${KUBERNETES_SHARD_VAR} (Kubernetes) are set, so the shard is ambiguous; give --shard I/N`);
  const whole = (name: string, min: number): number => {
    const text = (env[name] ?? '').trim();
    if (!/^\d+$/.test(text) || Number(text) < min) throw new UsageError(`--shard auto: ${name} must be an integer >= ${min}, got "${env[name]}"`);
    return Number(text);
  };
  let index: number;
  let count: number;
  const said: string[] = [];
  if (slurm) {
    const id = whole('SLURM_ARRAY_TASK_ID', 0);
    said.push(`SLURM_ARRAY_TASK_ID=${id}`);
    const hasMin = (env.SLURM_ARRAY_TASK_MIN ?? '') !== '';
    const min = hasMin ? whole('SLURM_ARRAY_TASK_MIN', 0) : 0;
    if (hasMin) said.push(`SLURM_ARRAY_TASK_MIN=${min}`);
    const hasStep = (env.SLURM_ARRAY_TASK_STEP ?? '') !== '';
    const step = hasStep ? whole('SLURM_ARRAY_TASK_STEP', 1) : 1;
    if (hasStep && step !== 1) said.push(`SLURM_ARRAY_TASK_STEP=${step}`);
    if (id < min) throw new UsageError(`--shard auto: SLURM_ARRAY_TASK_ID=${id} is below SLURM_ARRAY_TASK_MIN=${min}`);
    if ((id - min) % step !== 0) throw new UsageError(`--shard auto: SLURM_ARRAY_TASK_ID=${id} is not SLURM_ARRAY_TASK_MIN=${min} plus a multiple of SLURM_ARRAY_TASK_STEP=${step}`);
    index = (id - min) / step;
    const hasCount = (env.SLURM_ARRAY_TASK_COUNT ?? '') !== '';
    if (hasCount) {
      count = whole('SLURM_ARRAY_TASK_COUNT', 1);
      said.push(`SLURM_ARRAY_TASK_COUNT=${count}`);
      if (shards !== undefined && shards !== count) throw new UsageError(`--shard auto: --shards ${shards} disagrees with SLURM_ARRAY_TASK_COUNT=${count}; leave --shards out under Slurm`);
    } else if (shards !== undefined) {
      count = shards;
      said.push(`--shards ${shards}`);
    } else {
      throw new UsageError('--shard auto: SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not; give --shards N');
    }
    if (index >= count) {
      throw new UsageError(
        `--shard auto: shard ${index} from ${said.join(', ')} is not below the ${count} shards; the array's indices must run contiguously from its first (e.g. --array=0-${count - 1})`,
      );
    }
  } else if (kube) {
    index = whole(KUBERNETES_SHARD_VAR, 0);
    said.push(`${KUBERNETES_SHARD_VAR}=${index}`);
    if (shards === undefined) throw new UsageError(`--shard auto: ${KUBERNETES_SHARD_VAR} is set (a Kubernetes Indexed Job), which does not tell the number of shards; give --shards N (the Job's completions)`);
    count = shards;
    said.push(`--shards ${shards}`);
    if (index >= count) throw new UsageError(`--shard auto: ${KUBERNETES_SHARD_VAR}=${index} is not below --shards ${count}; --shards must be the Job's completions`);
  } else {
    throw new UsageError(
      `--shard auto: neither a Slurm array job (SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT) nor a Kubernetes Indexed Job (${KUBERNETES_SHARD_VAR}, with --shards N) is running this process; give --shard I/N`,
    );
  }
  return { shard: { index, count }, source: said.join(', ') };
}

/** `--indices 0,3,7-9`: task indices, each once, in the order given. */
export function parseIndices(text: string): number[] {
  const out: number[] = [];
  for (const part of text.split(',')) {
    const item = part.trim();
    const range = /^(\d+)-(\d+)$/.exec(item);
    if (range) {
      const [from, to] = [Number(range[1]), Number(range[2])];
      if (from > to) throw new UsageError(`--indices: range "${item}" runs backwards`);
      for (let i = from; i <= to; i++) out.push(i);
    } else if (/^\d+$/.test(item)) out.push(Number(item));
    else throw new UsageError(`--indices expects task indices such as 0,3,7-9, got "${item || text}"`);
  }
  const seen = new Set<number>();
  for (const i of out) {
    if (seen.has(i)) throw new UsageError(`--indices names task ${i} twice`);
    seen.add(i);
  }
  return out;
}

/**
 * The tasks of a split the sweep plays: the listed ones, else the first `limit`, else all; checked
 * against the split's size.
 */
export function chooseIndices(size: number, choice: { indices?: readonly number[]; limit?: number }, split: string): number[] {
  if (choice.indices) {
    const outside = choice.indices.find((i) => i >= size);
    if (outside !== undefined) throw new UsageError(`--indices: task ${outside} is out of range: split ${split} has tasks 0 to ${size - 1}`);
    return [...choice.indices];
  }
  const n = choice.limit === undefined ? size : Math.min(choice.limit, size);
  return Array.from({ length: n }, (_, i) => i);
}

/** The shard's tasks: every N-th of the list from position I, as the harness's shard scripts split them. */
export function shardIndices(indices: readonly number[], shard: Shard | undefined): number[] {
  return shard ? indices.filter((_, position) => position % shard.count === shard.index) : [...indices];
}

/**
 * Every episode of the sweep for each arm, pass by pass (sample 0 of every task, then sample 1, ...),
 * so an interrupted sweep leaves whole passes rather than all passes of a few tasks.
 */
export function planWork(input: { arms: readonly { model: string; promptVersion: string }[]; split: string; indices: readonly number[]; passes: number }): WorkItem[] {
  const items: WorkItem[] = [];
  for (const arm of input.arms) {
    for (let sample = 0; sample < input.passes; sample++) {
      for (const index of input.indices) items.push({ model: arm.model, promptVersion: arm.promptVersion, split: input.split, index, sample });
    }
  }
  return items;
}

export function episodeKey(item: WorkItem): string {
  return JSON.stringify([item.model, item.promptVersion, item.split, item.index, item.sample]);
}

/** The key of a recorded episode, as the harness reads it (a record without a task index has none). */
export function recordKey(record: unknown): string | null {
  const r = record as { model_name?: unknown; config?: { prompt_version?: unknown }; task?: { split?: unknown; index?: unknown; sample?: unknown } } | null;
  const index = r?.task?.index;
  if (typeof index !== 'number') return null;
  const sample = typeof r?.task?.sample === 'number' ? r.task.sample : 0;
  return JSON.stringify([String(r?.model_name), String(r?.config?.prompt_version), String(r?.task?.split), index, sample]);
}

/** The work not yet recorded. */
export function remainingWork(items: readonly WorkItem[], done: ReadonlySet<string>): WorkItem[] {
  return items.filter((item) => !done.has(episodeKey(item)));
}

/** Failures that say nothing of the model or the task (the user stopped it, a service was gone): a re-run plays them again. */
const RETRIED_FAILURES: ReadonlySet<unknown> = new Set(['aborted', 'unreachable']);

/**
 * Whether a recorded episode counts as done for resuming: a completed one, or a failure of the
 * episode itself. The harness's own failed records carry no `failure` and count as done, as the
 * harness counts them.
 */
export function isSettled(record: unknown): boolean {
  const r = record as { outcome?: unknown; failure?: unknown } | null;
  if (r?.outcome !== undefined && r.outcome !== null) return true;
  return !RETRIED_FAILURES.has(r?.failure);
}
