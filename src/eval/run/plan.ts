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
