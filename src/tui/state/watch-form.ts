/**
 * The "Watch a model" form: which model to watch, where it is served, and on which task. A pure
 * reducer over the typed text, and the check that turns the text into a request (or names the field
 * that is wrong). The endpoint check and the start are the container's (hooks/useWatchForm.ts).
 */
import { apiKeyEnvProblem, baseUrlProblem, PROTOCOLS } from '../../agent/agent-settings.js';
import type { Protocol } from '../../agent/policies/model.js';
import { withFocusedEdited, type FieldEdit } from './form-fields.js';

/** What the form remembers between runs: no secret, only the NAME of the key's variable. */
export interface WatchSettings {
  model: string;
  baseUrl: string;
  /** Empty: no key is sent (a local vLLM needs none). */
  apiKeyEnv: string;
  protocol: Protocol;
  split: string;
}

/** A checked form: the settings and the task (null: a random task of the split). */
export interface WatchRequest extends WatchSettings {
  task: number | null;
}

export type WatchField = keyof WatchRequest;

export interface FieldSpec {
  name: WatchField;
  label: string;
  /** A choice field cycles through these instead of taking typed text. */
  choices?: readonly string[];
}

export const WATCH_FIELDS: readonly FieldSpec[] = [
  { name: 'model', label: 'model' },
  { name: 'baseUrl', label: 'base URL' },
  { name: 'apiKeyEnv', label: 'API key env var' },
  { name: 'protocol', label: 'protocol', choices: PROTOCOLS },
  { name: 'split', label: 'split' },
  { name: 'task', label: 'task index' },
];

/** Focus positions are the fields in order, then the Start button. */
export const START_POSITION = WATCH_FIELDS.length;

export type WatchValues = Record<WatchField, string>;

export interface FormError {
  /** The field at fault; null for what is nobody's typing (the endpoint is down). */
  field: WatchField | null;
  message: string;
}

export interface WatchFormState {
  /** loading: the prefill is being read; checking: the endpoint is being asked. */
  phase: 'loading' | 'editing' | 'checking';
  values: WatchValues;
  focus: number;
  error: FormError | null;
}

export type WatchFormAction =
  | { type: 'prefilled'; settings: WatchSettings }
  | { type: 'move'; delta: number }
  | FieldEdit
  | { type: 'checking' }
  /** The check ended without a start: the form is editable again, with the error (if any) shown. */
  | { type: 'stopped'; error: FormError | null };

export function initialWatchForm(): WatchFormState {
  return {
    phase: 'loading',
    values: { model: '', baseUrl: '', apiKeyEnv: '', protocol: 'tools', split: '', task: '' },
    focus: 0,
    error: null,
  };
}

export function focusedField(state: WatchFormState): FieldSpec | undefined {
  return WATCH_FIELDS[state.focus];
}

export function watchFormReducer(state: WatchFormState, action: WatchFormAction): WatchFormState {
  switch (action.type) {
    case 'prefilled':
      return { ...state, phase: 'editing', values: { ...action.settings, task: '' } };
    case 'checking':
      return { ...state, phase: 'checking', error: null };
    case 'stopped':
      return { ...state, phase: 'editing', error: action.error, focus: positionOf(action.error?.field) ?? state.focus };
  }
  // Nothing changes under a running check: what is being checked is what is shown.
  if (state.phase !== 'editing') return state;
  switch (action.type) {
    case 'move':
      return { ...state, focus: Math.max(0, Math.min(START_POSITION, state.focus + action.delta)) };
    case 'type':
    case 'erase':
    case 'choose':
      return withFocusedEdited(state, focusedField(state), action);
  }
}

function positionOf(field: WatchField | null | undefined): number | undefined {
  const at = WATCH_FIELDS.findIndex((f) => f.name === field);
  return at < 0 ? undefined : at;
}

/**
 * The endpoint's fields of a form (this one, the Player's retry and fork form): the first that is
 * wrong and what to type instead, or null.
 */
export function endpointFieldsError(v: { model: string; baseUrl: string; apiKeyEnv: string }): { field: 'model' | 'baseUrl' | 'apiKeyEnv'; message: string } | null {
  if (!v.model) return { field: 'model', message: 'model: type the name the endpoint lists at /v1/models' };
  if (!v.baseUrl) return { field: 'baseUrl', message: 'base URL: type the endpoint, e.g. http://127.0.0.1:8000/v1' };
  const urlProblem = baseUrlProblem(v.baseUrl);
  if (urlProblem) return { field: 'baseUrl', message: `base URL ${urlProblem}` };
  // The text is probably a key: not echoed back.
  const nameProblem = v.apiKeyEnv ? apiKeyEnvProblem(v.apiKeyEnv) : null;
  return nameProblem ? { field: 'apiKeyEnv', message: `API key env var ${nameProblem}` } : null;
}

/** The request the text describes, or the first field that is wrong and what to type instead. */
export function checkWatchForm(values: WatchValues): { ok: true; request: WatchRequest } | ({ ok: false } & FormError) {
  const v = Object.fromEntries(Object.entries(values).map(([k, text]) => [k, text.trim()])) as WatchValues;
  const wrong = (field: WatchField, message: string) => ({ ok: false as const, field, message });
  const endpointError = endpointFieldsError(v);
  if (endpointError) return { ok: false, ...endpointError };
  if (!(PROTOCOLS as readonly string[]).includes(v.protocol)) return wrong('protocol', `protocol must be ${PROTOCOLS.join(' or ')}`);
  if (!v.split) return wrong('split', 'split: type a split name, e.g. eval');
  if (v.task && !/^\d+$/.test(v.task)) {
    return wrong('task', `task index must be a whole number from 0 (blank: a random task), got "${v.task}"`);
  }
  return {
    ok: true,
    request: {
      model: v.model,
      baseUrl: v.baseUrl,
      apiKeyEnv: v.apiKeyEnv,
      protocol: v.protocol as Protocol,
      split: v.split,
      task: v.task ? Number(v.task) : null,
    },
  };
}
