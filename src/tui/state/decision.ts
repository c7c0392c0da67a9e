/**
 * The Player's "debug one decision" panel: `R` retries the selected turn (the same request sent again
 * N times, each reply beside the recorded one) and `F` forks the episode there into Live. Both start
 * with the same small endpoint form. A pure reducer over the typed text, the samples as they arrive,
 * and the words of the summary and request-hash lines; the sending is the hook's
 * (hooks/useDecisionPanel.ts), the work the services' (src/agent/retry.ts, src/agent/fork.ts).
 */
import type { RetrySummary } from '../../agent/retry.js';
import type { LatLon } from '../../core/geodesy.js';
import { formatKm } from '../format.js';
import { endpointFieldsError } from './watch-form.js';

export type DecisionKind = 'retry' | 'fork';

/** The form's text: where the model is served, and (retry) how many samples at which temperature. */
export interface DecisionValues {
  model: string;
  baseUrl: string;
  /** The NAME of the variable with the key; empty: no key is sent. Never the key. */
  apiKeyEnv: string;
  /** Blank: as recorded (the endpoint's default when the record has none). */
  temperature: string;
  samples: string;
}

export type DecisionField = keyof DecisionValues;

export interface DecisionFieldSpec {
  name: DecisionField;
  label: string;
}

const ENDPOINT_FIELDS: readonly DecisionFieldSpec[] = [
  { name: 'model', label: 'model' },
  { name: 'baseUrl', label: 'base URL' },
  { name: 'apiKeyEnv', label: 'API key env var' },
  { name: 'temperature', label: 'temperature' },
];

/** The form's fields in order; the Start button comes after them. */
export function decisionFields(kind: DecisionKind): readonly DecisionFieldSpec[] {
  return kind === 'retry' ? [...ENDPOINT_FIELDS, { name: 'samples', label: 'samples' }] : ENDPOINT_FIELDS;
}

export const DEFAULT_SAMPLES = 5;
/** More would be a sweep, not a look at one decision. */
export const MAX_SAMPLES = 20;

/** One reply to the turn's request, recorded or sampled again, as the panel shows it. */
export interface SampleView {
  /** The action the reply chose (look, pin, guess, ...); null when it held none. */
  action: string | null;
  /** The action's arguments as one line: `heading_deg=90, fov_deg=30`. */
  arguments: string;
  reasoning: string | null;
  /** Output tokens; null when the endpoint did not say. */
  tokens: number | null;
  latencyS: number | null;
  guess: readonly [number, number] | null;
  /** From the guess to the truth. */
  distanceKm: number | null;
  /** Why there is no reply (the endpoint refused, timed out, ...): one line. */
  error?: string | null;
}

/** The samples' summary, as the retry service counts it. */
export type SampleSummary = RetrySummary;

/** Whether the request rebuilt from the record is the one the model was sent (its sha256). */
export interface RequestCheck {
  sha256: string;
  recordedSha256: string | null;
  /** What differs, in words, when the hashes do not match. */
  differences: readonly string[];
}

/** What the panel learns before anything is sent: the form's first values and, for a retry, the request. */
export interface DecisionPreparation {
  values: Omit<DecisionValues, 'samples'>;
  /** Retry only. */
  check?: RequestCheck;
  recorded?: SampleView;
  /** The episode's guess and truth, for the map of the samples' guesses. */
  truth?: LatLon | null;
  guess?: LatLon | null;
}

/** The form, checked: what the services are handed. */
export interface DecisionRequest {
  model: string;
  baseUrl: string;
  apiKeyEnv: string;
  /** Null: as recorded (the endpoint's default when the record has none). */
  temperature: number | null;
  samples: number;
}

export type DecisionPhase =
  /** The prefill (and the rebuilt request) are being read. */
  | 'loading'
  | 'editing'
  /** Retry: the samples are on their way. Fork: the endpoint is being checked. */
  | 'sending'
  /** Retry: every sample came back; Start sends again. */
  | 'done'
  /** Nothing can be sent for this turn (its images are gone, ...): `error` says why; Esc closes. */
  | 'unavailable';

export interface DecisionState {
  readonly kind: DecisionKind;
  /** The turn's number in the record. */
  readonly turn: number;
  readonly phase: DecisionPhase;
  readonly values: DecisionValues;
  /** Fields in order, then Start; prefilled, the form opens on Start so Enter sends. */
  readonly focus: number;
  /** One line: what is wrong with a field (`field`) or with the whole (missing images, endpoint down). */
  readonly error: { field: DecisionField | null; message: string } | null;
  readonly check: RequestCheck | null;
  readonly recorded: SampleView | null;
  readonly truth: LatLon | null;
  readonly guess: LatLon | null;
  /** By sample index; null until that sample arrives. */
  readonly samples: readonly (SampleView | null)[];
  readonly summary: SampleSummary | null;
}

export type DecisionAction =
  | { type: 'prepared'; preparation: DecisionPreparation }
  /** The panel cannot work on this turn at all (no images to rebuild from, ...). */
  | { type: 'unavailable'; message: string }
  | { type: 'move'; delta: number }
  | { type: 'type'; text: string }
  | { type: 'erase' }
  | { type: 'sending'; samples: number }
  | { type: 'sample'; index: number; sample: SampleView }
  | { type: 'finished'; samples: readonly SampleView[]; summary: SampleSummary }
  /** The send stopped without a result: the form is editable again, with the error (if any) shown. */
  | { type: 'stopped'; error: { field: DecisionField | null; message: string } | null };

export function initialDecision(kind: DecisionKind, turn: number): DecisionState {
  return {
    kind,
    turn,
    phase: 'loading',
    values: { model: '', baseUrl: '', apiKeyEnv: '', temperature: '', samples: String(DEFAULT_SAMPLES) },
    focus: 0,
    error: null,
    check: null,
    recorded: null,
    truth: null,
    guess: null,
    samples: [],
    summary: null,
  };
}

/** The focus position of the Start button. */
export function startPosition(state: DecisionState): number {
  return decisionFields(state.kind).length;
}

export function decisionReducer(state: DecisionState, action: DecisionAction): DecisionState {
  switch (action.type) {
    case 'prepared': {
      const { preparation: p } = action;
      return {
        ...state,
        phase: 'editing',
        values: { ...p.values, samples: state.values.samples },
        check: p.check ?? null,
        recorded: p.recorded ?? null,
        truth: p.truth ?? null,
        guess: p.guess ?? null,
        focus: startPosition(state),
      };
    }
    case 'unavailable':
      return { ...state, phase: 'unavailable', error: { field: null, message: action.message } };
    case 'sending':
      return { ...state, phase: 'sending', error: null, samples: Array.from({ length: action.samples }, () => null), summary: null };
    case 'sample': {
      if (state.phase !== 'sending') return state;
      const samples = [...state.samples];
      samples[action.index] = action.sample;
      return { ...state, samples };
    }
    case 'finished':
      return state.phase === 'sending' ? { ...state, phase: 'done', samples: action.samples, summary: action.summary } : state;
    case 'stopped':
      if (state.phase === 'unavailable') return state;
      return { ...state, phase: 'editing', error: action.error, focus: positionOf(state, action.error?.field) ?? state.focus };
  }
  // The form is only edited while it is a form: a retry that came back can be sent again (Start).
  if (state.phase !== 'editing' && state.phase !== 'done') return state;
  switch (action.type) {
    case 'move':
      return { ...state, focus: Math.max(0, Math.min(startPosition(state), state.focus + action.delta)) };
    case 'type': {
      // A paste arrives one key at a time, line breaks included: they are not text.
      // eslint-disable-next-line no-control-regex
      const text = action.text.replace(/[\x00-\x1f\x7f]/g, '');
      return edit(state, (value) => value + text);
    }
    case 'erase':
      return edit(state, (value) => value.slice(0, -1));
  }
}

function edit(state: DecisionState, change: (value: string) => string): DecisionState {
  const field = decisionFields(state.kind)[state.focus];
  if (!field) return state;
  const value = change(state.values[field.name]);
  if (value === state.values[field.name]) return state;
  return { ...state, values: { ...state.values, [field.name]: value }, error: null };
}

function positionOf(state: DecisionState, field: DecisionField | null | undefined): number | undefined {
  const at = decisionFields(state.kind).findIndex((f) => f.name === field);
  return at < 0 ? undefined : at;
}

/** The request the form describes, or the first field that is wrong and what to type instead. */
export function checkDecisionForm(
  kind: DecisionKind,
  values: DecisionValues,
): { ok: true; request: DecisionRequest } | { ok: false; field: DecisionField; message: string } {
  const v = Object.fromEntries(Object.entries(values).map(([k, text]) => [k, text.trim()])) as unknown as DecisionValues;
  const wrong = (field: DecisionField, message: string) => ({ ok: false as const, field, message });
  const endpointError = endpointFieldsError(v);
  if (endpointError) return { ok: false, ...endpointError };
  const temperature = v.temperature === '' ? null : Number(v.temperature);
  if (temperature !== null && !(Number.isFinite(temperature) && temperature >= 0 && temperature <= 2)) {
    return wrong('temperature', `temperature must be a number from 0 to 2 (blank: as recorded), got "${v.temperature}"`);
  }
  let samples = 1;
  if (kind === 'retry') {
    samples = Number(v.samples);
    if (!/^\d+$/.test(v.samples) || samples < 1 || samples > MAX_SAMPLES) {
      return wrong('samples', `samples must be a whole number from 1 to ${MAX_SAMPLES}, got "${v.samples}"`);
    }
  }
  return { ok: true, request: { model: v.model, baseUrl: v.baseUrl, apiKeyEnv: v.apiKeyEnv, temperature, samples } };
}

/** Which turns `R` and `F` take: a model's turn, not the reset. Null when the turn is one; else why not. */
export function decisionTurnProblem(turns: readonly { turn: number; model?: unknown }[], position: number): string | null {
  const turn = turns[position];
  const modelTurns = turns.filter((t) => t.turn > 0 && t.model).map((t) => t.turn);
  if (turn && turn.turn > 0 && turn.model) return null;
  const which = modelTurns.length ? `turns ${rangeText(modelTurns)}` : 'none: no turn of this episode was played by a model';
  return `${turn?.turn === 0 ? 'Turn 0 is the reset' : `Turn ${turn?.turn ?? '?'} has no model reply`}: a model's turn can be retried or forked (${which}).`;
}

function rangeText(turns: readonly number[]): string {
  const first = turns[0]!;
  const last = turns[turns.length - 1]!;
  const contiguous = last - first + 1 === turns.length;
  return contiguous && turns.length > 2 ? `${first}–${last}` : turns.join(', ');
}

/** "3 of 5 chose look, the recorded action · 2 guesses 120 km apart at most, 80 km from the truth on average". */
export function summaryText(summary: SampleSummary): string {
  const { samples, sameAction, recordedAction, guesses, spreadKm, meanDistanceKm } = summary;
  const parts = [
    recordedAction
      ? `${sameAction} of ${samples} chose ${recordedAction}, the recorded action`
      : `${samples} sample${samples === 1 ? '' : 's'}; the recorded reply chose no action`,
  ];
  if (guesses > 0) {
    const spread = guesses > 1 && spreadKm !== null ? `, spread ${formatKm(spreadKm)}` : '';
    const mean = meanDistanceKm !== null ? `, mean ${formatKm(meanDistanceKm)} to the truth` : '';
    parts.push(`${guesses} guess${guesses === 1 ? '' : 'es'}${spread}${mean}`);
  }
  return parts.join(' · ');
}

/** The request-hash line: whether the request sent again is the one the model was sent. */
export function checkText(check: RequestCheck): { tone: 'ok' | 'warn' | 'muted'; text: string } {
  const short = check.sha256.slice(0, 12);
  if (check.recordedSha256 === null) return { tone: 'muted', text: `request sha256 ${short}… · no recorded hash: the record cannot say whether it matches` };
  if (check.recordedSha256 === check.sha256) return { tone: 'ok', text: `request sha256 ${short}… matches the recorded one` };
  const why = check.differences.length ? check.differences.join('; ') : 'the hashes differ';
  return { tone: 'warn', text: `request differs from the recorded one (${short}… vs ${check.recordedSha256.slice(0, 12)}…): ${why}` };
}

/** The guesses of the samples that came back, in sample order, for the map. */
export function sampleGuesses(state: DecisionState): LatLon[] {
  return state.samples.flatMap((s) => (s?.guess ? [{ lat: s.guess[0], lon: s.guess[1] }] : []));
}

/** The Player's panel: closed (null) or open on one turn. */
export type DecisionPanelAction = DecisionAction | { type: 'open'; kind: DecisionKind; turn: number } | { type: 'close' };

export function decisionPanelReducer(state: DecisionState | null, action: DecisionPanelAction): DecisionState | null {
  if (action.type === 'open') return initialDecision(action.kind, action.turn);
  if (action.type === 'close') return null;
  return state ? decisionReducer(state, action) : null;
}
