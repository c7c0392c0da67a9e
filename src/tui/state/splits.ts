/**
 * The Splits screen's state, pure: which pool, the split options the table steers (countries left
 * out, per-country eval caps, eval size, buffer, contributor exclusivity), the table's order and
 * selected country, and the write's prompts. The counts themselves come from `buildSplits` over it.
 */
import { DEFAULT_SPLIT_OPTIONS, type SplitOptions, type SplitResult } from '../../splits/build.js';
import { canonicalCountry } from '../../splits/countries.js';
import { splitNameProblem, type SplitPool } from '../../splits/write.js';

export const SORT_COLUMNS = ['pool', 'eval', 'train', 'cap', 'country'] as const;
export type SortColumn = (typeof SORT_COLUMNS)[number];

export { BUFFER_STEP_KM, EVAL_SIZE_STEP } from './splits-steps.js';

export interface LoadedPool {
  label: string;
  pool: SplitPool;
  /** Tasks per canonical country, before any country is left out. */
  counts: ReadonlyMap<string, number>;
}

export type SplitsPhase =
  | { kind: 'choose' }
  | { kind: 'path'; text: string }
  | { kind: 'loading'; label: string }
  | { kind: 'table' }
  | { kind: 'outDir'; text: string }
  | { kind: 'name'; outDir: string; text: string }
  /** `replaces`: what the write would replace (docs/splits.md, Replacing a split); undefined while it is being looked up. */
  | { kind: 'confirm'; outDir: string; name: string; replaces?: readonly string[] }
  | { kind: 'writing'; outDir: string; name: string; replace: boolean };

export interface SplitsState {
  phase: SplitsPhase;
  /** The selected line of the pool choice: a task set, or the last line, a path to type. */
  choice: number;
  loaded: LoadedPool | null;
  options: SplitOptions;
  sort: SortColumn;
  /** The selected row's country (kept across re-sorts as the counts change). */
  selected: string | null;
  /** Why the last step was refused, or what the write did; cleared by the next key that acts. */
  message: { tone: 'error' | 'ok'; text: string } | null;
}

export const INITIAL_SPLITS: SplitsState = {
  phase: { kind: 'choose' },
  choice: 0,
  loaded: null,
  options: DEFAULT_SPLIT_OPTIONS,
  sort: 'pool',
  selected: null,
  message: null,
};

export type SplitsAction =
  | { type: 'moveChoice'; delta: number; count: number }
  | { type: 'typePath' }
  | { type: 'loading'; label: string }
  | { type: 'loaded'; loaded: LoadedPool }
  | { type: 'failed'; message: string }
  | { type: 'type'; text: string }
  | { type: 'erase' }
  | { type: 'cancel' }
  /** `order`: the table's countries as shown, for moving the selection through them. */
  | { type: 'move'; delta: number; order: readonly string[] }
  | { type: 'toggle' }
  | { type: 'cap'; delta: number }
  | { type: 'evalSize'; delta: number }
  | { type: 'buffer'; deltaKm: number }
  | { type: 'contributor' }
  | { type: 'sort' }
  /** `problems`: the current result's self-check; a failed one is not offered for writing. */
  | { type: 'write'; problems: readonly string[]; defaultOutDir: string }
  | { type: 'submit' }
  /** What a write to the confirmed target would replace (empty: nothing). */
  | { type: 'taken'; replaces: readonly string[] }
  | { type: 'confirm' }
  | { type: 'written'; text: string }
  | { type: 'writeFailed'; message: string };

export function countryCounts(pool: SplitPool): Map<string, number> {
  const counts = new Map<string, number>();
  for (const t of pool.tasks) {
    const c = canonicalCountry(t.country);
    counts.set(c, (counts.get(c) ?? 0) + 1);
  }
  return counts;
}

export function capOf(options: SplitOptions, country: string): number {
  return options.evalCaps?.[country] ?? options.evalPerCountry;
}

export function isIncluded(options: SplitOptions, country: string): boolean {
  return !(options.excludeCountries ?? []).includes(country);
}

export interface SplitsRow {
  country: string;
  included: boolean;
  pool: number;
  eval: number;
  train: number;
  cap: number;
}

/** One row per pool country (left-out ones too, so they can be brought back), in the chosen order. */
export function splitsRows(loaded: LoadedPool, options: SplitOptions, result: SplitResult, sort: SortColumn): SplitsRow[] {
  const rows = [...loaded.counts].map(([country, pool]) => {
    const counts = result.perCountry[country];
    return { country, included: isIncluded(options, country), pool, eval: counts?.eval ?? 0, train: counts?.train ?? 0, cap: capOf(options, country) };
  });
  return rows.sort((a, b) => (sort === 'country' ? 0 : b[sort] - a[sort]) || a.country.localeCompare(b.country));
}

export function splitsReducer(state: SplitsState, action: SplitsAction): SplitsState {
  const { phase, options } = state;
  const acted = { ...state, message: null };
  switch (action.type) {
    case 'moveChoice':
      return { ...acted, choice: clamp(state.choice + action.delta, 0, action.count - 1) };
    case 'typePath':
      return { ...acted, phase: { kind: 'path', text: '' } };
    case 'loading':
      return { ...acted, phase: { kind: 'loading', label: action.label } };
    case 'loaded':
      return {
        ...acted,
        phase: { kind: 'table' },
        loaded: action.loaded,
        options: DEFAULT_SPLIT_OPTIONS,
        selected: [...action.loaded.counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]?.[0] ?? null,
      };
    case 'failed':
      return { ...state, phase: { kind: 'choose' }, message: { tone: 'error', text: action.message } };
    case 'type':
    case 'erase':
      if (phase.kind !== 'path' && phase.kind !== 'outDir' && phase.kind !== 'name') return state;
      return { ...acted, phase: { ...phase, text: action.type === 'type' ? phase.text + action.text : phase.text.slice(0, -1) } };
    case 'cancel':
      if (phase.kind === 'path') return { ...acted, phase: { kind: 'choose' } };
      if (phase.kind === 'outDir' || phase.kind === 'name' || phase.kind === 'confirm') return { ...state, phase: { kind: 'table' }, message: { tone: 'ok', text: 'Nothing written.' } };
      return state;
    case 'move': {
      const at = state.selected === null ? -1 : action.order.indexOf(state.selected);
      return { ...acted, selected: action.order[clamp(at + action.delta, 0, action.order.length - 1)] ?? null };
    }
    case 'toggle': {
      const country = state.selected;
      if (country === null) return state;
      const excluded = options.excludeCountries ?? [];
      const next = excluded.includes(country) ? excluded.filter((c) => c !== country) : [...excluded, country];
      return { ...acted, options: { ...options, excludeCountries: next.length ? next : undefined } };
    }
    case 'cap': {
      const country = state.selected;
      if (country === null) return state;
      const cap = Math.max(0, capOf(options, country) + action.delta);
      const { [country]: _old, ...others } = options.evalCaps ?? {};
      // A cap back at the global one is no override: the manifest lists only real ones.
      const evalCaps = cap === options.evalPerCountry ? others : { ...others, [country]: cap };
      return { ...acted, options: { ...options, evalCaps: Object.keys(evalCaps).length ? evalCaps : undefined } };
    }
    case 'evalSize':
      return { ...acted, options: { ...options, evalSize: Math.max(0, options.evalSize + action.delta) } };
    case 'buffer':
      return { ...acted, options: { ...options, bufferKm: Math.max(0, options.bufferKm + action.deltaKm) } };
    case 'contributor':
      return { ...acted, options: { ...options, contributorExclusive: !options.contributorExclusive } };
    case 'sort':
      return { ...acted, sort: SORT_COLUMNS[(SORT_COLUMNS.indexOf(state.sort) + 1) % SORT_COLUMNS.length]! };
    case 'write':
      if (action.problems.length > 0) return { ...state, message: { tone: 'error', text: `not written: ${action.problems[0]}` } };
      return { ...acted, phase: { kind: 'outDir', text: action.defaultOutDir } };
    case 'submit':
      if (phase.kind === 'outDir') {
        const outDir = phase.text.trim();
        if (!outDir) return { ...state, message: { tone: 'error', text: 'type the directory to write eval.jsonl, train.jsonl and manifest.json in' } };
        return { ...acted, phase: { kind: 'name', outDir, text: lastSegment(outDir) } };
      }
      if (phase.kind === 'name') {
        const name = phase.text.trim();
        const problem = name ? splitNameProblem(name) : 'type the name of the task sets (NAME-eval, NAME-train)';
        if (problem) return { ...state, message: { tone: 'error', text: problem } };
        return { ...acted, phase: { kind: 'confirm', outDir: phase.outDir, name } };
      }
      return state;
    case 'taken':
      return phase.kind === 'confirm' ? { ...state, phase: { ...phase, replaces: action.replaces } } : state;
    case 'confirm':
      // Not before it is known what the write replaces: the question names it.
      if (phase.kind !== 'confirm' || phase.replaces === undefined) return state;
      return { ...acted, phase: { kind: 'writing', outDir: phase.outDir, name: phase.name, replace: phase.replaces.length > 0 } };
    case 'written':
      return { ...state, phase: { kind: 'table' }, message: { tone: 'ok', text: action.text } };
    case 'writeFailed':
      return { ...state, phase: { kind: 'table' }, message: { tone: 'error', text: `not written: ${action.message}` } };
  }
}

function clamp(value: number, low: number, high: number): number {
  return Math.max(low, Math.min(high, value));
}

/** The default task-set name for a directory, as the CLI takes it (its last path segment). */
function lastSegment(dir: string): string {
  return dir.replace(/[/\\]+$/, '').split(/[/\\]/).pop() ?? '';
}
