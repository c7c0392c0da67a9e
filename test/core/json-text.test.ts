import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonErrorOffset, lineAtOffset } from '../../src/core/json-text.js';

describe('jsonErrorOffset (docs/episodes.md: an edited request that does not parse is refused naming its line)', () => {
  it('points at the first character that cannot follow', () => {
    expect(jsonErrorOffset('{"a": 1,}')).toBe(8);
    expect(jsonErrorOffset('[1, 2 3]')).toBe(6);
    expect(jsonErrorOffset('{"a": tru}')).toBe(6);
    expect(jsonErrorOffset('{"a": "x\ny"}')).toBe(8);
    expect(jsonErrorOffset('{"a": 1} x')).toBe(9);
    expect(jsonErrorOffset("{'a': 1}")).toBe(1);
  });

  it('gives the end of a text that stops too soon', () => {
    expect(jsonErrorOffset('{"a": [1, 2')).toBe(11);
    expect(jsonErrorOffset('{"a": "open')).toBe(11);
    expect(jsonErrorOffset('')).toBe(0);
  });

  it('gives the length of any valid JSON, and never a place past the end of a cut one', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat(), fc.boolean(), (value, cut, indent) => {
        const text = JSON.stringify(value, null, indent ? 2 : undefined);
        expect(jsonErrorOffset(text)).toBe(text.length);
        // A cut text goes wrong at its end, or earlier only inside a word it cut (tru|e).
        const at = cut % text.length;
        expect(jsonErrorOffset(text.slice(0, at))).toBeLessThanOrEqual(at);
      }),
      { numRuns: 1000, seed: 11 },
    );
  });
});

describe('lineAtOffset', () => {
  it('counts the newlines before the offset', () => {
    expect(lineAtOffset('a\nb\nc', 0)).toBe(1);
    expect(lineAtOffset('a\nb\nc', 2)).toBe(2);
    expect(lineAtOffset('a\nb\nc', 99)).toBe(3);
  });
});
