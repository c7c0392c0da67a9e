/**
 * Starting a worker thread on one of geolab's own modules, from the bundle or from the sources. The
 * build makes each worker module an entry of dist/bundle/ (scripts/build.mjs), beside the chunk
 * that starts it, so the bundled worker is `./<name>.js` next to the caller's chunk. From the
 * TypeScript sources (vitest, tsx) the `.ts` module runs through tsx's loader, which a worker has to
 * register itself: Node 20 does not apply an `--import` hook in execArgv to a worker's entry module.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/** `name`: the worker module's file name without extension, in the same folder as `callerUrl` (the caller's import.meta.url). */
export function startModuleWorker(callerUrl: string, name: string, options: Pick<WorkerOptions, 'workerData' | 'resourceLimits'> = {}): Worker {
  const compiled = new URL(`./${name}.js`, callerUrl);
  if (existsSync(fileURLToPath(compiled))) return new Worker(compiled, options);
  const tsx = import.meta.resolve('tsx/esm/api');
  const source = new URL(`./${name}.ts`, callerUrl).href;
  return new Worker(`import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(source)}); });`, {
    ...options,
    eval: true,
  });
}
