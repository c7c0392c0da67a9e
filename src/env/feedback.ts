/**
 * Every sentence the environment says to an agent (docs/protocol.md): the opening prompt, tool
 * descriptions and each action's feedback. The quoted fixed phrases ("N actions left.", "Out of
 * actions.", "The episode is over", "Pin k placed at LAT, LON - ", "No usable guess.", "Scored 0.",
 * "Finish with submit_guess.") are matched by harnesses and tests: change them only together.
 *
 * Nothing here is given the truth before the guess: place descriptions take a located point the
 * agent chose, and only the guess feedback receives the true location.
 */
import { compass8 } from '../core/geodesy.js';
import type { ScoredGuess } from '../core/scoring.js';
import type { Location, Place } from '../geo/index.js';
import { COST_HUNDREDTHS } from './action-facts.js';
import type { McpToolName } from './actions.js';
import type { Camera, PinView } from './types.js';

export const OUT_OF_ACTIONS = 'Out of actions.';
export const EPISODE_OVER = 'The episode is over';
export const NO_USABLE_GUESS = 'No usable guess.';
export const SCORED_ZERO = 'Scored 0.';
export const FINISH_WITH = 'Finish with submit_guess.';

/**
 * Always the plural: harnesses replace "N actions left" with their own count by pattern, and a
 * grammatical "1 action left" would slip past them and contradict their budget.
 */
export function actionsLeft(stepsRemaining: number): string {
  return `${stepsRemaining} actions left.`;
}

/** What a costed action ends with: the budget, or the end of the episode when it spent the last step. */
export function budgetTail(stepsRemaining: number): string {
  return stepsRemaining > 0 ? actionsLeft(stepsRemaining) : `${OUT_OF_ACTIONS} No guess was made, so the episode scores 0.`;
}

// ---------------------------------------------------------------------------------------------
// Opening prompt and tools

/** One sentence per MCP tool, with its cost (the prompt and tools/list share them). */
export function toolDescriptions(freeMeasures: number): Record<McpToolName, string> {
  const cost = (op: keyof typeof COST_HUNDREDTHS) => `Costs ${money(COST_HUNDREDTHS[op])} and one action.`;
  return {
    look:
      'Face a compass heading (0 north, 90 east), tilt (positive looks up) and field of view, and see the view. ' +
      cost('look'),
    pan: `Turn by a number of degrees (positive turns right) and see the view. ${cost('pan')}`,
    zoom: `Set the field of view (10 to 120 degrees; smaller zooms in) and see the view. ${cost('zoom')}`,
    move:
      'Walk forward or backward along the captured road (up to 500 m) and see the view there. ' +
      `${cost('move')} Charged even at a dead end.`,
    place_pin:
      'Drop a numbered pin on a map and hear which place the pin is in; it says nothing about whether you are right. ' +
      cost('pin'),
    view_map: `See a map centred anywhere, without placing a pin. ${cost('view_map')}`,
    list_pins: 'List your pins with the place each is in. Free.',
    clear_pins: 'Remove all your pins (their cost is not refunded). Free.',
    measure:
      'Great-circle distance in km between two points you give. ' +
      `Free for the first ${freeMeasures} calls, then ${money(COST_HUNDREDTHS.measure)} and one action.`,
    reverse_geocode: 'Name the country and nearest major city of a point you give. Free.',
    submit_guess: 'Submit your final latitude and longitude; this ends the episode and scores it. Free.',
  };
}

/** The reset prompt (docs/protocol.md): task, tools, budget, what pins mean, how to finish. Truth-free. */
export function openingPrompt(maxSteps: number, freeMeasures: number): string {
  const tools = Object.entries(toolDescriptions(freeMeasures)).map(([name, description]) => `- ${name}: ${description}`);
  return [
    'You are standing somewhere on Earth in a street-level panorama. Work out where you are.',
    'You face true north (heading 0) with a 90° field of view. Tools:',
    ...tools,
    'A pin tells you only what place the pin itself is in: it says nothing about whether you are right.',
    `You have ${maxSteps} actions. Running out of actions without a guess scores 0.`,
    'Your score falls with the distance of your guess, less the cost of your actions.',
    FINISH_WITH,
  ].join('\n');
}

/** The reset observation's feedback. */
export function episodeStarted(maxSteps: number): string {
  return `You have ${maxSteps} actions.`;
}

// ---------------------------------------------------------------------------------------------
// Camera and movement

export function lookFeedback(camera: Camera): string {
  return `Facing ${facing(camera.headingDeg)}, pitch ${deg(camera.pitchDeg)}, field of view ${deg(camera.fovDeg)}.`;
}

export function panFeedback(deltaDeg: number, camera: Camera): string {
  const turn = deltaDeg === 0 ? 'Did not turn' : `Turned ${deg(Math.abs(deltaDeg))} ${deltaDeg > 0 ? 'right' : 'left'}`;
  return `${turn}; now facing ${facing(camera.headingDeg)}.`;
}

export function zoomFeedback(camera: Camera): string {
  return `Field of view now ${deg(camera.fovDeg)}, facing ${facing(camera.headingDeg)}.`;
}

export interface MoveReport {
  direction: 'forward' | 'backward';
  movedMeters: number;
  totalMovedMeters: number;
  /** No further frame in that direction after the move. */
  atEnd: boolean;
}

export function moveFeedback({ direction, movedMeters, totalMovedMeters, atEnd }: MoveReport): string {
  const total = `${metres(totalMovedMeters)} moved in total`;
  if (movedMeters === 0 && atEnd) {
    return `Dead end: the captured road ends here going ${direction}, so you did not move (${total}).`;
  }
  const end = atEnd ? `; the captured road ends here going ${direction}` : '';
  return `Moved ${metres(movedMeters)} ${direction}${end} (${total}).`;
}

// ---------------------------------------------------------------------------------------------
// Pins, maps and places (always the agent's own point)

/** "Austria (Western Europe), ~35 km SW of Innsbruck" or "open water, ~812 km SE of Honolulu". */
export function describePlace(location: Location): string {
  const city = location.nearestCity;
  return `${placeName(location)}, ~${km(city.distanceKm)} ${city.bearing} of ${city.name}`;
}

/** "Japan (Eastern Asia)", "Japan (Eastern Asia), 3.2 km offshore" or "open water". */
function placeName(place: Place): string {
  if (place.country === null) return 'open water';
  const region = place.subregion ? ` (${place.subregion})` : '';
  const offshore = place.offshoreKm ? `, ${km(place.offshoreKm)} offshore` : '';
  return `${place.country}${region}${offshore}`;
}

export function pinFeedback(
  pin: { index: number; lat: number; lon: number; description: string },
  previous: { index: number; distanceKm: number } | null,
): string {
  const fromPrevious = previous ? ` ${km(previous.distanceKm)} from pin ${previous.index}.` : '';
  return `Pin ${pin.index} placed at ${latLon(pin.lat, pin.lon)} - ${pin.description}.${fromPrevious}`;
}

export function viewMapFeedback(lat: number, lon: number, spanDeg: number, place: Place): string {
  const where = place.country ?? 'open water';
  return `Map centred at ${latLon(lat, lon)} - ${where}; ${trim(2 * spanDeg)}° wide.`;
}

export function reverseGeocodeFeedback(lat: number, lon: number, description: string): string {
  return `${latLon(lat, lon)} - ${description}.`;
}

export function listPinsFeedback(pins: readonly PinView[]): string {
  if (pins.length === 0) return 'No pins.';
  const lines = pins.map(
    (p) => `Pin ${p.index} at ${latLon(p.lat, p.lon)}${p.label ? ` "${p.label}"` : ''} - ${p.description}.`,
  );
  return lines.join('\n');
}

export function clearPinsFeedback(cleared: number): string {
  if (cleared === 0) return 'There were no pins to clear.';
  return `Cleared ${cleared} pin${cleared === 1 ? '' : 's'} (their cost is not refunded).`;
}

export type MeasureBilling = 'free' | 'last_free' | 'paid';

export function measureFeedback(
  a: { lat: number; lon: number },
  b: { lat: number; lon: number },
  distanceKm: number,
  billing: MeasureBilling,
  freeMeasures: number,
): string {
  const result = `From ${latLon(a.lat, a.lon)} to ${latLon(b.lat, b.lon)}: ${km(distanceKm)}.`;
  const cost = `${money(COST_HUNDREDTHS.measure)} and one action`;
  if (billing === 'last_free') return `${result} That was the last of ${freeMeasures} free measures; more cost ${cost} each.`;
  if (billing === 'paid') return `${result} The free measures are spent: this one cost ${cost}.`;
  return result;
}

// ---------------------------------------------------------------------------------------------
// The end

export interface GuessReport {
  guess: { lat: number; lon: number };
  truth: { lat: number; lon: number };
  trueCountry: string | null;
  scored: ScoredGuess;
  reward: number;
}

export function guessFeedback({ guess, truth, trueCountry, scored, reward }: GuessReport): string {
  return (
    `${scored.verdict}: your guess ${latLon(guess.lat, guess.lon)} is ${km(scored.distance_km ?? 0)} from the true location ` +
    `${trueLocation(truth, trueCountry)}. Score ${fixed(scored.score)} (${scored.points.toLocaleString('en-US')} points), ` +
    `cost ${money(Math.round(scored.cost * 100))}, reward ${fixed(reward)}.`
  );
}

export function unusableGuessFeedback(
  note: string,
  guidance: string,
  truth: { lat: number; lon: number },
  trueCountry: string | null,
): string {
  return `${NO_USABLE_GUESS} ${note} ${guidance}. ${SCORED_ZERO} The true location was ${trueLocation(truth, trueCountry)}.`;
}

export function episodeOverFeedback(): string {
  return `${EPISODE_OVER}: nothing more can be done in it. Reset to start a new episode.`;
}

function trueLocation(truth: { lat: number; lon: number }, country: string | null): string {
  return `${latLon(truth.lat, truth.lon)} (${country ?? 'open water'})`;
}

// ---------------------------------------------------------------------------------------------
// Numbers as the agent reads them

function latLon(lat: number, lon: number): string {
  return `${lat.toFixed(4)}, ${lon.toFixed(4)}`;
}

/** Whole degrees unless a fraction was asked for: "90°", "12.5°". */
function deg(value: number): string {
  return `${trim(value)}°`;
}

function facing(headingDeg: number): string {
  return `${deg(headingDeg)} (${compass8(headingDeg)})`;
}

function km(value: number): string {
  return `${value < 10 ? trim(value, 2) : value < 100 ? trim(value, 1) : Math.round(value).toLocaleString('en-US')} km`;
}

function metres(value: number): string {
  return `${Math.round(value)} m`;
}

function money(hundredths: number): string {
  return (hundredths / 100).toFixed(2);
}

function fixed(value: number): string {
  return value.toFixed(4);
}

/** At most `digits` decimals, without trailing zeros. */
function trim(value: number, digits = 1): string {
  return String(Number(value.toFixed(digits)));
}

/**
 * The environment's budget sentence ("23 actions left."). A harness tells the model one budget only,
 * its own (docs/protocol.md, docs/training.md), so this is cut from every feedback before the model sees it.
 */
const ENV_BUDGET = /\s*\b\d+ actions? left\./g;

export function withoutEnvBudget(feedback: string): string {
  return feedback.replace(ENV_BUDGET, '').trim();
}
