import { describe, expect, it } from 'vitest';
import type { Turn } from '../../src/core/episode.js';
import { formatBudget, modelText, requestLines, requestOf, toolCallTexts, turnBudget } from '../../src/tui/turn-text.js';

const turnWith = (turn: number, fields: Record<string, unknown>): Turn => ({ turn, ...fields }) as Turn;

describe('the budget a turn told the model', () => {
  const told = (prompt: string) => {
    const turns = [turnWith(0, { steps_remaining: 24 }), turnWith(1, { prompt, steps_remaining: 23 })];
    const budget = turnBudget(turns, 1, { max_turns: 12 });
    return budget.told ? formatBudget(budget.told) : null;
  };

  it('reads the last budget sentence of each protocol and of the harness', () => {
    expect(told('Facing 90°. 23 actions left. 11 tool calls left.')).toBe('11 tool calls left');
    expect(told('Pin placed. 1 tool call left: THIS IS YOUR FINAL ACTION. Guess now.')).toBe('1 tool call left');
    expect(told('You have no tool calls left. Call guess now.')).toBe('0 tool calls left');
    expect(told('Turn 10 of 12: 3 turns left, this one included.')).toBe('3 turns left');
    expect(told('WARNING: only 2 turn(s) left. You must reply with a guess now.')).toBe('2 turns left');
    expect(told('You have 12 tool calls. The episode scores 0 unless you call guess.')).toBe('12 tool calls left');
    expect(told('You have 9 turns left. Each turn, reply with one JSON object.')).toBe('9 turns left');
  });

  it("never takes the environment's count for the model's", () => {
    // Neither sentence is the harness's: the count comes from max_turns (12, before turn 1).
    expect(told('Facing 90°. 23 actions left. 23 actions remain.')).toBe('12 turns left');
  });

  it("ignores what the model itself wrote in earlier replies", () => {
    const messages = [
      { role: 'user', content: 'You have 12 tool calls.' },
      { role: 'assistant', content: 'I still have 40 turns left.' },
    ];
    const budget = turnBudget([turnWith(0, {}), turnWith(2, { messages })], 1, null);
    expect(budget.told).toEqual({ left: 12, unit: 'tool call', stated: true });
  });

  it("counts from max_turns when nothing is stated, in the protocol's unit, beside the environment's count before the turn", () => {
    const turns = [turnWith(0, { steps_remaining: 24 }), turnWith(1, { steps_remaining: 23 }), turnWith(2, { steps_remaining: 22 })];
    expect(turnBudget(turns, 2, { max_turns: 12, protocol: 'tools' })).toEqual({ told: { left: 11, unit: 'tool call', stated: false }, environment: 23 });
    expect(turnBudget(turns, 0, { max_turns: 12, prompt_version: 'v2' })).toEqual({ told: { left: 12, unit: 'turn', stated: false }, environment: 24 });
    expect(turnBudget(turns, 1, null).told).toBeNull();
  });
});

describe('the model text and its tool calls', () => {
  const calls = [{ id: 'c1', type: 'function', function: { name: 'zoom', arguments: '{"fov_deg": 30}' } }];

  it('keeps tool-call JSON out of the text', () => {
    expect(modelText({ reasoning: 'Plates look Italian.', reply: JSON.stringify(calls) })).toBe('Plates look Italian.');
    expect(toolCallTexts({ reply: JSON.stringify(calls) }, 3)).toEqual(['zoom(fov_deg=30)']);
    expect(toolCallTexts({ reply: 'zoom in', tool_calls: calls }, 3)).toEqual(['zoom(fov_deg=30)']);
    expect(modelText({ reply: '[1, 2] are my two candidates' })).toBe('[1, 2] are my two candidates');
  });
});

describe('the request lines', () => {
  it('mark who wrote each message and fit the width', () => {
    const request = requestOf(
      turnWith(2, {
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'The image is your view.' }, { type: 'image', sha256: 'cd'.repeat(32), mime: 'image/png' }] },
          { role: 'assistant', content: '', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'look', arguments: { heading_deg: 90 } } }] },
        ],
      }),
    )!;
    const lines = requestLines(request, 40);
    expect(lines.map((l) => l.tone)).toEqual(['harnessHead', 'harness', 'image', 'modelHead', 'model']);
    expect(lines[2]!.text).toBe(`[image sha256 ${'cd'.repeat(6)}… image/png]`);
    expect(lines[4]!.text).toBe('▌ tool call: look(heading_deg=90)');
    for (const line of lines) expect(line.text.length).toBeLessThanOrEqual(40);
    expect(requestOf(turnWith(0, {}))).toBeNull();
  });
});
