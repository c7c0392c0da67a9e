/** What a person's keys do in the environment (docs/tui.md): pure maps from a key command to a wire action. */
import { EMPTY_REPLY, NO_COORDINATES, parseGuess } from '../../core/parse-guess.js';
import type { Action, Observation } from '../../env/types.js';
import type { Command } from '../keys.js';
import type { PromptPurpose } from '../state/live.js';

export const PAN_STEP_DEG = 45;
export const WALK_STEP_M = 15;
/** `z` cycles the field of view through these, wide to narrow, then back to wide. */
export const FOV_CYCLE_DEG = [90, 50, 30] as const;

export type PersonMove = { kind: 'act'; action: Action } | { kind: 'prompt'; purpose: PromptPurpose } | { kind: 'notice'; message: string };

/** The move a person's command asks for, given the current observation; null for a command that is not a move. */
export function personMove(command: Command, observation: Observation | null): PersonMove | null {
  const act = (action: Action): PersonMove => ({ kind: 'act', action });
  switch (command) {
    case 'person.panLeft':
      return act({ op: 'pan', delta_deg: -PAN_STEP_DEG });
    case 'person.panRight':
      return act({ op: 'pan', delta_deg: PAN_STEP_DEG });
    case 'person.forward':
      return act({ op: 'move', direction: 'forward', meters: WALK_STEP_M });
    case 'person.backward':
      return act({ op: 'move', direction: 'backward', meters: WALK_STEP_M });
    case 'person.zoom':
      return act({ op: 'zoom', fov_deg: nextFov(observation?.fov_deg ?? FOV_CYCLE_DEG[0]) });
    case 'person.look':
      return act({
        op: 'look',
        heading_deg: observation?.heading_deg ?? 0,
        pitch_deg: observation?.pitch_deg ?? 0,
        fov_deg: observation?.fov_deg ?? FOV_CYCLE_DEG[0],
      });
    case 'person.map': {
      const pin = observation?.pins[observation.pins.length - 1];
      return pin ? act({ op: 'view_map', lat: pin.lat, lon: pin.lon }) : { kind: 'notice', message: 'No pin yet: p places one.' };
    }
    case 'person.pin':
      return { kind: 'prompt', purpose: 'pin' };
    case 'person.guess':
      return { kind: 'prompt', purpose: 'guess' };
    default:
      return null;
  }
}

/** The next field of view in the cycle: the first narrower than the current one, else the widest. */
export function nextFov(fovDeg: number): number {
  return FOV_CYCLE_DEG.find((fov) => fov < fovDeg - 0.5) ?? FOV_CYCLE_DEG[0];
}

/** The prompt's text as a pin or guess action, or the parser's note when it holds no coordinates. */
export function promptAction(purpose: PromptPurpose, text: string): { ok: true; action: Action } | { ok: false; message: string } {
  const parsed = parseGuess(text);
  if (!parsed.ok) {
    // The parser speaks of a model's reply; a person typed a line. A value out of range keeps its note.
    const why =
      parsed.note === EMPTY_REPLY ? 'Nothing typed.' : parsed.note === NO_COORDINATES ? `No latitude and longitude in "${text.trim()}".` : parsed.note;
    return { ok: false, message: `${why} Type "lat, lon", e.g. 47.1, 10.2.` };
  }
  return { ok: true, action: { op: purpose, lat: parsed.lat, lon: parsed.lon } };
}
