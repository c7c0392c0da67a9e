// Loaded with `node --import`: writes every file module the process resolves to $GEOLAB_MODULE_LOG,
// one URL a line, so a test can tell what a command imported by the time it drew something.
import { appendFileSync } from 'node:fs';
import { register } from 'node:module';
import { isMainThread } from 'node:worker_threads';

// The hooks run on Node's loader thread: this same file, registered from the main one.
if (isMainThread) register(import.meta.url);

export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  const log = process.env.GEOLAB_MODULE_LOG;
  if (log && resolved.url.startsWith('file:')) appendFileSync(log, `${resolved.url}\n`);
  return resolved;
}
