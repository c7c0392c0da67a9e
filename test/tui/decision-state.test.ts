/** The Player's retry and fork panel without rendering: the reducer, the form check and the words it shows. */
import { describe, expect, it } from 'vitest';
import {
  checkDecisionForm,
  checkText,
  decisionPanelReducer,
  decisionReducer,
  decisionTurnProblem,
  initialDecision,
  sampleGuesses,
  startPosition,
  summaryText,
  type DecisionAction,
  type DecisionPreparation,
  type DecisionState,
  type SampleView,
} from '../../src/tui/state/decision.js';

const PREPARED: DecisionPreparation = {
  values: { model: 'scripted', baseUrl: 'http://127.0.0.1:9/v1', apiKeyEnv: '', temperature: '0.7' },
  check: { sha256: 'a'.repeat(64), recordedSha256: 'a'.repeat(64), differences: [] },
  recorded: sample('look'),
  truth: { lat: 47.2, lon: 10.55 },
  guess: { lat: 47.1, lon: 10.4 },
};

function sample(action: string | null, guess: [number, number] | null = null): SampleView {
  return { action, arguments: 'heading_deg=90', reasoning: 'I look east.', tokens: 12, latencyS: 0.4, guess, distanceKm: guess ? 10 : null };
}

const run = (actions: DecisionAction[], from: DecisionState = initialDecision('retry', 2)) => actions.reduce(decisionReducer, from);
const ready = (kind: 'retry' | 'fork' = 'retry') => run([{ type: 'prepared', preparation: PREPARED }], initialDecision(kind, 2));

describe('the panel reducer', () => {
  it('opens loading, takes no typing until prepared, then opens on Start with the prefill and 5 samples', () => {
    const loading = run([{ type: 'type', text: 'x' }]);
    expect(loading.phase).toBe('loading');
    expect(loading.values.model).toBe('');
    const state = ready();
    expect(state.phase).toBe('editing');
    expect(state.focus).toBe(startPosition(state));
    expect(state.values).toEqual({ ...PREPARED.values, samples: '5' });
    expect(state.recorded?.action).toBe('look');
  });

  it('types into the focused field and not on Start; erases; keeps the focus in range', () => {
    const onStart = run([{ type: 'type', text: 'x' }], ready());
    expect(onStart.values).toEqual(ready().values);
    const samples = run([{ type: 'move', delta: -1 }, { type: 'erase' }, { type: 'type', text: '3\r' }], ready());
    expect(samples.values.samples).toBe('3');
    expect(run([{ type: 'move', delta: -99 }], ready()).focus).toBe(0);
    expect(run([{ type: 'move', delta: 99 }], ready()).focus).toBe(startPosition(ready()));
  });

  it('a fork has no samples field', () => {
    const fork = ready('fork');
    expect(startPosition(fork)).toBe(4);
    expect(startPosition(ready())).toBe(5);
  });

  it('places samples as they arrive, in any order, then the summary; nothing is edited while they come', () => {
    const sending = run([{ type: 'sending', samples: 3 }], ready());
    expect(sending.samples).toEqual([null, null, null]);
    const second = run([{ type: 'sample', index: 1, sample: sample('pin') }, { type: 'type', text: 'x' }], sending);
    expect(second.samples.map((s) => s?.action ?? null)).toEqual([null, 'pin', null]);
    expect(second.values).toEqual(ready().values);
    const summary = { samples: 3, sameAction: 2, recordedAction: 'look', guesses: 0, spreadKm: null, meanDistanceKm: null };
    const done = run([{ type: 'finished', samples: [sample('look'), sample('pin'), sample('look')], summary }], second);
    expect(done.phase).toBe('done');
    expect(done.summary).toEqual(summary);
    // A finished retry can be edited and sent again: its old samples go when it is.
    expect(run([{ type: 'sending', samples: 2 }], done).samples).toEqual([null, null]);
  });

  it('a sample after the panel stopped sending changes nothing', () => {
    const stopped = run([{ type: 'sending', samples: 1 }, { type: 'stopped', error: { field: null, message: 'endpoint down' } }], ready());
    expect(run([{ type: 'sample', index: 0, sample: sample('look') }], stopped)).toBe(stopped);
    expect(stopped.error?.message).toBe('endpoint down');
    expect(stopped.phase).toBe('editing');
  });

  it('an error naming a field moves the focus there; a turn that cannot be rebuilt takes no edits', () => {
    const wrong = run([{ type: 'stopped', error: { field: 'model', message: 'not served' } }], ready());
    expect(wrong.focus).toBe(0);
    const gone = run([{ type: 'unavailable', message: 'the image abc… is not in the workspace' }, { type: 'move', delta: -1 }]);
    expect(gone.phase).toBe('unavailable');
    expect(gone.focus).toBe(0);
    expect(run([{ type: 'stopped', error: null }], gone)).toBe(gone);
  });

  it('the Player opens and closes it', () => {
    const open = decisionPanelReducer(null, { type: 'open', kind: 'fork', turn: 3 });
    expect(open).toMatchObject({ kind: 'fork', turn: 3, phase: 'loading' });
    expect(decisionPanelReducer(open, { type: 'close' })).toBeNull();
    expect(decisionPanelReducer(null, { type: 'move', delta: 1 })).toBeNull();
  });
});

describe('the form check', () => {
  const values = { model: 'm', baseUrl: 'http://127.0.0.1:8000/v1', apiKeyEnv: 'OPENAI_API_KEY', temperature: '', samples: '5' };

  it('gives the request, a blank temperature being the endpoint default', () => {
    expect(checkDecisionForm('retry', values)).toEqual({
      ok: true,
      request: { model: 'm', baseUrl: 'http://127.0.0.1:8000/v1', apiKeyEnv: 'OPENAI_API_KEY', temperature: null, samples: 5 },
    });
    expect(checkDecisionForm('retry', { ...values, temperature: ' 0.7 ' })).toMatchObject({ ok: true, request: { temperature: 0.7 } });
  });

  it('names the field that is wrong', () => {
    expect(checkDecisionForm('retry', { ...values, model: ' ' })).toMatchObject({ ok: false, field: 'model' });
    expect(checkDecisionForm('retry', { ...values, baseUrl: 'localhost:8000' })).toMatchObject({ ok: false, field: 'baseUrl' });
    expect(checkDecisionForm('retry', { ...values, apiKeyEnv: 'sk-abc123' })).toMatchObject({ ok: false, field: 'apiKeyEnv' });
    expect(checkDecisionForm('retry', { ...values, apiKeyEnv: 'sk-abc123' })).not.toMatchObject({ message: expect.stringContaining('sk-abc123') });
    expect(checkDecisionForm('retry', { ...values, temperature: 'hot' })).toMatchObject({ ok: false, field: 'temperature' });
    expect(checkDecisionForm('retry', { ...values, samples: '0' })).toMatchObject({ ok: false, field: 'samples' });
    expect(checkDecisionForm('retry', { ...values, samples: '2.5' })).toMatchObject({ ok: false, field: 'samples' });
    expect(checkDecisionForm('retry', { ...values, samples: '21' })).toMatchObject({ ok: false, field: 'samples' });
  });

  it('does not read the samples of a fork', () => {
    expect(checkDecisionForm('fork', { ...values, samples: 'x' })).toMatchObject({ ok: true, request: { samples: 1 } });
  });
});

describe('which turns', () => {
  const turns = [{ turn: 0 }, { turn: 1, model: {} }, { turn: 2, model: {} }, { turn: 3, model: {} }];

  it('takes a model turn, and says which turns can be taken on the reset', () => {
    expect(decisionTurnProblem(turns, 2)).toBeNull();
    expect(decisionTurnProblem(turns, 0)).toBe("Turn 0 is the reset: a model's turn can be retried or forked (turns 1–3).");
  });

  it('says so of a turn without a model, and of an episode with none', () => {
    expect(decisionTurnProblem([{ turn: 0 }, { turn: 1, model: {} }, { turn: 2 }], 2)).toBe("Turn 2 has no model reply: a model's turn can be retried or forked (turns 1).");
    expect(decisionTurnProblem([{ turn: 0 }, { turn: 1 }], 1)).toContain('none: no turn of this episode was played by a model');
  });
});

describe('the words', () => {
  it('summarises the actions and the guesses', () => {
    expect(summaryText({ samples: 5, sameAction: 3, recordedAction: 'look', guesses: 0, spreadKm: null, meanDistanceKm: null })).toBe('3 of 5 chose look, the recorded action');
    expect(summaryText({ samples: 5, sameAction: 5, recordedAction: 'guess', guesses: 5, spreadKm: 120.4, meanDistanceKm: 80 })).toBe(
      '5 of 5 chose guess, the recorded action · 5 guesses, spread 120 km, mean 80 km to the truth',
    );
    expect(summaryText({ samples: 1, sameAction: 0, recordedAction: null, guesses: 0, spreadKm: null, meanDistanceKm: null })).toBe('1 sample; the recorded reply chose no action');
  });

  it('says whether the request matches the recorded hash', () => {
    const sha = 'ab'.repeat(32);
    expect(checkText({ sha256: sha, recordedSha256: sha, differences: [] })).toEqual({ tone: 'ok', text: 'request sha256 abababababab… matches the recorded one' });
    expect(checkText({ sha256: sha, recordedSha256: 'cd'.repeat(32), differences: ['the image of turn 1', 'temperature'] }).text).toBe(
      'request differs from the recorded one (abababababab… vs cdcdcdcdcdcd…): the image of turn 1; temperature',
    );
    expect(checkText({ sha256: sha, recordedSha256: null, differences: [] }).text).toContain('no recorded hash');
  });

  it('maps the guesses that came back, in sample order', () => {
    const state = run([{ type: 'sending', samples: 3 }, { type: 'sample', index: 2, sample: sample('guess', [1, 2]) }, { type: 'sample', index: 0, sample: sample('guess', [3, 4]) }], ready());
    expect(sampleGuesses(state)).toEqual([
      { lat: 3, lon: 4 },
      { lat: 1, lon: 2 },
    ]);
  });
});
