/**
 * The published CLI runs geolab's patched Ink and axios (patches/) without an install step: the build
 * bundles them as patched (scripts/build.mjs), so `npm install -g geolab`, whose install scripts npm
 * may skip, still gets them. Read from dist/bundle/, which the test run's global setup builds.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../src/paths.js';

const BUNDLE = join(PACKAGE_ROOT, 'dist', 'bundle');
const chunks = () => readdirSync(BUNDLE).filter((f) => f.endsWith('.js')).map((f) => readFileSync(join(BUNDLE, f), 'utf8'));
/** The bare packages a chunk imports at run time. */
const runtimeImports = (code: string) => [...code.matchAll(/^import\s[^'"]*from\s*["']([^./"'][^"']*)["']/gm)].map((m) => m[1]!);

describe('the bundle', () => {
  it("holds Ink's output with geolab's shared line caches, and imports no Ink at run time", () => {
    const code = chunks();
    expect(code.some((c) => c.includes('MAX_CACHED_LINES') && c.includes('sharedCaches'))).toBe(true);
    expect(code.flatMap(runtimeImports).filter((name) => name === 'ink' || name.startsWith('ink/'))).toEqual([]);
  });

  it("holds axios without the FormData read at load, and imports no axios at run time", () => {
    const code = chunks();
    const axios = code.filter((c) => c.includes('isAxiosError'));
    expect(axios.length).toBeGreaterThan(0);
    for (const c of axios) expect(c).not.toContain('FormDataCtor');
    expect(code.flatMap(runtimeImports).filter((name) => name === 'axios' || name.startsWith('axios/'))).toEqual([]);
  });

  it('imports React from node_modules, one instance for Ink and the TUI', () => {
    expect(chunks().flatMap(runtimeImports)).toContain('react');
  });
});
