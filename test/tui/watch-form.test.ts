/** The "Watch a model" form without rendering: the reducer, the field checks, and the saved settings. */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  checkWatchForm,
  initialWatchForm,
  START_POSITION,
  watchFormReducer,
  type WatchFormAction,
  type WatchFormState,
  type WatchValues,
} from '../../src/tui/state/watch-form.js';
import { prefillWatch, readWatchSettings, saveWatchSettings, WATCH_DEFAULTS } from '../../src/tui/watch/settings.js';
import { tempDir } from '../helpers/fixtures.js';

const run = (actions: WatchFormAction[], from: WatchFormState = initialWatchForm()) => actions.reduce(watchFormReducer, from);
const ready = () => run([{ type: 'prefilled', settings: { ...WATCH_DEFAULTS, model: 'qwen' } }]);
const values = (over: Partial<WatchValues>): WatchValues => ({ ...ready().values, ...over });

describe('the form reducer', () => {
  it('ignores edits until the prefill is in, then types into the focused field', () => {
    const loading = run([{ type: 'type', text: 'x' }]);
    expect(loading.values.model).toBe('');
    const typed = run([{ type: 'type', text: '-4b' }, { type: 'move', delta: 1 }, { type: 'erase' }], ready());
    expect(typed.values.model).toBe('qwen-4b');
    expect(typed.values.baseUrl).toBe('http://127.0.0.1:8000/v');
  });

  it('types no control characters (a pasted line break)', () => {
    expect(run([{ type: 'type', text: '\r' }, { type: 'type', text: 'a\tb\n' }], ready()).values.model).toBe('qwenab');
  });

  it('keeps the focus between the first field and Start', () => {
    expect(run([{ type: 'move', delta: -1 }], ready()).focus).toBe(0);
    expect(run([{ type: 'move', delta: 99 }], ready()).focus).toBe(START_POSITION);
  });

  it('cycles the protocol instead of typing into it', () => {
    const onProtocol = run([{ type: 'move', delta: 3 }], ready());
    expect(run([{ type: 'type', text: 'x' }], onProtocol).values.protocol).toBe('tools');
    expect(run([{ type: 'choose', delta: 1 }], onProtocol).values.protocol).toBe('json');
    expect(run([{ type: 'choose', delta: -1 }, { type: 'choose', delta: -1 }], onProtocol).values.protocol).toBe('tools');
    // Choosing on a text field changes nothing.
    expect(run([{ type: 'choose', delta: 1 }], ready()).values).toEqual(ready().values);
  });

  it('freezes the values while the endpoint is checked, and a failure points at the field', () => {
    const checking = run([{ type: 'move', delta: 5 }, { type: 'checking' }, { type: 'type', text: '7' }], ready());
    expect(checking.values.task).toBe('');
    const failed = run([{ type: 'stopped', error: { field: 'model', message: 'not served' } }], checking);
    expect(failed).toMatchObject({ phase: 'editing', focus: 0, error: { field: 'model' } });
    // Editing clears the error about the old text.
    expect(run([{ type: 'type', text: 'x' }], failed).error).toBeNull();
  });
});

describe('checking the form', () => {
  it('turns good text into a request (blank task: random)', () => {
    expect(checkWatchForm(values({ apiKeyEnv: ' OPENAI_API_KEY ', task: '' }))).toEqual({
      ok: true,
      request: { model: 'qwen', baseUrl: 'http://127.0.0.1:8000/v1', apiKeyEnv: 'OPENAI_API_KEY', protocol: 'tools', split: 'eval', task: null },
    });
    expect(checkWatchForm(values({ task: '3' }))).toMatchObject({ ok: true, request: { task: 3 } });
  });

  it('names the field that is wrong', () => {
    expect(checkWatchForm(values({ model: '  ' }))).toMatchObject({ ok: false, field: 'model', message: expect.stringContaining('model:') });
    expect(checkWatchForm(values({ baseUrl: 'localhost:8000' }))).toMatchObject({ ok: false, field: 'baseUrl', message: expect.stringContaining('base URL must be an http(s) URL') });
    expect(checkWatchForm(values({ baseUrl: 'ftp://x/v1' }))).toMatchObject({ ok: false, field: 'baseUrl' });
    expect(checkWatchForm(values({ split: '' }))).toMatchObject({ ok: false, field: 'split' });
    expect(checkWatchForm(values({ task: '1.5' }))).toMatchObject({ ok: false, field: 'task', message: expect.stringContaining('task index must be a whole number') });
    expect(checkWatchForm(values({ task: '-1' }))).toMatchObject({ ok: false, field: 'task' });
  });

  it('refuses a key typed where its variable name goes, without repeating it', () => {
    const result = checkWatchForm(values({ apiKeyEnv: 'sk-live-abc123' }));
    expect(result).toMatchObject({ ok: false, field: 'apiKeyEnv', message: expect.stringContaining('NAME of an environment variable') });
    expect(JSON.stringify(result)).not.toContain('sk-live-abc123');
  });
});

describe('the saved settings', () => {
  it('prefills from GEOLAB_* variables, else the saved settings, else the defaults', () => {
    const saved = { model: 'saved-model', baseUrl: 'http://10.0.0.2:8000/v1', apiKeyEnv: 'SAVED_KEY', protocol: 'json' as const, split: 'train' };
    expect(prefillWatch({}, {})).toEqual({ model: '', baseUrl: 'http://127.0.0.1:8000/v1', apiKeyEnv: '', protocol: 'tools', split: 'eval' });
    expect(prefillWatch({}, saved)).toEqual(saved);
    expect(prefillWatch({ GEOLAB_MODEL: 'env-model', GEOLAB_BASE_URL: 'https://api.example/v1', GEOLAB_API_KEY_ENV: 'ENV_KEY' }, saved)).toEqual({
      ...saved,
      model: 'env-model',
      baseUrl: 'https://api.example/v1',
      apiKeyEnv: 'ENV_KEY',
    });
  });

  it('round-trips through one file in the workspace, leaving no temp file and no stray field', () => {
    const dir = tempDir('geolab-watch-settings-');
    const file = join(dir, 'watch.json');
    expect(readWatchSettings(file)).toEqual({});
    const settings = { model: 'm', baseUrl: 'http://127.0.0.1:9/v1', apiKeyEnv: 'K', protocol: 'json' as const, split: 'eval' };
    saveWatchSettings(file, { ...settings, task: 4 } as typeof settings);
    expect(readWatchSettings(file)).toEqual(settings);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(settings);
    expect(readdirSync(dir)).toEqual(['watch.json']);
  });

  it('reads a broken or foreign file as no settings', () => {
    const file = join(tempDir('geolab-watch-settings-'), 'watch.json');
    writeFileSync(file, '{"model": 3, "protocol": "smoke", "split": "eval"');
    expect(readWatchSettings(file)).toEqual({});
    writeFileSync(file, '{"model": 3, "protocol": "smoke", "split": "eval"}');
    expect(readWatchSettings(file)).toEqual({ split: 'eval' });
  });
});
