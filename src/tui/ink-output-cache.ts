/**
 * Ink keeps the frame's parsed lines across one render only. Every render builds a fresh `Output`
 * whose caches start empty, so each redraw tokenizes every escape and character of every line
 * again, the inline image's included (about 25 kB of escapes for a 58x29-cell view): two thirds of
 * a Player step's time, and most of its garbage. Lines repeat from frame to frame (the image does
 * not change when the turn list moves), so here the first Output's caches are lent to every later
 * one, and emptied once they hold too many lines.
 *
 * The cached values are only read by Output.get (it copies references into its grid and never
 * mutates them), so sharing them changes no output: test/tui/ink-output-cache.test.ts checks both
 * that the shim still applies to the installed Ink and that frames are the same with it.
 *
 * Output is not exported by Ink's package.json, so its module is loaded from the file next to
 * Ink's entry point: the very module instance Ink's renderer uses.
 */

/** What Ink 6's OutputCaches holds: line -> parsed characters, text -> width, block -> widest line. */
interface OutputCaches {
  styledChars: Map<string, unknown>;
  widths: Map<string, number>;
  blockWidths: Map<string, number>;
}

interface OutputPrototype {
  get(this: { caches: OutputCaches }): unknown;
}

/** Lines kept before the caches are emptied: a few dozen frames of a 120x40 screen. */
const MAX_CACHED_LINES = 4000;

let installed: Promise<boolean> | undefined;

/** Applies the shim once; resolves false (and changes nothing) on an Ink whose Output looks different. */
export function shareInkOutputCaches(): Promise<boolean> {
  installed ??= install();
  return installed;
}

async function install(): Promise<boolean> {
  let Output: (new (options: { width: number; height: number }) => { caches?: unknown }) & { prototype: OutputPrototype };
  try {
    ({ default: Output } = (await import(new URL('./output.js', import.meta.resolve('ink')).href)) as { default: typeof Output });
  } catch {
    return false;
  }
  if (typeof Output?.prototype?.get !== 'function' || !isOutputCaches(new Output({ width: 1, height: 1 }).caches)) return false;

  const get = Output.prototype.get;
  let shared: OutputCaches | undefined;
  Output.prototype.get = function (this: { caches: OutputCaches }) {
    shared ??= this.caches;
    if (shared.styledChars.size > MAX_CACHED_LINES || shared.widths.size > MAX_CACHED_LINES) {
      shared.styledChars.clear();
      shared.widths.clear();
      shared.blockWidths.clear();
    }
    this.caches = shared;
    return get.call(this);
  };
  return true;
}

function isOutputCaches(value: unknown): value is OutputCaches {
  const caches = value as Partial<OutputCaches> | undefined;
  return caches?.styledChars instanceof Map && caches.widths instanceof Map && caches.blockWidths instanceof Map;
}
