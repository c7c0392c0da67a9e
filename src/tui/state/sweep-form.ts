/**
 * The Eval board's "new sweep" form (`n`): which model(s), on which split, how many samples per
 * task, how many tasks, how many in flight and into which folder. A pure reducer over the typed text,
 * and the check that turns the text into the sweep's settings as `geolab eval run` takes them as
 * flags (src/eval/run/options.ts reads both), or names the field that is wrong. The start is the
 * board's service (src/tui/eval/service.ts); the endpoint fields are checked as the Watch form's are.
 */
import { DEFAULT_PASSES, SWEEP_RANGES, type SweepFlags } from '../../eval/run/options.js';
import { endpointFieldsError } from './watch-form.js';
import { withFocusedEdited, type FieldEdit } from './form-fields.js';

/** Where the models come from: one endpoint typed in, or the harness's models file. */
export const MODEL_SOURCES = ['endpoint', 'models file'] as const;
export type ModelSource = (typeof MODEL_SOURCES)[number];

export interface SweepFormValues {
  source: ModelSource;
  model: string;
  baseUrl: string;
  /** The NAME of the variable with the key; empty: no key is sent. Never the key. */
  apiKeyEnv: string;
  modelsFile: string;
  /** Comma-separated names of the file's entries; blank: every entry. */
  names: string;
  split: string;
  /** k: samples per task (`--passes`). */
  passes: string;
  /** Blank: every task of the split. */
  limit: string;
  /** Blank: follows the machine (the CLI without --concurrency). */
  concurrency: string;
  /** Blank: the workspace's sweeps/<run id>. */
  out: string;
}

export type SweepField = keyof SweepFormValues;

export interface SweepFieldSpec {
  name: SweepField;
  label: string;
  /** A choice field cycles through these instead of taking typed text. */
  choices?: readonly string[];
}

const SOURCE_FIELD: SweepFieldSpec = { name: 'source', label: 'models from', choices: MODEL_SOURCES };
const ENDPOINT_FIELDS: readonly SweepFieldSpec[] = [
  { name: 'model', label: 'model' },
  { name: 'baseUrl', label: 'base URL' },
  { name: 'apiKeyEnv', label: 'API key env var' },
];
const FILE_FIELDS: readonly SweepFieldSpec[] = [
  { name: 'modelsFile', label: 'models file' },
  { name: 'names', label: 'model names' },
];
const SWEEP_FIELDS: readonly SweepFieldSpec[] = [
  { name: 'split', label: 'split' },
  { name: 'passes', label: 'k (samples/task)' },
  { name: 'limit', label: 'task limit' },
  { name: 'concurrency', label: 'concurrency' },
  { name: 'out', label: 'output folder' },
];

/** The fields shown for a source, in order; the Start button comes after them. */
export function sweepFormFields(source: ModelSource): readonly SweepFieldSpec[] {
  return [SOURCE_FIELD, ...(source === 'endpoint' ? ENDPOINT_FIELDS : FILE_FIELDS), ...SWEEP_FIELDS];
}

/** What the form opens with, besides the CLI's own defaults: the endpoint and split last used (the Watch form's). */
export interface SweepFormPrefill {
  model: string;
  baseUrl: string;
  apiKeyEnv: string;
  split: string;
}

export interface SweepFormError {
  /** The field at fault; null for what is nobody's typing (the endpoint is down, the folder busy). */
  field: SweepField | null;
  message: string;
}

export interface SweepFormState {
  /** loading: the prefill is being read; starting: the models are checked and the sweep planned. */
  readonly phase: 'loading' | 'editing' | 'starting';
  readonly values: SweepFormValues;
  /** A position in sweepFormFields(values.source), then Start. */
  readonly focus: number;
  readonly error: SweepFormError | null;
}

export type SweepFormAction =
  | { type: 'prefilled'; prefill: SweepFormPrefill }
  | { type: 'move'; delta: number }
  | FieldEdit
  | { type: 'starting' }
  /** The start ended without a sweep: the form is editable again, with the error (if any) shown. */
  | { type: 'stopped'; error: SweepFormError | null };

export function initialSweepForm(): SweepFormState {
  return {
    phase: 'loading',
    values: {
      source: 'endpoint',
      model: '',
      baseUrl: '',
      apiKeyEnv: '',
      modelsFile: '',
      names: '',
      split: '',
      passes: String(DEFAULT_PASSES),
      limit: '',
      concurrency: '',
      out: '',
    },
    focus: 0,
    error: null,
  };
}

/** The focus position of the Start button. */
export function sweepStartPosition(state: SweepFormState): number {
  return sweepFormFields(state.values.source).length;
}

export function focusedSweepField(state: SweepFormState): SweepFieldSpec | undefined {
  return sweepFormFields(state.values.source)[state.focus];
}

export function sweepFormReducer(state: SweepFormState, action: SweepFormAction): SweepFormState {
  switch (action.type) {
    case 'prefilled':
      return { ...state, phase: 'editing', values: { ...state.values, ...action.prefill } };
    case 'starting':
      return state.phase === 'editing' ? { ...state, phase: 'starting', error: null } : state;
    case 'stopped': {
      const at = sweepFormFields(state.values.source).findIndex((f) => f.name === action.error?.field);
      return { ...state, phase: 'editing', error: action.error, focus: at < 0 ? state.focus : at };
    }
  }
  // Nothing changes under a start in progress: what is being started is what is shown.
  if (state.phase !== 'editing') return state;
  switch (action.type) {
    case 'move':
      return { ...state, focus: Math.max(0, Math.min(sweepStartPosition(state), state.focus + action.delta)) };
    case 'type':
    case 'erase':
    case 'choose':
      return withFocusedEdited(state, focusedSweepField(state), action);
  }
}

type Checked = { ok: true; flags: SweepFlags } | ({ ok: false } & SweepFormError & { field: SweepField });

/**
 * The sweep's settings the text describes, as `geolab eval run` takes them as flags (blank fields
 * left to its defaults), or the first field that is wrong and what to type instead.
 */
export function checkSweepForm(values: SweepFormValues): Checked {
  const v = Object.fromEntries(Object.entries(values).map(([k, text]) => [k, text.trim()])) as unknown as SweepFormValues;
  const wrong = (field: SweepField, message: string) => ({ ok: false as const, field, message });
  let models: Pick<SweepFlags, 'model' | 'baseUrl' | 'apiKeyEnv' | 'models' | 'names'>;
  if (v.source === 'endpoint') {
    const endpointError = endpointFieldsError(v);
    if (endpointError) return { ok: false, ...endpointError };
    models = { model: v.model, baseUrl: v.baseUrl, ...(v.apiKeyEnv ? { apiKeyEnv: v.apiKeyEnv } : {}) };
  } else {
    if (!v.modelsFile) return wrong('modelsFile', "models file: type the path of the harness's models file (a JSON list of {name, model, base_url, ...})");
    const names = v.names.split(',').map((n) => n.trim()).filter(Boolean);
    models = { models: v.modelsFile, ...(names.length ? { names } : {}) };
  }
  if (!v.split) return wrong('split', 'split: type a split name, e.g. eval');
  const passes = wholeNumber(v.passes, SWEEP_RANGES.passes);
  if (passes === null) return wrong('passes', rangeMessage('k (samples per task)', SWEEP_RANGES.passes, v.passes));
  const limit = v.limit ? wholeNumber(v.limit, SWEEP_RANGES.limit) : undefined;
  if (limit === null) return wrong('limit', `task limit must be a whole number from 1 (blank: every task), got "${v.limit}"`);
  const concurrency = v.concurrency ? wholeNumber(v.concurrency, SWEEP_RANGES.concurrency) : undefined;
  if (concurrency === null) return wrong('concurrency', rangeMessage('concurrency', SWEEP_RANGES.concurrency, v.concurrency, 'blank: follows the machine'));
  return {
    ok: true,
    flags: {
      ...models,
      split: v.split,
      passes,
      ...(limit !== undefined ? { limit } : {}),
      ...(concurrency !== undefined ? { concurrency } : {}),
      ...(v.out ? { out: v.out } : {}),
    },
  };
}

function wholeNumber(text: string, [min, max]: readonly [number, number]): number | null {
  if (!/^\d+$/.test(text)) return null;
  const n = Number(text);
  return n >= min && n <= max ? n : null;
}

function rangeMessage(label: string, [min, max]: readonly [number, number], got: string, blank?: string): string {
  return `${label} must be a whole number from ${min} to ${max}${blank ? ` (${blank})` : ''}, got "${got}"`;
}
