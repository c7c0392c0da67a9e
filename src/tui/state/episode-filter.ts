/**
 * The Episodes list's one-line filter, as typed after `/`: space-separated terms, `model:X`,
 * `split:X`, `country:X`, `verdict:X`, `status:S` (store/episode-state.ts), `text:W` (words of the
 * prompts and replies), `reward:A..B` (either bound optional), and anything else free text. Double quotes keep spaces in a value (`country:"united states"`) or make a term plain text
 * (`"model:x"`). Parsed into the fields the store filters on, and written back in one canonical form
 * for the header and for editing. Pure.
 */
import { EPISODE_STATUSES, episodeStatus, unknownStatus, type EpisodeStatus } from '../../store/episode-state.js';

/** The syntax in a line, for the help and the prompt. */
export const FILTER_SYNTAX = 'model:X split:X country:X verdict:X status:failed text:word reward:0.5..1, or text';
/** How the named terms match (the store's query does it), for the help. */
export const FILTER_MATCHING =
  'names match by their start, any case (verdict:wrong); a country also by its codes, names or demonyms (country:RS); split: whole name; ' +
  `status: ${EPISODE_STATUSES.join(', ')}; text: words of the prompts, replies and reasoning, the last by its start (text:"white bollard")`;

export interface EpisodeFilter {
  readonly model?: string;
  readonly split?: string;
  /** Matched as FILTER_MATCHING says ("serbia" finds "Republic of Serbia"). */
  readonly country?: string;
  readonly verdict?: string;
  readonly status?: EpisodeStatus;
  /** Searched as one phrase in the prompts, replies and reasoning (store/episode-text.ts). */
  readonly text?: string;
  readonly minReward?: number;
  readonly maxReward?: number;
  /** The free-text terms, joined by a space: a substring of the id, model, task id, country, verdict or error. */
  readonly search?: string;
}

export type FilterParse = { ok: true; filter: EpisodeFilter } | { ok: false; message: string };

/** The terms that name a field; their order is the canonical order of the written form. */
const FIELDS = ['model', 'split', 'country', 'verdict', 'status', 'text'] as const;

const NUMBER = '-?(?:\\d+(?:\\.\\d+)?|\\.\\d+)';
const RANGE = new RegExp(`^(${NUMBER})?\\.\\.(${NUMBER})?$`);

/** A term as typed (`raw`, quotes included) and with its quotes taken out (`text`). */
interface Term {
  raw: string;
  text: string;
}

export function parseFilter(input: string): FilterParse {
  const terms = splitTerms(input);
  if (!terms.ok) return terms;
  const filter: { -readonly [K in keyof EpisodeFilter]: EpisodeFilter[K] } = {};
  const words: string[] = [];
  for (const term of terms.terms) {
    // A key counts only when typed bare: `"model:x"` is text to search for.
    const key = /^([a-z]+):/i.exec(term.raw)?.[1]?.toLowerCase();
    const value = key ? term.text.slice(key.length + 1) : term.text;
    const field = FIELDS.find((f) => f === key);
    if (field) {
      if (value === '') return fail(term, `needs a value, like ${field}:${EXAMPLE[field]}`);
      if (filter[field] !== undefined) return fail(term, `is a second ${field}: term; keep one`);
      if (field === 'status') {
        const status = episodeStatus(value);
        if (status === undefined) return { ok: false, message: unknownStatus(term.raw) };
        filter.status = status;
      } else filter[field] = value;
    } else if (key === 'reward') {
      if (filter.minReward !== undefined || filter.maxReward !== undefined) return fail(term, 'is a second reward: term; keep one');
      const range = RANGE.exec(value);
      if (!range || (range[1] === undefined && range[2] === undefined)) {
        return fail(term, 'is not a range like reward:0.5..1, reward:..0.2 or reward:0.9..');
      }
      const [min, max] = [range[1], range[2]].map((bound) => (bound === undefined ? undefined : Number(bound)));
      if (min !== undefined && max !== undefined && min > max) return fail(term, 'has its lower bound above the upper');
      if (min !== undefined) filter.minReward = min;
      if (max !== undefined) filter.maxReward = max;
    } else {
      words.push(term.text);
    }
  }
  const search = words.join(' ').trim();
  if (search) filter.search = search;
  return { ok: true, filter };
}

const EXAMPLE: Record<(typeof FIELDS)[number], string> = {
  model: 'base',
  split: 'eval',
  country: 'japan',
  verdict: 'pinpoint',
  status: 'failed',
  text: 'bollard',
};

/** The complaint names the term as typed; it fits an 80-column line for a term of ordinary length. */
function fail(term: Term, why: string): { ok: false; message: string } {
  return { ok: false, message: `"${term.raw}" ${why}` };
}

function splitTerms(input: string): { ok: true; terms: Term[] } | { ok: false; message: string } {
  const terms: Term[] = [];
  let i = 0;
  while (i < input.length) {
    if (/\s/.test(input[i]!)) {
      i++;
      continue;
    }
    const start = i;
    let text = '';
    while (i < input.length && !/\s/.test(input[i]!)) {
      if (input[i] === '"') {
        const end = input.indexOf('"', i + 1);
        if (end < 0) return fail({ raw: input.slice(start), text }, 'has a quote that is not closed');
        text += input.slice(i + 1, end);
        i = end + 1;
      } else {
        text += input[i++];
      }
    }
    terms.push({ raw: input.slice(start, i), text });
  }
  return { ok: true, terms };
}

/** The filter in its canonical written form (`model:base verdict:Pinpoint reward:0.5..1 japan`); '' for none. */
export function describeFilter(filter: EpisodeFilter): string {
  const terms: string[] = FIELDS.flatMap((field) => (filter[field] === undefined ? [] : [`${field}:${quote(filter[field])}`]));
  if (filter.minReward !== undefined || filter.maxReward !== undefined) {
    terms.push(`reward:${filter.minReward ?? ''}..${filter.maxReward ?? ''}`);
  }
  if (filter.search) terms.push(/^[a-z]+:/i.test(filter.search) ? `"${filter.search}"` : quote(filter.search));
  return terms.join(' ');
}

/** Quotes a value that would not read back as one term. */
function quote(value: string): string {
  return /[\s"]/.test(value) || value === '' ? `"${value}"` : value;
}

export function isFiltered(filter: EpisodeFilter): boolean {
  return Object.values(filter).some((value) => value !== undefined);
}
