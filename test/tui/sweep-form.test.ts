/** The Eval board's new-sweep form without rendering: the reducer over the typed text and the check that makes the sweep's settings. */
import { describe, expect, it } from 'vitest';
import {
  checkSweepForm,
  focusedSweepField,
  initialSweepForm,
  sweepFormFields,
  sweepFormReducer,
  sweepStartPosition,
  type SweepFormAction,
  type SweepFormState,
  type SweepFormValues,
} from '../../src/tui/state/sweep-form.js';

const PREFILL = { model: 'qwen-vl', baseUrl: 'http://127.0.0.1:8000/v1', apiKeyEnv: '', split: 'eval' };
const run = (actions: SweepFormAction[], from: SweepFormState = initialSweepForm()) => actions.reduce(sweepFormReducer, from);
const ready = () => run([{ type: 'prefilled', prefill: PREFILL }]);
const values = (over: Partial<SweepFormValues>): SweepFormValues => ({ ...ready().values, ...over });
/** Focus on the named field of the form's current source. */
const at = (state: SweepFormState, name: keyof SweepFormValues): SweepFormAction => ({ type: 'move', delta: sweepFormFields(state.values.source).findIndex((f) => f.name === name) - state.focus });

describe('the new-sweep reducer', () => {
  it("opens on the CLI's defaults with the last endpoint and split, and ignores edits until then", () => {
    expect(run([{ type: 'type', text: 'x' }]).values.model).toBe('');
    const form = ready();
    expect(form.phase).toBe('editing');
    expect(form.values).toMatchObject({ source: 'endpoint', model: 'qwen-vl', split: 'eval', passes: '4', limit: '', concurrency: '', out: '' });
  });

  it('the source field switches between the endpoint fields and the models file fields', () => {
    const form = ready();
    expect(sweepFormFields(form.values.source).map((f) => f.name)).toEqual(['source', 'model', 'baseUrl', 'apiKeyEnv', 'split', 'passes', 'limit', 'concurrency', 'out']);
    const file = run([{ type: 'choose', delta: 1 }], form);
    expect(file.values.source).toBe('models file');
    expect(sweepFormFields(file.values.source).map((f) => f.name)).toEqual(['source', 'modelsFile', 'names', 'split', 'passes', 'limit', 'concurrency', 'out']);
    expect(run([{ type: 'choose', delta: 1 }], file).values.source).toBe('endpoint');
    // Typing on a choice changes nothing.
    expect(run([{ type: 'type', text: 'x' }], file).values.source).toBe('models file');
  });

  it('types into the focused field (no control characters), erases, and stops at Start', () => {
    const form = ready();
    const typed = run([at(form, 'limit'), { type: 'type', text: '1\n2' }, { type: 'erase' }, { type: 'type', text: '5' }], form);
    expect(typed.values.limit).toBe('15');
    const end = run([{ type: 'move', delta: 99 }], form);
    expect(end.focus).toBe(sweepStartPosition(end));
    expect(focusedSweepField(end)).toBeUndefined();
    expect(run([{ type: 'move', delta: -99 }], form).focus).toBe(0);
  });

  it('holds still while starting; a failed start shows its error on the field at fault', () => {
    const starting = run([{ type: 'starting' }, { type: 'type', text: 'x' }, { type: 'move', delta: 3 }], ready());
    expect(starting.phase).toBe('starting');
    expect(starting.values.model).toBe('qwen-vl');
    const stopped = run([{ type: 'stopped', error: { field: 'split', message: 'no split "x"' } }], starting);
    expect(stopped.phase).toBe('editing');
    expect(focusedSweepField(stopped)?.name).toBe('split');
    // The next edit clears the error.
    expect(run([{ type: 'type', text: 'x' }], stopped).error).toBeNull();
  });
});

describe('checkSweepForm', () => {
  it('makes the flags `geolab eval run` takes, leaving blanks to its defaults', () => {
    expect(checkSweepForm(ready().values)).toEqual({ ok: true, flags: { model: 'qwen-vl', baseUrl: 'http://127.0.0.1:8000/v1', split: 'eval', passes: 4 } });
    const full = checkSweepForm(values({ apiKeyEnv: 'MY_KEY', limit: ' 3 ', concurrency: '2', out: '/tmp/sweep', passes: '1' }));
    expect(full).toEqual({ ok: true, flags: { model: 'qwen-vl', baseUrl: 'http://127.0.0.1:8000/v1', apiKeyEnv: 'MY_KEY', split: 'eval', passes: 1, limit: 3, concurrency: 2, out: '/tmp/sweep' } });
  });

  it('a models file and its names', () => {
    expect(checkSweepForm(values({ source: 'models file', modelsFile: 'models.json', names: 'a, b,' }))).toEqual({ ok: true, flags: { models: 'models.json', names: ['a', 'b'], split: 'eval', passes: 4 } });
    expect(checkSweepForm(values({ source: 'models file', modelsFile: 'models.json' }))).toMatchObject({ ok: true, flags: { models: 'models.json' } });
    expect(checkSweepForm(values({ source: 'models file' }))).toMatchObject({ ok: false, field: 'modelsFile' });
  });

  it("checks the endpoint as the Watch form does, never echoing a key typed as the variable's name", () => {
    expect(checkSweepForm(values({ model: '' }))).toMatchObject({ ok: false, field: 'model' });
    expect(checkSweepForm(values({ baseUrl: 'localhost:8000' }))).toMatchObject({ ok: false, field: 'baseUrl' });
    const key = checkSweepForm(values({ apiKeyEnv: 'sk-abcdef0123456789' }));
    expect(key).toMatchObject({ ok: false, field: 'apiKeyEnv' });
    expect(JSON.stringify(key)).not.toContain('sk-abcdef0123456789');
  });

  it('names the count that is wrong', () => {
    expect(checkSweepForm(values({ split: ' ' }))).toMatchObject({ ok: false, field: 'split' });
    expect(checkSweepForm(values({ passes: '0' }))).toEqual({ ok: false, field: 'passes', message: 'k (samples per task) must be a whole number from 1 to 1000, got "0"' });
    expect(checkSweepForm(values({ passes: '' }))).toMatchObject({ ok: false, field: 'passes' });
    expect(checkSweepForm(values({ limit: '-1' }))).toMatchObject({ ok: false, field: 'limit' });
    expect(checkSweepForm(values({ concurrency: '2000' }))).toMatchObject({ ok: false, field: 'concurrency' });
    expect(checkSweepForm(values({ concurrency: '1.5' }))).toMatchObject({ ok: false, field: 'concurrency' });
  });
});
