import { describe, expect, it } from 'vitest';
import { redact, redactDeep, registerSecret, REDACTED } from '../../src/core/secrets.js';

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

  it('leaves runs of 7 and other text alone, and a short secret only where it is whole', () => {
    expect(redact(`${KEY.slice(0, 7)} ${KEY.slice(9, 16)}`)).toBe(`${KEY.slice(0, 7)} ${KEY.slice(9, 16)}`);
    expect(redact('nothing to see')).toBe('nothing to see');
    expect(redact(`pw Zq9#x, Zq9# `)).toBe(`pw ${REDACTED}, Zq9# `);
    expect(SHORT).toBe('Zq9#x');
  });

  it('redacts every string of a JSON value, keys included, and leaves the rest as it was', () => {
    const value = { reply: `k=${KEY}`, turns: [{ errors: [`HTTP 401: ${KEY.slice(4, 20)}`], reward: 0.5 }], [KEY]: true, none: null };
    expect(redactDeep(value)).toEqual({ reply: `k=${REDACTED}`, turns: [{ errors: [`HTTP 401: ${REDACTED}`], reward: 0.5 }], [REDACTED]: true, none: null });
    expect(value.reply).toBe(`k=${KEY}`);
  });
});
