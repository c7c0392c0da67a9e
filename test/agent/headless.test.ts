import { describe, expect, it } from 'vitest';
import { outcomeLine, turnLine } from '../../src/agent/headless.js';
import type { FailedEpisode, Turn } from '../../src/core/episode.js';
import { ABORTED_ERROR } from '../../src/store/episode-state.js';

/** A recorded turn with only what the printer reads. */
function turn(fields: Partial<Turn>): Turn {
  return { turn: 3, status: 'ok', feedback: '', action_cost: 0.25, ...fields } as Turn;
}

describe('the headless printer on its own, without running an episode', () => {
  it('prints the executed action, else the sent one, else the status, and elides long feedback visibly', () => {
    const executed = turn({ action: { action: 'look', heading: 90 }, wire_action: { op: 'look', heading_deg: 90, pitch_deg: 0, fov_deg: 30 } });
    expect(turnLine(executed)).toBe('turn  3  look(heading_deg=90, pitch_deg=0, fov_deg=30)    cost 0.25');
    const forced = turn({ turn: 13, action: { action: 'forced_guess' }, wire_action: { op: 'guess', response: '' }, feedback: 'No guess.' });
    expect(turnLine(forced)).toBe('turn 13  forced_guess()  No guess.  cost 0.25');
    expect(turnLine(turn({ status: 'provider_error', action: undefined }))).toBe('turn  3  [provider error]    cost 0.25');
    const long = turnLine(turn({ action: { action: 'guess', lat: 1, lon: 2 }, feedback: `${'word '.repeat(40)}\n end` }));
    expect(long).toMatch(/^turn {2}3 {2}guess\(lat=1, lon=2\) {2}(word ){19}wo\.\.\. {2}cost 0\.25$/);
  });

  it('prints a failed or aborted episode as its state and error', () => {
    const failed = { error: 'environment EXECUTION_ERROR: gone', turns: [] } as unknown as FailedEpisode;
    expect(outcomeLine(failed)).toBe('failed  environment EXECUTION_ERROR: gone');
    expect(outcomeLine({ ...failed, error: ABORTED_ERROR })).toBe(`aborted  ${ABORTED_ERROR}`);
  });
});
