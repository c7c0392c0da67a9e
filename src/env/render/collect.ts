/**
 * A full garbage collection on demand, on the calling thread (main or worker).
 *
 * Decoded panoramas are large buffers outside the JavaScript heap, while the heap itself stays
 * small: V8 then sees no reason to collect, and a dropped panorama's memory stays allocated. A
 * SharedArrayBuffer is worse: its memory is freed only once every thread that received it has
 * collected its handle, and a view worker allocates almost nothing, so it would keep every
 * panorama it was ever sent. The renderer therefore collects itself, on each thread, once enough
 * panorama bytes have left its cache (see PanoramaRenderer).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let gc: (() => void) | undefined;

export function collectGarbage(): void {
  gc ??= exposedGc();
  gc();
}

function exposedGc(): () => void {
  const global = (globalThis as { gc?: () => void }).gc;
  if (typeof global === 'function') return global;
  // The flag is read when a context is created: a fresh one gets `gc`, which collects the whole
  // isolate. Contexts made later also get it; nothing here relies on its absence.
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}
