import { describe, expect, it } from 'vitest';
import { onShortSecret, redact, redactDeep, registerSecret, REDACTED, shortSecretNotice } from '../../src/core/secrets.js';

// The registry is process-wide: these keys are this file's own and match nothing else it prints.
const KEY = registerSecret('tok-QwErTyUiOpAsDfGhJkLz');
const SHORT = registerSecret('Zq9#x');

describe('redaction', () => {
  it('replaces the whole key and any run of 8 or more of its characters, however it was cut', () => {
    expect(redact(`a ${KEY} b`)).toBe(`a ${REDACTED} b`);
    expect(redact(`body: "${KEY.slice(0, 8)}`)).toBe(`body: "${REDACTED}`);
    expect(redact(`…${KEY.slice(5, 17)}…`)).toBe(`…${REDACTED}…`);
    expect(redact(`${KEY.slice(-9)}${KEY}x`)).toBe(`${REDACTED}x`);
    expect(redact(`one ${KEY.slice(2, 12)} two ${KEY.slice(10)} three`)).toBe(`one ${REDACTED} two ${REDACTED} three`);
  });

  it('leaves runs of 7 and other text alone', () => {
    expect(redact(`${KEY.slice(0, 7)} ${KEY.slice(9, 16)}`)).toBe(`${KEY.slice(0, 7)} ${KEY.slice(9, 16)}`);
    expect(redact('nothing to see')).toBe('nothing to see');
  });

  it('replaces a short key only where it stands whole: alone, after an auth scheme or a key-like name, as a whole JSON value', () => {
    expect(SHORT).toBe('Zq9#x');
    expect(redact('Zq9#x')).toBe(REDACTED);
    // Free text keeps it: a short key cannot be told from ordinary words.
    expect(redact('pw Zq9#x, Zq9# ')).toBe('pw Zq9#x, Zq9# ');
    expect(redact('Authorization: Bearer Zq9#x')).toBe(`Authorization: Bearer ${REDACTED}`);
    expect(redact('{"headers":{"authorization":"Bearer Zq9#x","x-api-key":"Zq9#x"},"api_key":"Zq9#x"}')).toBe(
      `{"headers":{"authorization":"Bearer ${REDACTED}","x-api-key":"${REDACTED}"},"api_key":"${REDACTED}"}`,
    );
    expect(redact("{'echo': 'Zq9#x'}")).toBe(`{'echo': '${REDACTED}'}`);
    expect(redact('token=Zq9#x&next=1')).toBe(`token=${REDACTED}&next=1`);
    // Not a piece of a longer token, and not another case of it.
    expect(redact('Bearer Zq9#xyz, Bearer ZQ9#X')).toBe('Bearer Zq9#xyz, Bearer ZQ9#X');
  });

  it('never blanks a one-character key inside record keys or other words', () => {
    registerSecret('x');
    const record = { task: { task_index: 3, index: 3, sample: 0 }, text: 'max_tokens exceeded', reply: 'x', nested: ['x', 'xx'] };
    expect(redactDeep(record)).toEqual({ task: { task_index: 3, index: 3, sample: 0 }, text: 'max_tokens exceeded', reply: REDACTED, nested: [REDACTED, 'xx'] });
    expect(redact('a long text with x and xylophone')).toBe('a long text with x and xylophone');
  });

  it('redacts a key holding a quote or a backslash in its JSON-escaped forms too', () => {
    const key = registerSecret('sk-"quoted\\back"-0123');
    const once = JSON.stringify(key).slice(1, -1);
    const twice = JSON.stringify(once).slice(1, -1);
    expect(redact(JSON.stringify({ echo: { authorization: `Bearer ${key}` } }))).toBe(`{"echo":{"authorization":"Bearer ${REDACTED}"}}`);
    expect(redact(`body: ${twice.slice(0, 14)}`)).toBe(`body: ${REDACTED}`);
    expect(redact(`raw ${once} and ${twice}.`)).toBe(`raw ${REDACTED} and ${REDACTED}.`);
    const short = registerSecret('a"b\\c');
    expect(redact(JSON.stringify({ api_key: short, header: `Bearer ${short}` }))).toBe(`{"api_key":"${REDACTED}","header":"Bearer ${REDACTED}"}`);
  });

  it('tells once, to whoever listens, that a short key was registered', () => {
    const told: (string | undefined)[] = [];
    onShortSecret((source) => told.push(source));
    registerSecret('y1', '$OTHER');
    onShortSecret(null);
    // The file's first short key (SHORT, registered before anyone listened) is the one told.
    expect(told).toEqual([undefined]);
    expect(shortSecretNotice('$FAKE_API_KEY')).toMatch(/^the key in \$FAKE_API_KEY is shorter than 8 characters.*cannot be scrubbed from free text$/);
  });

  it('redacts every string of a JSON value, keys included, and leaves the rest as it was', () => {
    const value = { reply: `k=${KEY}`, turns: [{ errors: [`HTTP 401: ${KEY.slice(4, 20)}`], reward: 0.5 }], [KEY]: true, none: null };
    expect(redactDeep(value)).toEqual({ reply: `k=${REDACTED}`, turns: [{ errors: [`HTTP 401: ${REDACTED}`], reward: 0.5 }], [REDACTED]: true, none: null });
    expect(value.reply).toBe(`k=${KEY}`);
  });
});
