/**
 * Where a sweep's episodes are played: one embedded environment shared by every episode (the
 * workspace's splits, loaded and rendered once), or remote environment servers, one session per
 * episode on the replica the pool hands out.
 */
import { knowledgeFromSpec, knowledgeFromTask } from '../../agent/leak-guard.js';
import { recordedTask } from '../../agent/agent-run.js';
import { ServiceError, UsageError } from '../../core/errors.js';
import { EnvError } from '../../env/types.js';
import type { Workspace } from '../../store/index.js';
import { sharpModule } from '../../vendor/commonjs.js';
import { EndpointPool } from './endpoints.js';
import type { OpenedTask, SweepEnvironment } from './sweep.js';

export interface PreparedEnvironment extends SweepEnvironment {
  /** The split's number of tasks. */
  size: number;
  /** Servers that did not answer at the start (out of the pool for now), with why. */
  unreachable: string[];
  close(): Promise<void>;
}

/**
 * The embedded environment over the workspace's splits; a split it does not serve is a UsageError.
 * It draws views and maps at `viewSizePx`, the size the model gets, rather than drawing larger
 * and shrinking them again (docs/sweeps.md).
 */
export async function embeddedEnvironment(ws: Workspace, split: string, panos: string | undefined, viewSizePx: number): Promise<PreparedEnvironment> {
  const [{ workspaceSplits, taskProblem, EMBEDDED }, { createEnvironment }, { EmbeddedEnvClient }] = await Promise.all([
    import('../../env/task-splits.js'),
    import('../../env/environment.js'),
    import('../../env/client/embedded.js'),
  ]);
  const served = await workspaceSplits(ws, panos);
  const problem = taskProblem(served.sizes, EMBEDDED, split, null);
  if (problem) throw new UsageError(problem.message);
  const { splits, panoramas, demo } = served.load([split]);
  const tasks = splits.get(split)!;
  // Views are drawn on this thread, as `geolab agent run` draws them: a view at the model's size
  // takes a few milliseconds, less than what render workers cost a sweep (starting them, copying
  // each panorama into shared memory, their collections), docs/budgets.md "CPU per eval episode".
  // Maps too come at the model's size, as the JPEG the agent would make of a full-size PNG.
  const env = createEnvironment({ splits, panoramasDir: ws.paths.panoramas, splitPanoramas: panoramas, demo, workers: 0, config: { viewSizePx }, modelImagePx: viewSizePx });
  const restoreVips = oneVipsThreadPerImage();
  return {
    pool: null,
    viewSizePx,
    mapSizePx: viewSizePx,
    size: tasks.length,
    unreachable: [],
    async open(_url, _split, index): Promise<OpenedTask> {
      const task = tasks[index]!;
      return { client: new EmbeddedEnvClient(env), guard: knowledgeFromTask(task), task: recordedTask(task), close: async () => {} };
    },
    close: async () => {
      restoreVips();
      await env.close();
    },
  };
}

let embeddedOpen = 0;
let vipsThreadsBefore = 0;

/**
 * libvips works on one image with a thread per core by default. A sweep has several episodes in
 * flight, each image (a panorama decode, a view's JPEG, a map's PNG) a small job of its own on
 * libuv's pool: more threads per image only add hand-offs between them. One thread each gives the
 * same bytes for about 4% less CPU a sweep (docs/budgets.md, "CPU per eval episode"). Set while any
 * embedded sweep environment is open; the returned function undoes it once the last one closes, so
 * the terminal app's own images are drawn as before.
 */
function oneVipsThreadPerImage(): () => void {
  const sharp = sharpModule();
  if (embeddedOpen++ === 0) {
    vipsThreadsBefore = sharp.concurrency();
    sharp.concurrency(1);
  }
  let restored = false;
  return () => {
    if (restored) return;
    restored = true;
    if (--embeddedOpen === 0) sharp.concurrency(vipsThreadsBefore);
  };
}

/**
 * Remote environment servers serving the same tasks: the split's size is asked of the first that
 * answers (a server that does not serve the split is a UsageError); those that do not answer start out.
 */
export async function remoteEnvironment(urls: readonly string[], split: string, backoffMs?: number): Promise<PreparedEnvironment> {
  const { RemoteEnvClient } = await import('../../env/client/remote.js');
  const { taskProblem } = await import('../../env/task-splits.js');
  const pool = new EndpointPool(urls, { capacity: Infinity, backoffMs });
  const unreachable: string[] = [];
  let size: number | null = null;
  for (const url of urls) {
    const client = new RemoteEnvClient(url);
    try {
      const infos = await client.splits();
      const sizes = new Map(infos.map((s) => [s.name, s.num_tasks]));
      const problem = taskProblem(sizes, client.location, split, null);
      if (problem) throw new UsageError(problem.message);
      size ??= sizes.get(split)!;
    } catch (err) {
      if (err instanceof UsageError) throw err;
      pool.failed(url, (err as Error).message);
      unreachable.push(`${url}: ${(err as Error).message}`);
    } finally {
      await client.close();
    }
  }
  if (size === null) throw new ServiceError(`no environment server answered: ${unreachable.join('; ')}`);
  return {
    pool,
    size,
    unreachable,
    async open(url, taskSplit, index): Promise<OpenedTask> {
      const client = new RemoteEnvClient(url!);
      try {
        let spec: Record<string, unknown>;
        try {
          spec = await client.task(taskSplit, index);
        } catch (err) {
          if (err instanceof EnvError) throw new UsageError(`split ${taskSplit}, task ${index} at ${client.location}: ${err.message}`);
          throw err;
        }
        return { client, guard: knowledgeFromSpec(spec), task: { task_id: spec.task_id ?? null, sequence_id: spec.sequence_id ?? null }, close: () => client.close() };
      } catch (err) {
        await client.close();
        throw err;
      }
    },
    close: async () => {},
  };
}
