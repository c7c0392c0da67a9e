import { describe, expect, it } from 'vitest';
import { episodeListReducer, INITIAL_LIST, type EpisodeListAction, type EpisodeListView } from '../../src/tui/state/episode-list.js';

const run = (...actions: EpisodeListAction[]): EpisodeListView => actions.reduce(episodeListReducer, INITIAL_LIST);
const type = (text: string): EpisodeListAction => ({ type: 'typeFilter', text });
const down = (delta: number): EpisodeListAction => ({ type: 'move', delta, total: 100, visible: 10 });

describe('episodeListReducer', () => {
  it('starts newest first, unfiltered, at the top', () => {
    expect(INITIAL_LIST).toEqual({ query: { filter: {}, sort: 'recent', descending: true }, cursor: { selected: 0, top: 0 }, prompt: null });
  });

  it('applies a typed filter and goes back to the top', () => {
    const state = run(down(15), { type: 'openFilter' }, type('model:base'), type(' x'), { type: 'eraseFilter' }, { type: 'eraseFilter' }, {
      type: 'applyFilter',
    });
    expect(state.query.filter).toEqual({ model: 'base' });
    expect(state.cursor).toEqual({ selected: 0, top: 0 });
    expect(state.prompt).toBeNull();
  });

  it('keeps the filter in force and the text to correct when a term does not parse', () => {
    const filtered = run({ type: 'openFilter' }, type('verdict:close'), { type: 'applyFilter' }, down(3));
    const actions: EpisodeListAction[] = [{ type: 'openFilter' }, type('reward:abc'), { type: 'applyFilter' }];
    const state = actions.reduce(episodeListReducer, filtered);
    expect(state.query).toBe(filtered.query);
    expect(state.cursor).toEqual({ selected: 3, top: 0 });
    expect(state.prompt).toEqual({ text: 'verdict:close reward:abc', error: expect.stringContaining('"reward:abc"') });
    // Typing again clears the complaint; esc leaves the filter as it was.
    expect(episodeListReducer(state, { type: 'eraseFilter' }).prompt?.error).toBeNull();
    expect(episodeListReducer(state, { type: 'cancelFilter' })).toEqual({ ...filtered, prompt: null });
  });

  it('opens the prompt on the filter in force, to refine it', () => {
    const state = run({ type: 'openFilter' }, type('country:"New Zealand"'), { type: 'applyFilter' }, { type: 'openFilter' });
    expect(state.prompt).toEqual({ text: 'country:"New Zealand" ', error: null });
  });

  it('clears the filter, and does nothing when there is none', () => {
    const filtered = run({ type: 'openFilter' }, type('japan'), { type: 'applyFilter' }, down(4));
    expect(episodeListReducer(filtered, { type: 'clearFilter' })).toMatchObject({ query: { filter: {} }, cursor: { selected: 0, top: 0 } });
    const plain = run(down(4));
    expect(episodeListReducer(plain, { type: 'clearFilter' })).toBe(plain);
  });

  it('cycles recent → reward → distance → turns, each with its own default direction', () => {
    const orders: [string, boolean][] = [];
    let state = run(down(20));
    for (let i = 0; i < 4; i++) {
      state = episodeListReducer(state, { type: 'cycleSort' });
      orders.push([state.query.sort, state.query.descending]);
      expect(state.cursor).toEqual({ selected: 0, top: 0 });
    }
    expect(orders).toEqual([
      ['reward', true],
      ['distance', false],
      ['turns', false],
      ['recent', true],
    ]);
  });

  it('reverses the order and goes back to the top; the next sort starts from its default again', () => {
    const reversed = run({ type: 'cycleSort' }, down(5), { type: 'reverseSort' });
    expect(reversed.query).toMatchObject({ sort: 'reward', descending: false });
    expect(reversed.cursor).toEqual({ selected: 0, top: 0 });
    expect(episodeListReducer(reversed, { type: 'cycleSort' }).query).toMatchObject({ sort: 'distance', descending: false });
  });

  it('ignores prompt keys when no prompt is open', () => {
    expect(run(type('x'), { type: 'eraseFilter' }, { type: 'applyFilter' })).toEqual(INITIAL_LIST);
  });
});
