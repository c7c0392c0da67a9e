import { describe, expect, it } from 'vitest';
import type { RunnerEvent } from '../../src/agent/types.js';
import type { CompletedEpisode } from '../../src/core/episode.js';
import type { Observation } from '../../src/env/types.js';
import { moveCursor, START } from '../../src/tui/state/episode-list.js';
import { initialLiveState, isOver, liveReducer, type LiveAction, type LiveState } from '../../src/tui/state/live.js';
import { currentRoute, initialNavigation, navigationReducer } from '../../src/tui/state/navigation.js';
import { initialPlayerState, playerReducer, type PlayerAction, type PlayerState } from '../../src/tui/state/player.js';

const play = (state: PlayerState, ...actions: PlayerAction['type'][]) =>
  actions.reduce((s, type) => playerReducer(s, { type } as PlayerAction), state);

describe('playerReducer', () => {
  const start = initialPlayerState('ep', 4);

  it('steps within the turns', () => {
    expect(play(start, 'next', 'next').position).toBe(2);
    expect(play(start, 'prev').position).toBe(0);
    expect(play(start, 'last', 'next').position).toBe(3);
    expect(play(start, 'last', 'first').position).toBe(0);
  });

  it('opens the map on arriving at the last turn and closes it on leaving; m toggles it anywhere', () => {
    expect(start.map).toBe(false);
    expect(play(start, 'last').map).toBe(true);
    expect(play(start, 'last', 'prev').map).toBe(false);
    expect(play(start, 'toggleMap').map).toBe(true);
    expect(play(start, 'last', 'toggleMap').map).toBe(false);
  });

  it('autoplay advances on each tick and stops at the last turn', () => {
    let state = play(start, 'toggleAutoplay');
    expect(state.autoplay).toBe(true);
    state = play(state, 'tick', 'tick');
    expect(state).toMatchObject({ position: 2, autoplay: true });
    state = play(state, 'tick');
    expect(state).toMatchObject({ position: 3, autoplay: false });
    expect(play(state, 'tick').position).toBe(3);
  });

  it('autoplay started at the end replays from the start', () => {
    expect(play(start, 'last', 'toggleAutoplay')).toMatchObject({ position: 0, autoplay: true });
  });

  it('a one-turn episode has nothing to autoplay', () => {
    expect(play(initialPlayerState('ep', 1), 'toggleAutoplay').autoplay).toBe(false);
  });

  it('toggles reasoning and image size', () => {
    expect(play(start, 'toggleReasoning').reasoning).toBe(true);
    expect(play(start, 'toggleImageSize').imageSize).toBe('small');
    expect(play(start, 'toggleImageSize', 'toggleImageSize').imageSize).toBe('large');
  });

  it('the request view opens at its top, pauses autoplay, scrolls within its lines and closes', () => {
    const open = play(start, 'toggleAutoplay', 'toggleRequest');
    expect(open).toMatchObject({ request: 0, autoplay: false });
    const scroll = (state: PlayerState, by: number) => playerReducer(state, { type: 'scrollRequest', by, max: 5 });
    expect(scroll(open, -1).request).toBe(0);
    expect(scroll(scroll(open, 3), 3).request).toBe(5);
    expect(play(scroll(open, 3), 'toggleRequest').request).toBeNull();
    expect(scroll(start, 1)).toBe(start);
  });

  it('loading another episode starts it over', () => {
    const moved = play(start, 'next', 'toggleReasoning');
    expect(playerReducer(moved, { type: 'load', episodeId: 'other', turnCount: 6 })).toEqual(initialPlayerState('other', 6));
  });
});

const observation = (over: Partial<Observation> = {}): Observation => ({
  prompt: null,
  image_base64: Buffer.from('jpeg').toString('base64'),
  image_kind: 'view',
  heading_deg: 0,
  pitch_deg: 0,
  fov_deg: 90,
  moved_meters: 0,
  total_moved_meters: 0,
  can_move_forward: true,
  can_move_backward: false,
  available_tools: [],
  steps_remaining: 24,
  pins: [],
  feedback: '',
  captured_at: '2024-05',
  distance_km: null,
  score: null,
  action_cost: 0,
  true_lat: null,
  true_lon: null,
  parsed_ok: null,
  metadata: {},
  ...over,
});

const runner = (event: RunnerEvent, at = 0): LiveAction => ({ type: 'runner', event, at });
const live = (state: LiveState, ...actions: LiveAction[]) => actions.reduce(liveReducer, state);

describe('liveReducer', () => {
  const started = live(
    initialLiveState('model'),
    runner({ type: 'started', episodeId: 'ep', split: 'eval', index: 2, observation: observation() }),
  );

  it('starts with the opening view', () => {
    expect(started).toMatchObject({ episodeId: 'ep', split: 'eval', index: 2, phase: { kind: 'starting' } });
    expect(started.view?.bytes.toString()).toBe('jpeg');
  });

  it('follows the runner: thinking, then a turn with its image', () => {
    const thinking = live(started, runner({ type: 'thinking', turn: 1 }, 500));
    expect(thinking.phase).toEqual({ kind: 'deciding', turn: 1, since: 500 });
    const turn = { turn: 1, action: { action: 'pan', delta_deg: 45 }, image_sha256: 'abc' };
    const after = live(thinking, runner({ type: 'turn', turn, image: Buffer.from('next'), observation: observation({ heading_deg: 45 }) }));
    expect(after.turns).toEqual([turn]);
    expect(after.view).toMatchObject({ key: 'abc' });
    expect(after.observation?.heading_deg).toBe(45);
  });

  it('keeps the last image when a turn brings none', () => {
    const after = live(started, runner({ type: 'turn', turn: { turn: 1 }, image: null, observation: observation({ image_base64: null }) }));
    expect(after.view).toBe(started.view);
  });

  it('tracks the gate: held, released (the thinking clock restarts), paused', () => {
    const thinking = live(started, runner({ type: 'thinking', turn: 3 }, 100), { type: 'setPaused', paused: true }, { type: 'held' });
    expect(thinking).toMatchObject({ held: true, paused: true });
    expect(live(thinking, { type: 'released', at: 900 })).toMatchObject({ held: false, phase: { kind: 'deciding', since: 900 } });
  });

  it('a person submitting moves the turn to the environment and closes the prompt', () => {
    const prompting = live(
      initialLiveState('person'),
      runner({ type: 'thinking', turn: 1 }),
      { type: 'promptOpen', purpose: 'pin' },
      { type: 'promptType', text: '47.1,' },
      { type: 'promptType', text: ' 10.29' },
      { type: 'promptErase' },
    );
    expect(prompting.prompt).toEqual({ purpose: 'pin', text: '47.1, 10.2', error: null });
    expect(live(prompting, { type: 'promptError', message: 'no' }).prompt?.error).toBe('no');
    expect(live(prompting, { type: 'submitted' })).toMatchObject({ prompt: null, phase: { kind: 'stepping', turn: 1 } });
  });

  it('a map no longer replaces the view: m switches between them, and with no map yet stays put', () => {
    expect(live(started, { type: 'switchPane' })).toMatchObject({ pane: 'view' });
    const pinned = live(started, runner({ type: 'turn', turn: { turn: 1 }, image: Buffer.from('png'), observation: observation({ image_kind: 'map' }) }));
    expect(pinned).toMatchObject({ pane: 'map', map: { kind: 'map' } });
    expect(pinned.view).toBe(started.view);
    const back = live(pinned, { type: 'switchPane' });
    expect(back.pane).toBe('view');
    expect(back.turns).toBe(pinned.turns);
    expect(live(back, { type: 'switchPane' }).pane).toBe('map');
    // A new view comes forward by itself; the map stays one key away.
    const looked = live(pinned, runner({ type: 'turn', turn: { turn: 2 }, image: Buffer.from('jpeg2'), observation: observation() }));
    expect(looked).toMatchObject({ pane: 'view', map: pinned.map });
  });

  it('after the guess the reveal comes first and the last view is one key away', () => {
    const outcome = { reward: 0.5, guess: [1, 2] as [number, number], truth: [1.1, 2] as [number, number] };
    const record: CompletedEpisode = { schema_version: 2, episode_id: 'ep', task: { split: 'eval', index: 2 }, turns: [], outcome };
    const finished = live(started, runner({ type: 'finished', record }));
    expect(finished.pane).toBe('map');
    expect(live(finished, { type: 'switchPane' }).pane).toBe('view');
    expect(live(finished, { type: 'switchPane' }, { type: 'switchPane' }).pane).toBe('map');
  });

  it('reads the turns again only once the episode is over, within the turns', () => {
    const turns = [1, 2, 3].map((turn) => runner({ type: 'turn', turn: { turn }, image: null, observation: observation({ image_base64: null }) }));
    const playing = live(started, ...turns);
    expect(live(playing, { type: 'review', delta: -1 }).reviewed).toBeNull();
    const record: CompletedEpisode = { schema_version: 2, episode_id: 'ep', task: { split: 'eval', index: 2 }, turns: [], outcome: { reward: 0 } };
    const over = live(playing, runner({ type: 'finished', record }));
    expect(live(over, { type: 'review', delta: -1 })).toMatchObject({ reviewed: 1, pane: 'view' });
    expect(live(over, { type: 'review', delta: -5 }).reviewed).toBe(0);
    expect(live(over, { type: 'review', delta: -1 }, { type: 'review', delta: 4 }).reviewed).toBe(2);
  });

  it('the end is final: an abort stays an abort, a finished episode takes no prompt', () => {
    const record = { schema_version: 2, episode_id: 'ep', task: { split: 'eval', index: 2 }, error: 'aborted' } as const;
    const aborted = live(started, { type: 'aborted' }, runner({ type: 'finished', record }));
    expect(aborted.phase).toEqual({ kind: 'aborted' });
    const finished = live(started, runner({ type: 'finished', record }), { type: 'promptOpen', purpose: 'guess' }, { type: 'aborted' });
    expect(finished.phase.kind).toBe('finished');
    expect(finished.prompt).toBeNull();
    expect(isOver(finished)).toBe(true);
  });

  it('asking to quit closes the prompt; cancelling keeps playing', () => {
    const asked = live(started, { type: 'promptOpen', purpose: 'guess' }, { type: 'askQuit' });
    expect(asked).toMatchObject({ confirmQuit: true, prompt: null });
    expect(live(asked, { type: 'cancelQuit' }).confirmQuit).toBe(false);
  });

  it('r shows the reasoning of the turn shown in place of the pane, once there is a turn; m brings a pane back', () => {
    expect(live(started, { type: 'toggleReasoning' }).reasoning).toBe(false);
    const turns = [1, 2].map((turn) => runner({ type: 'turn', turn: { turn }, image: null, observation: observation({ image_base64: null }) }));
    const playing = live(started, ...turns);
    const open = live(playing, { type: 'toggleReasoning' });
    expect(open).toMatchObject({ reasoning: true, pane: 'view' });
    expect(live(open, { type: 'toggleReasoning' }).reasoning).toBe(false);
    // With no map yet, m closes the reasoning on the view under it.
    expect(live(open, { type: 'switchPane' })).toMatchObject({ reasoning: false, pane: 'view' });
    // A turn arriving keeps it open: it follows the last turn.
    const third = live(open, runner({ type: 'turn', turn: { turn: 3 }, image: Buffer.from('png'), observation: observation({ image_kind: 'map' }) }));
    expect(third).toMatchObject({ reasoning: true, pane: 'map' });
    expect(live(third, { type: 'switchPane' })).toMatchObject({ reasoning: false, pane: 'view' });
    // After the end, reading the turns again keeps it open on the turn read.
    const record: CompletedEpisode = { schema_version: 2, episode_id: 'ep', task: { split: 'eval', index: 2 }, turns: [], outcome: { reward: 0 } };
    const over = live(third, runner({ type: 'finished', record }));
    expect(live(over, { type: 'review', delta: -1 })).toMatchObject({ reasoning: true, reviewed: 1 });
    expect(live(over, { type: 'reset', driver: 'model' }).reasoning).toBe(false);
  });

  it('reset starts over for another driver', () => {
    expect(live(started, { type: 'reset', driver: 'person' })).toEqual(initialLiveState('person'));
  });
});

describe('navigationReducer', () => {
  it('opens screens on a stack and goes back; leaving the last one empties it', () => {
    let state = initialNavigation({ screen: 'home' });
    state = navigationReducer(state, { type: 'open', route: { screen: 'episodes' } });
    state = navigationReducer(state, { type: 'open', route: { screen: 'player', episodeId: 'ep' } });
    expect(currentRoute(state)).toEqual({ screen: 'player', episodeId: 'ep' });
    state = navigationReducer(state, { type: 'back' });
    expect(currentRoute(state)).toEqual({ screen: 'episodes' });
    state = navigationReducer(navigationReducer(state, { type: 'back' }), { type: 'back' });
    expect(currentRoute(state)).toBeUndefined();
  });

  it('help and notices are cleared by moving to another screen', () => {
    let state = initialNavigation({ screen: 'home' });
    state = navigationReducer(state, { type: 'toggleHelp' });
    state = navigationReducer(state, { type: 'notice', message: 'hello' });
    expect(state).toMatchObject({ help: true, notice: 'hello' });
    expect(navigationReducer(state, { type: 'open', route: { screen: 'episodes' } })).toMatchObject({ help: false, notice: null });
  });
});

describe('moveCursor', () => {
  it('scrolls only as far as needed to keep the selection visible', () => {
    let cursor = moveCursor(START, 5, 100, 10);
    expect(cursor).toEqual({ selected: 5, top: 0 });
    cursor = moveCursor(cursor, 7, 100, 10);
    expect(cursor).toEqual({ selected: 12, top: 3 });
    cursor = moveCursor(cursor, -5, 100, 10);
    expect(cursor).toEqual({ selected: 7, top: 3 });
    expect(moveCursor(cursor, 1000, 100, 10)).toEqual({ selected: 99, top: 90 });
    expect(moveCursor(cursor, -1000, 100, 10)).toEqual({ selected: 0, top: 0 });
  });

  it('handles an empty list and a list shorter than the window', () => {
    expect(moveCursor(START, 3, 0, 10)).toEqual(START);
    expect(moveCursor(START, 3, 2, 10)).toEqual({ selected: 1, top: 0 });
  });
});
