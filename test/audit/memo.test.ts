import { describe, expect, it } from 'vitest';
import { Memo } from '../../src/audit/memo.js';

describe('Memo', () => {
  it('keeps up to max entries, then forgets them all for the next one', () => {
    const memo = new Memo<string, number>(3);
    for (const [k, v] of [['a', 1], ['b', 2], ['c', 3]] as const) memo.set(k, v);
    expect([memo.get('a'), memo.get('b'), memo.get('c')]).toEqual([1, 2, 3]);
    memo.set('b', 20);
    expect(memo.get('b')).toBe(20);
    memo.set('d', 4);
    expect([memo.get('a'), memo.get('b'), memo.get('c'), memo.get('d')]).toEqual([undefined, undefined, undefined, 4]);
  });

  it('forgets everything on clear', () => {
    const memo = new Memo<string, number>(10);
    memo.set('a', 1);
    memo.clear();
    expect(memo.get('a')).toBeUndefined();
  });
});
