/**
 * Files shipped with the package, found the same way from src/ (tsx, vitest) and from the bundle in
 * dist/bundle/ (built): the package root is the nearest folder above this code holding package.json,
 * wherever the build puts the code.
 */
import { existsSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

function packageRoot(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  for (let dir = here; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir.endsWith(sep) ? dir : dir + sep;
    if (dirname(dir) === dir) throw new Error(`geolab: no package.json above ${here}`);
  }
}

/** The package's folder, with a trailing separator. */
export const PACKAGE_ROOT = packageRoot();
export const DEMO_TASKS_FILE = join(PACKAGE_ROOT, 'datasets', 'demo', 'tasks.jsonl');
export const DEMO_EPISODES_FILE = join(PACKAGE_ROOT, 'datasets', 'demo', 'episodes', 'episodes.jsonl');
