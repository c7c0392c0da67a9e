import { describe, expect, it } from 'vitest';
import type { Key } from 'ink';
import { pressOf } from '../../src/tui/hooks/useKeys.js';
import { helpEntries, KEYMAP, keyHint, matches, type Command } from '../../src/tui/keys.js';

const NO_KEY: Key = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageDown: false,
  pageUp: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
  backspace: false,
  delete: false,
  meta: false,
  super: false,
  hyper: false,
  capsLock: false,
  numLock: false,
};
const key = (over: Partial<Key>): Key => ({ ...NO_KEY, ...over });

describe('the key table', () => {
  it('binds the keys docs/tui.md names', () => {
    expect(matches('player.next', '', key({ rightArrow: true }))).toBe(true);
    expect(matches('player.next', 'l', NO_KEY)).toBe(true);
    expect(matches('player.prev', 'h', NO_KEY)).toBe(true);
    expect(matches('player.first', 'g', NO_KEY)).toBe(true);
    expect(matches('player.last', 'G', key({ shift: true }))).toBe(true);
    expect(matches('player.autoplay', ' ', NO_KEY)).toBe(true);
    expect(matches('person.forward', '', key({ upArrow: true }))).toBe(true);
    expect(matches('person.zoom', 'z', NO_KEY)).toBe(true);
    expect(matches('model.step', 'n', NO_KEY)).toBe(true);
    expect(matches('prompt.erase', '', key({ delete: true }))).toBe(true);
  });

  it('tells tab from shift+tab', () => {
    expect(matches('watch.next', '', key({ tab: true }))).toBe(true);
    expect(matches('watch.next', '', key({ tab: true, shift: true }))).toBe(false);
    expect(matches('watch.prev', '', key({ tab: true, shift: true }))).toBe(true);
  });

  it('binds no letter in the Watch form or the new-sweep form, where letters are typed into the fields', () => {
    const typed = (Object.keys(KEYMAP) as Command[]).filter((c) => c.startsWith('watch.') || c.startsWith('sweep.')).flatMap((c) => KEYMAP[c].keys).filter((k) => /^[A-Za-z0-9]$/.test(k));
    expect(typed).toEqual([]);
  });

  it('does not take a ctrl or meta chord for the plain letter', () => {
    expect(matches('player.back', 'q', key({ ctrl: true }))).toBe(false);
    expect(matches('player.back', 'q', key({ meta: true }))).toBe(false);
  });

  it('gives no two commands of one screen the same key', () => {
    const screens: string[][] = [['home'], ['episodes'], ['player'], ['live', 'person'], ['live', 'model'], ['live', 'reveal'], ['prompt'], ['confirm'], ['watch'], ['eval'], ['sweep']];
    for (const groups of screens) {
      const keys = (Object.keys(KEYMAP) as Command[])
        .filter((c) => groups.includes(c.split('.')[0]!))
        .flatMap((c) => KEYMAP[c].keys);
      expect(new Set(keys).size, groups.join('+')).toBe(keys.length);
    }
  });

  it('writes the help from the table, every key of a command', () => {
    const entries = helpEntries(['player']);
    expect(entries.map((e) => e.command)).toEqual((Object.keys(KEYMAP) as Command[]).filter((c) => c.startsWith('player.')));
    expect(entries.find((e) => e.command === 'player.prev')).toEqual({ command: 'player.prev', keys: '←/h', description: 'previous turn' });
  });

  it('footers keep the last items (help, quit) when the terminal is narrow', () => {
    const items = ['player.next', 'player.prev', 'player.map', 'player.help', 'player.back'] as const;
    expect(keyHint(items)).toBe('→ next turn · ← previous turn · m world map on/off · ? help · q back');
    expect(keyHint(items, 47)).toBe('→ next turn · ← previous turn · ? help · q back');
    expect(keyHint(items, 46)).toBe('→ next turn · ? help · q back');
    expect(keyHint(items, 10)).toBe('? help · q back');
    expect(keyHint([{ commands: ['person.panLeft', 'person.panRight'], label: 'pan 45°' }])).toBe('←/→ pan 45°');
  });
});

describe('pressOf: one character of a run Ink reported as text', () => {
  const base = NO_KEY;
  it('makes enter, tab, backspace and ctrl+letter keys again, and leaves text as text', () => {
    expect(pressOf('\r', base)).toMatchObject({ input: '', key: { return: true } });
    expect(pressOf('\t', base)).toMatchObject({ input: '', key: { tab: true, return: false } });
    expect(pressOf('\x7f', base)).toMatchObject({ input: '', key: { delete: true } });
    expect(pressOf('\x03', base)).toMatchObject({ input: 'c', key: { ctrl: true } });
    expect(pressOf('7', base)).toMatchObject({ input: '7', key: { return: false, ctrl: false } });
  });
});
