import { describe, expect, it } from 'vitest';
import {
  executedCallMessages,
  forcedGuessMessage,
  GUESS_SUBMITTED,
  ONE_CALL_AT_A_TIME,
  openingMessage,
  readToolReply,
  toolResultText,
  toolSpecs,
  TRAINED_PIN_SPAN_DEG,
  withCallIds,
  type ToolCall,
} from '../../src/agent/protocols/tools.js';
import type { RecordedMessage } from '../../src/agent/types.js';

const call = (name: string, args: string | Record<string, unknown>, id = `id-${name}`): ToolCall => ({
  id,
  type: 'function',
  function: { name, arguments: args },
});
const read = (calls: ToolCall[], options: Partial<Parameters<typeof readToolReply>[2]> = {}, content = '') =>
  readToolReply(content, calls, { tools: 'trained', forced: false, callsLeft: 5, ...options });
const textOf = (message: RecordedMessage) =>
  typeof message.content === 'string' ? message.content : message.content.map((p) => (p.type === 'text' ? p.text : `[image ${p.sha256}]`)).join(' ');

describe('tool specs', () => {
  it('offers the five trained tools, one sentence each with its cost', () => {
    const specs = toolSpecs('trained');
    expect(specs.map((s) => s.function.name)).toEqual(['look', 'zoom', 'move', 'pin', 'guess']);
    for (const spec of specs) {
      expect(spec.function.description).toMatch(/(costs \d\.\d\d|free)/);
      expect(spec.function.description.split('. ').length).toBe(1);
    }
    const byName = Object.fromEntries(specs.map((s) => [s.function.name, s.function.parameters as { properties: object; required: string[] }]));
    expect(Object.keys(byName.look!.properties)).toEqual(['heading_deg', 'fov_deg', 'pitch_deg']);
    expect(Object.keys(byName.zoom!.properties)).toEqual(['fov_deg']);
    expect(Object.keys(byName.move!.properties)).toEqual(['direction', 'meters']);
    // The trained pin has no span: it is fixed, as in training.
    expect(Object.keys(byName.pin!.properties)).toEqual(['lat', 'lon']);
    expect(byName.guess!.required).toEqual(['lat', 'lon']);
  });

  it('offers every environment action with --tools all', () => {
    const names = toolSpecs('all').map((s) => s.function.name);
    expect(names).toEqual(['look', 'pan', 'zoom', 'move', 'pin', 'view_map', 'measure', 'list_pins', 'clear_pins', 'reverse_geocode', 'guess']);
    const pin = toolSpecs('all').find((s) => s.function.name === 'pin')!.function.parameters as { properties: object };
    expect(Object.keys(pin.properties)).toEqual(['lat', 'lon', 'label', 'span_deg']);
  });
});

describe('messages', () => {
  const image = { type: 'image' as const, sha256: 'a'.repeat(64), mime: 'image/jpeg' };

  it('opens with the view and an instruction naming the tools and the harness budget', () => {
    const message = openingMessage({ tools: 'trained', maxTurns: 12, camera: { heading_deg: 0, fov_deg: 90, pitch_deg: 0 }, image });
    expect(message.role).toBe('user');
    expect(Array.isArray(message.content) && message.content[1]).toEqual(image);
    const text = textOf(message);
    expect(text).toContain('You have 12 tool calls');
    expect(text).toContain('The episode scores 0 unless you call guess before they run out');
    for (const tool of ['look', 'zoom', 'move', 'pin', 'guess']) expect(text).toContain(`- ${tool}: `);
    // Not the environment's opening prompt: no MCP names, no environment budget.
    expect(text).not.toMatch(/submit_guess|place_pin|24 actions/);
  });

  it("replaces the environment's budget with the harness's count", () => {
    expect(toolResultText('look', 'Facing 90° (E), pitch 0°, field of view 90°. 23 actions left.', 7)).toBe(
      'Facing 90° (E), pitch 0°, field of view 90°. 7 tool calls left.',
    );
    expect(toolResultText('zoom', 'Field of view now 30°. 20 actions left.', 1)).toContain('1 tool call left: THIS IS YOUR FINAL ACTION');
    expect(toolResultText('zoom', 'Field of view now 30°. 20 actions left.', 1)).not.toContain('20 actions');
    expect(toolResultText('pin', 'Pin 1 placed at 1.0000, 2.0000 - open water. 19 actions left.', 0)).toContain('No tool calls left.');
  });

  it('replaces the guess feedback so the truth never enters the context', () => {
    const feedback = 'Close: your guess 1.0000, 2.0000 is 120 km from the true location 1.5000, 2.5000 (Ghana).';
    expect(toolResultText('guess', feedback, 3)).toBe(GUESS_SUBMITTED);
  });

  it('answers an executed call with a tool message, then the other calls, then the image in a user message', () => {
    const executed = call('look', { heading_deg: 90 });
    const extra: RecordedMessage = { role: 'tool', tool_call_id: 'id-zoom', name: 'zoom', content: ONE_CALL_AT_A_TIME };
    const messages = executedCallMessages({
      call: executed,
      op: 'look',
      feedback: 'Facing 90° (E). 22 actions left.',
      callsLeft: 10,
      image: { part: image, kind: 'view' },
      extras: [extra],
    });
    expect(messages.map((m) => m.role)).toEqual(['tool', 'tool', 'user']);
    expect(messages[0]).toMatchObject({ tool_call_id: 'id-look', content: 'Facing 90° (E). 10 tool calls left.' });
    expect(messages[1]).toBe(extra);
    expect(messages[2]!.content).toContainEqual(image);
  });

  it('asks for the guess at the turn limit', () => {
    expect(textOf(forcedGuessMessage())).toContain('Call guess now');
  });
});

describe('reading replies', () => {
  it('executes the one call, validated by the environment', () => {
    const reading = read([call('look', '{"heading_deg": 90, "fov_deg": 60}')]);
    expect(reading).toMatchObject({ kind: 'action', action: { op: 'look', heading_deg: 90, fov_deg: 60, pitch_deg: 0 } });
  });

  it('fixes the trained pin span at 7 whatever the model asks', () => {
    const reading = read([call('pin', { lat: 10, lon: 20, span_deg: 1 })]);
    expect(reading).toMatchObject({ kind: 'action', action: { op: 'pin', lat: 10, lon: 20, span_deg: TRAINED_PIN_SPAN_DEG } });
    const all = read([call('pin', { lat: 10, lon: 20, span_deg: 1 })], { tools: 'all' });
    expect(all).toMatchObject({ kind: 'action', action: { span_deg: 1 } });
  });

  it('reads numbers written as strings', () => {
    expect(read([call('guess', { lat: '48.5', lon: '-2.25' })])).toMatchObject({ kind: 'action', action: { op: 'guess', lat: 48.5, lon: -2.25 } });
  });

  it('executes the first of two calls and answers the second with an error', () => {
    const reading = read([call('look', { heading_deg: 180 }), call('zoom', { fov_deg: 30 })]);
    expect(reading.kind).toBe('action');
    if (reading.kind !== 'action') return;
    expect(reading.action.op).toBe('look');
    expect(reading.extras).toEqual([{ role: 'tool', tool_call_id: 'id-zoom', name: 'zoom', content: ONE_CALL_AT_A_TIME }]);
    expect(ONE_CALL_AT_A_TIME).toContain('one tool at a time');
  });

  it('refuses a call whose arguments are not JSON, answering every call', () => {
    const reading = read([call('pin', '{"lat": 10, "lon": '), call('zoom', { fov_deg: 30 })]);
    expect(reading.kind).toBe('unusable');
    if (reading.kind !== 'unusable') return;
    expect(reading.note).toContain('not a JSON object');
    expect(reading.replies.map((r) => r.tool_call_id)).toEqual(['id-pin', 'id-zoom']);
    expect(textOf(reading.replies[0]!)).toContain('5 tool calls left.');
  });

  it('refuses unknown tools, tools outside the set and invalid arguments', () => {
    expect(read([call('teleport', {})])).toMatchObject({ kind: 'unusable', note: expect.stringContaining('no tool named "teleport"') });
    expect(read([call('measure', { lat_a: 1, lon_a: 2, lat_b: 3, lon_b: 4 })])).toMatchObject({ kind: 'unusable' });
    expect(read([call('pin', { lat: 200, lon: 20 })])).toMatchObject({ kind: 'unusable', note: expect.stringContaining('pin.lat') });
  });

  it('nudges a reply that called no tool', () => {
    const reading = read([], {}, 'I think this is Norway.');
    expect(reading).toMatchObject({ kind: 'unusable', note: 'The reply called no tool.' });
    if (reading.kind === 'unusable') expect(reading.replies[0]).toMatchObject({ role: 'user' });
  });

  it('allows only guess at the turn limit, and takes coordinates from plain text there', () => {
    expect(read([call('look', { heading_deg: 1 })], { forced: true })).toMatchObject({ kind: 'unusable', note: expect.stringContaining('only guess') });
    expect(read([call('guess', { lat: 1, lon: 2 })], { forced: true })).toMatchObject({ kind: 'action', action: { op: 'guess', lat: 1, lon: 2 } });
    expect(read([], { forced: true }, 'My answer: <guess>59.91, 10.75</guess>')).toMatchObject({
      kind: 'action',
      action: { op: 'guess', lat: 59.91, lon: 10.75 },
      call: null,
    });
  });

  it('gives calls without ids one, so each can be answered', () => {
    const calls = withCallIds([{ function: { name: 'look', arguments: '{}' } }, { id: 'x', function: { name: 'zoom', arguments: { fov_deg: 20 } } }, { nonsense: 1 }], 3);
    expect(calls.map((c) => c.id)).toEqual(['call_3_0', 'x']);
    expect(calls[1]!.function.arguments).toEqual({ fov_deg: 20 });
  });
});
