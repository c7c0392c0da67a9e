/**
 * The repository is self-contained (DESIGN §12): no source or test file reaches the `shared` folder
 * kept beside the checkout while developing. `.ci/run` runs the suite from a copy of the checkout
 * with nothing beside it, which proves it; this test names the offending line at once.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const THIS_FILE = relative(ROOT, import.meta.filename);

/** A path one or more levels up, then `shared`: "../shared", "..\\shared", or join("..", "shared"). */
const REACHES_SHARED = [/\.\.[/\\]shared\b/, /(['"`])\.\.\1\s*,\s*(['"`])shared\2/, /\/work\/shared\b/];

function files(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? files(path) : /\.(ts|tsx|js|mjs|cjs|json|jsonl|py|sh)$/.test(entry.name) ? [path] : [];
  });
}

describe('the repository alone', () => {
  it('has no source or test file that reads ../shared', () => {
    const offending = [...files('src'), ...files('test')]
      .filter((file) => file !== THIS_FILE)
      .flatMap((file) =>
        readFileSync(join(ROOT, file), 'utf8')
          .split('\n')
          .flatMap((line, i) => (REACHES_SHARED.some((re) => re.test(line)) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
      );
    expect(offending).toEqual([]);
  });

  it('the check itself catches each way of writing such a path', () => {
    const samples = ["join(dir, '..', '..', 'shared', 'samples')", "new URL('../../../shared/geo/x.tsv', import.meta.url)", '"/work/shared/bench"'];
    expect(samples.filter((line) => REACHES_SHARED.some((re) => re.test(line)))).toEqual(samples);
    expect(REACHES_SHARED.some((re) => re.test('toShared(pano); // rows shared by the workers'))).toBe(false);
  });
});
