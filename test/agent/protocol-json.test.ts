import { describe, expect, it } from 'vitest';
import { balancedObjects, extractActionObject } from '../../src/core/action-object.js';
import {
  JSON_INSTRUCTIONS,
  jsonRequest,
  NO_ACTION_FOUND,
  readJsonReply,
  transcriptLines,
  type JsonRequestInput,
} from '../../src/agent/protocols/json.js';
import type { Turn } from '../../src/core/episode.js';

const image = { type: 'image' as const, sha256: 'b'.repeat(64), mime: 'image/jpeg' };
const played = (turn: number, action: Record<string, unknown> | null, feedback: string, status = 'ok'): Turn => ({
  turn,
  status,
  action: action as Turn['action'],
  feedback,
});
const reset: Turn = { turn: 0, status: 'ok', action: { action: 'reset' }, feedback: 'You have 24 actions.' };

function request(overrides: Partial<JsonRequestInput> = {}) {
  return jsonRequest({
    history: [reset],
    turn: 1,
    maxTurns: 12,
    turnsLeft: 12,
    forced: false,
    camera: { heading_deg: 0, fov_deg: 90, pitch_deg: 0 },
    image: { part: image, kind: 'view', turn: 0 },
    ...overrides,
  });
}
const userText = (messages: ReturnType<typeof jsonRequest>) => {
  const content = messages[1]!.content;
  return typeof content === 'string' ? content : content.map((p) => (p.type === 'text' ? p.text : '')).join('');
};

describe('JSON requests (prompt v2)', () => {
  it('sends the instructions and one user message with at most one image', () => {
    const messages = request();
    expect(messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(messages[0]!.content).toBe(JSON_INSTRUCTIONS);
    const parts = messages[1]!.content as { type: string }[];
    expect(parts.filter((p) => p.type === 'image')).toHaveLength(1);
    expect(userText(messages)).toContain('Turn 1 of 12: 12 turns left');
    expect(userText(messages)).toContain('heading 0°, field of view 90°');
    expect(userText(messages)).toContain('The image is your starting view.');
  });

  it('instructs look, zoom, move, pin with span_deg, guess, the costs, pins and running out', () => {
    for (const action of ['"look"', '"zoom"', '"move"', '"pin"', '"guess"', '"span_deg"']) expect(JSON_INSTRUCTIONS).toContain(action);
    expect(JSON_INSTRUCTIONS).toContain('below about 4 degrees the map shows roads and towns');
    expect(JSON_INSTRUCTIONS).toMatch(/Costs 0\.01[\s\S]*Costs 0\.05[\s\S]*Costs 0\.02/);
    expect(JSON_INSTRUCTIONS).toContain('Pins never say whether you are right');
    expect(JSON_INSTRUCTIONS).toContain('Running out of turns without a guess scores zero');
    // No example coordinates: a real place could lie near some task's truth.
    expect(JSON_INSTRUCTIONS).not.toMatch(/-?\d+\.\d+\s*,\s*-?\d+\.\d+/);
  });

  it('carries the last 8 transcript lines without the environment budget', () => {
    const history = [reset, ...Array.from({ length: 10 }, (_, i) => played(i + 1, { action: 'zoom', fov_deg: 30 + i }, `Field of view now ${30 + i}°. ${23 - i} actions left.`))];
    const text = userText(request({ history, turn: 11, turnsLeft: 2 }));
    expect(text).not.toContain('Turn 2:');
    expect(text).toContain('- Turn 3: zoom(fov_deg=32) -> Field of view now 32°.');
    expect(text).toContain('- Turn 10: zoom(fov_deg=39)');
    expect(text).not.toMatch(/actions left/);
    expect(text).not.toContain('You have 24 actions');
  });

  it('warns when 2 or fewer turns remain, and not before', () => {
    expect(userText(request({ turnsLeft: 3 }))).not.toContain('WARNING');
    expect(userText(request({ turnsLeft: 2 }))).toContain('WARNING: 2 turns left.');
    expect(userText(request({ turnsLeft: 1 }))).toContain('THIS IS YOUR FINAL ACTION');
  });

  it('asks only for the guess at the turn limit', () => {
    const text = userText(request({ forced: true, turn: 13, turnsLeft: 0 }));
    expect(text).toContain('you have no turns left');
    expect(text).toContain('{"action": "guess"');
  });

  it('describes unparseable and failed turns in the transcript', () => {
    const lines = transcriptLines([
      reset,
      played(1, null, 'No JSON object with an "action" was found in the reply.', 'unparseable'),
      played(2, null, 'The model request failed.', 'provider_error'),
      played(3, { action: 'pin', lat: 1.5, lon: 2.5, span_deg: 7 }, 'Pin 1 placed at 1.5000, 2.5000 - open water. 22 actions left.'),
    ]);
    expect(lines).toEqual([
      'Turn 1: no valid action - No JSON object with an "action" was found in the reply.',
      'Turn 2: no action (the model request failed).',
      'Turn 3: pin(lat=1.5, lon=2.5, span_deg=7) -> Pin 1 placed at 1.5000, 2.5000 - open water.',
    ]);
  });

  it('names the turn that returned the image', () => {
    expect(userText(request({ image: { part: image, kind: 'map', turn: 4 } }))).toContain('the map returned by turn 4');
    expect(request({ image: null })[1]!.content).toEqual(expect.any(String));
  });
});

describe('reading JSON replies', () => {
  const ok = (reply: string, forced = false) => {
    const reading = readJsonReply(reply, { forced });
    if (!reading.ok) throw new Error(`expected an action, got: ${reading.note}`);
    return reading;
  };

  it('prefers a fenced json block over a later bare object', () => {
    const reply = 'Thinking.\n```json\n{"action": "zoom", "fov_deg": 40}\n```\nOr maybe {"action": "look", "heading_deg": 90}';
    expect(ok(reply).action).toEqual({ op: 'zoom', fov_deg: 40 });
  });

  it('takes the last bare object that contains "action"', () => {
    const reply = 'Options: {"action": "look", "heading_deg": 90} then {"note": "x"} and finally {"action": "move", "direction": "backward", "meters": 30}.';
    expect(ok(reply).action).toEqual({ op: 'move', direction: 'backward', meters: 30 });
  });

  it('records the action as the model sent it, beside the clamped wire action', () => {
    const reading = ok('{"action": "place_pin", "latitude": "10", "lon": 20, "span": 900}');
    expect(reading.harnessAction).toEqual({ action: 'place_pin', latitude: '10', lon: 20, span: 900 });
    expect(reading.action).toEqual({ op: 'pin', lat: 10, lon: 20, span_deg: 180 });
  });

  it('keeps the object the model sent when it cannot be used', () => {
    const reading = readJsonReply('{"action": "teleport", "to": "Paris"}', { forced: false });
    expect(reading).toMatchObject({ ok: false, sent: { action: 'teleport', to: 'Paris' } });
  });

  it.each([
    ['place_pin', '{"action": "place_pin", "lat": 1, "lon": 2}', { op: 'pin', lat: 1, lon: 2, span_deg: 7 }],
    ['submit_guess', '{"action": "submit_guess", "lat": 1, "lon": 2}', { op: 'guess', lat: 1, lon: 2 }],
    ['final_guess', '{"action": "final_guess", "latitude": 1, "longitude": 2}', { op: 'guess', lat: 1, lon: 2 }],
    ['reverse_geocode', '{"action": "reverse_geocode", "lat": 1, "lon": 2}', { op: 'view_map', lat: 1, lon: 2, span_deg: 7 }],
    ['turn', '{"action": "turn", "delta_deg": -45}', { op: 'pan', delta_deg: -45 }],
    ['rotate', '{"action": "rotate", "degrees": 90}', { op: 'pan', delta_deg: 90 }],
  ])('reads the alias %s', (_name, reply, action) => {
    expect(ok(reply).action).toEqual(action);
  });

  it.each(['list_pins', 'clear_pins'])('refuses %s with an explanation', (name) => {
    const reading = readJsonReply(`{"action": "${name}"}`, { forced: false });
    expect(reading.ok).toBe(false);
    if (!reading.ok) expect(reading.note).toContain(`${name} is not available here`);
  });

  it('clamps numbers to their ranges and reads quoted numbers', () => {
    expect(ok('{"action": "look", "heading_deg": 9000, "fov_deg": 5, "pitch_deg": "-100"}').action).toEqual({
      op: 'look',
      heading_deg: 3600,
      fov_deg: 10,
      pitch_deg: -90,
    });
    expect(ok('{"action": "move", "meters": 5000}').action).toEqual({ op: 'move', direction: 'forward', meters: 500 });
    expect(ok('{"action": "move", "meters": 0, "direction": "back"}').action).toEqual({ op: 'move', direction: 'backward', meters: 1 });
    expect(ok('{"action": "pin", "lat": 95, "lon": -200, "span_deg": 0.001}').action).toEqual({ op: 'pin', lat: 90, lon: -180, span_deg: 0.1 });
    expect(ok('{"action": "guess", "lat": "48.85", "lon": "2.35"}').action).toEqual({ op: 'guess', lat: 48.85, lon: 2.35 });
  });

  it('forgives trailing commas and reads nested braces in strings', () => {
    expect(ok('```json\n{"action": "pin", "lat": 1, "lon": 2, "label": "a {b}",}\n```').action).toMatchObject({ op: 'pin', label: 'a {b}' });
  });

  it('costs a turn when nothing usable is there', () => {
    expect(readJsonReply('I would look east.', { forced: false })).toEqual({ ok: false, note: NO_ACTION_FOUND });
    expect(readJsonReply('{"action": "fly", "to": "Oslo"}', { forced: false })).toMatchObject({ ok: false, note: expect.stringContaining('Unknown action') });
    expect(readJsonReply('{"action": "pin", "lat": "north"}', { forced: false })).toMatchObject({ ok: false, note: expect.stringContaining('pin needs a number for "lat"') });
    expect(readJsonReply('{"action": "move", "direction": "sideways"}', { forced: false })).toMatchObject({ ok: false });
    expect(readJsonReply('{"action": "look", "heading_deg": 90', { forced: false })).toEqual({ ok: false, note: NO_ACTION_FOUND });
  });

  it('at the turn limit allows only guess, and reads plain coordinates', () => {
    expect(readJsonReply('{"action": "look", "heading_deg": 90}', { forced: true })).toMatchObject({ ok: false, note: expect.stringContaining('Only guess') });
    expect(ok('I am fairly sure: 59.91, 10.75', true).action).toEqual({ op: 'guess', lat: 59.91, lon: 10.75 });
    expect(ok('{"action": "guess", "lat": -33.9, "lon": 18.4}', true).harnessAction).toEqual({ action: 'guess', lat: -33.9, lon: 18.4 });
  });

  it('finds outermost balanced objects in one pass', () => {
    expect(balancedObjects('a {"x": {"y": 1}} b } {"s": "}"} {')).toEqual(['{"x": {"y": 1}}', '{"s": "}"}']);
    expect(extractActionObject("It's {\"action\": \"zoom\", \"fov_deg\": 20}")).toEqual({ action: 'zoom', fov_deg: 20 });
  });
});
