/**
 * `geolab panos fetch TASKS`: fills a panorama cache from Mapillary for every frame of a task file
 * or workspace task set. Resumes (a present file that verifies is skipped), shows progress (count,
 * rate, ETA: one updating line on a terminal, plain lines otherwise), and lists what failed (exit 1).
 */
import { existsSync, readFileSync } from 'node:fs';
import { UsageError, EXIT } from '../../core/errors.js';
import type { Task } from '../../core/tasks.js';
import { checkedPanosDir } from '../../files.js';
import { expectedSha256, panoramaFile, sha256Hex } from '../../tasks/panoramas.js';
import type { GlobalOptions } from '../options.js';
import { printJson, printLine, warn } from '../output.js';

interface Wanted {
  imageId: string;
  taskId: string;
  sha256?: string;
}

export async function fetchCommand(source: string, opts: GlobalOptions & { panos?: string; concurrency?: number }): Promise<void> {
  const concurrency = opts.concurrency ?? 8;
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64) throw new UsageError(`--concurrency must be an integer from 1 to 64, got ${concurrency}`);
  const { mapillaryFromEnv } = await import('../../tasks/mapillary.js');
  const fetcher = mapillaryFromEnv('`geolab panos fetch`');
  const { tasks, dir } = await tasksAndCache(source, opts);

  const wanted = new Map<string, Wanted>();
  for (const task of tasks) {
    const sums = expectedSha256(task);
    for (const frame of task.frames) wanted.set(frame.image_id, { imageId: frame.image_id, taskId: task.task_id, sha256: sums.get(frame.image_id) });
  }
  const todo = [...wanted.values()].filter((w) => !verifiedCopy(dir, w));
  const present = wanted.size - todo.length;
  const progress = new Progress(todo.length, opts.json ? () => {} : warn);
  if (!opts.json) warn(`${wanted.size} panoramas: ${present} already in ${dir}, ${todo.length} to fetch`);
  const failed: { image_id: string; task_id: string; error: string }[] = [];
  let next = 0;
  const worker = async () => {
    while (next < todo.length) {
      const item = todo[next++]!;
      try {
        await fetcher.fetch({ imageId: item.imageId, cacheDir: dir, orig: false, sha256: item.sha256 });
      } catch (err) {
        failed.push({ image_id: item.imageId, task_id: item.taskId, error: (err as Error).message });
      }
      progress.tick();
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, todo.length) }, worker));
  progress.done();
  const fetched = todo.length - failed.length;
  if (opts.json) printJson({ panos: dir, panoramas: wanted.size, present, fetched, failed });
  else {
    for (const f of failed) printLine(`failed: ${f.task_id}: ${f.error}`);
    printLine(`${dir}: ${fetched} fetched, ${present} already present, ${failed.length} failed`);
  }
  if (failed.length > 0) process.exitCode = EXIT.problemFound;
}

/** A file present in the cache whose bytes match the task's sha256 (when it has one). */
function verifiedCopy(dir: string, wanted: Wanted): boolean {
  const file = panoramaFile(dir, wanted.imageId);
  if (!existsSync(file)) return false;
  return wanted.sha256 === undefined || sha256Hex(readFileSync(file)) === wanted.sha256;
}

/** TASKS is a task file, else a workspace task set, and the cache its panoramas go to (settings.panoramaCache). */
async function tasksAndCache(source: string, opts: GlobalOptions & { panos?: string }): Promise<{ tasks: readonly Task[]; dir: string }> {
  const [{ openWorkspace }, { getTaskSet, readTasks }, { panoramaCache }] = await Promise.all([
    import('../../store/index.js'),
    import('../../store/task-sets.js'),
    import('../../store/settings.js'),
  ]);
  const ws = await openWorkspace(opts.workspace);
  try {
    const flag = opts.panos === undefined ? undefined : checkedPanosDir(opts.panos, '--panos');
    if (existsSync(source)) {
      const { loadTasksStrict } = await import('../../tasks/load.js');
      return { tasks: (await loadTasksStrict(source)).tasks, dir: panoramaCache(ws.db, ws.paths.panoramas, flag) };
    }
    const set = getTaskSet(ws.db, source);
    if (!set) throw new UsageError(`${source} is neither a task file nor a task set of ${ws.dir}`);
    return { tasks: readTasks(ws.db, source), dir: panoramaCache(ws.db, ws.paths.panoramas, flag, set.panos_dir) };
  } finally {
    ws.close();
  }
}

/** Count, rate and ETA: one line redrawn on a terminal, a plain line every twentieth otherwise. */
class Progress {
  private count = 0;
  private readonly started = Date.now();
  private readonly tty = process.stderr.isTTY === true;
  private readonly every: number;

  constructor(
    private readonly total: number,
    private readonly write: (line: string) => void,
  ) {
    this.every = Math.max(1, Math.floor(total / 20));
  }

  tick(): void {
    this.count++;
    if (this.tty) process.stderr.write(`\r${this.line()}`);
    else if (this.count % this.every === 0 || this.count === this.total) this.write(this.line());
  }

  done(): void {
    if (this.tty && this.count > 0) process.stderr.write('\n');
  }

  private line(): string {
    const seconds = (Date.now() - this.started) / 1000;
    const rate = seconds > 0 ? this.count / seconds : 0;
    const eta = rate > 0 ? Math.round((this.total - this.count) / rate) : 0;
    return `fetched ${this.count}/${this.total} (${rate.toFixed(1)}/s, ETA ${eta} s)`;
  }
}
