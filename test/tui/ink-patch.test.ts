/**
 * Ink's patch (patches/ink+6.8.0.patch, applied at install by patch-package, which fails the install
 * when it no longer applies): every render's Output parses lines into one set of caches, so a line
 * drawn in an earlier frame (the inline image's escapes) is not tokenized again.
 */
import { describe, expect, it } from 'vitest';

interface InkOutput {
  caches: { getStyledChars(line: string): unknown };
}

// Output is not among Ink's exports: its module is the file next to Ink's entry point.
const { default: Output } = (await import(new URL('./output.js', import.meta.resolve('ink')).href)) as {
  default: new (options: { width: number; height: number }) => InkOutput;
};

describe("Ink's Output, as patched", () => {
  it('shares its parsed lines between renders', () => {
    const line = '\x1b[38;2;200;40;40m▄\x1b[39m';
    const first = new Output({ width: 4, height: 1 }).caches.getStyledChars(line);
    expect(new Output({ width: 4, height: 1 }).caches.getStyledChars(line)).toBe(first);
  });
});
