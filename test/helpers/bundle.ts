/**
 * The built CLI is a bundle (dist/bundle/, scripts/build.mjs): a module URL a run loaded may be a
 * chunk holding many source modules. `loadedSources` turns the URLs into what was loaded: the
 * sources of each chunk, read from the source map beside it (`src/cli/main.ts`,
 * `node_modules/commander/index.js`), and every other file as its own path.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const BUNDLE_DIR = fileURLToPath(new URL('../../dist/bundle/', import.meta.url));

export function loadedSources(urls: readonly string[]): string[] {
  const sources = new Set<string>();
  for (const url of urls) {
    if (!url.startsWith('file:')) continue;
    const file = fileURLToPath(url);
    if (!file.startsWith(BUNDLE_DIR) || !existsSync(`${file}.map`)) {
      sources.add(file);
      continue;
    }
    const map = JSON.parse(readFileSync(`${file}.map`, 'utf8')) as { sources: string[]; sourceRoot?: string };
    for (const source of map.sources) sources.add(resolve(dirname(file), map.sourceRoot ?? '', source));
  }
  return [...sources];
}
