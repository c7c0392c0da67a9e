/** The four-bytes-at-a-time check of a data URL's payload says what a byte-by-byte check says. */
import { describe, expect, it } from 'vitest';
import { isPlain } from '../../src/audit/sources/jsonl.js';

const plainByte = (c: number) => c >= 0x20 && c <= 0x7e && c !== 0x5c;

describe('isPlain', () => {
  it('agrees with a byte loop at every alignment, on plain runs with one odd byte anywhere', () => {
    let seed = 3;
    const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const base64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=';
    // Every value a byte can have, each planted into plain runs at several places and offsets.
    let checked = 0;
    for (let odd = 0; odd < 256; odd++) {
      for (let trial = 0; trial < 8; trial++) {
        const length = 1 + Math.floor(rand() * 40);
        const buffer = Buffer.alloc(length + 8);
        for (let i = 0; i < buffer.length; i++) buffer[i] = base64.charCodeAt(Math.floor(rand() * base64.length));
        buffer[Math.floor(rand() * buffer.length)] = odd;
        const from = Math.floor(rand() * 5);
        const to = Math.min(buffer.length, from + length);
        // Slices of one allocation start at every byte offset of its memory.
        const view = Buffer.from(buffer.buffer, buffer.byteOffset, buffer.length);
        let expected = true;
        for (let i = from; i < to; i++) if (!plainByte(view[i] as number)) expected = false;
        expect(isPlain(view, from, to), `byte ${odd} in ${JSON.stringify(view.toString('latin1', from, to))}`).toBe(expected);
        checked++;
      }
    }
    expect(checked).toBe(2048);
  });

  it('reads a long payload without an odd byte as plain, and one with a backslash or a DEL as not', () => {
    const payload = Buffer.from('QUJD'.repeat(10_000));
    expect(isPlain(payload, 0, payload.length)).toBe(true);
    payload[20_001] = 0x5c;
    expect(isPlain(payload, 0, payload.length)).toBe(false);
    payload[20_001] = 0x7f;
    expect(isPlain(payload, 0, payload.length)).toBe(false);
    payload[20_001] = 0x09;
    expect(isPlain(payload, 0, payload.length)).toBe(false);
  });
});
