/**
 * Harness run trees as the report's plain facts (streamed line by line); the workspace's reader is
 * src/eval/workspace.ts, so a report over files never loads SQLite.
 */
import { EPISODE_SCHEMA_VERSION, isFailed, tokenCounts } from '../core/episode-fields.js';
import type { EpisodeRecord } from '../core/episode.js';
import { InputError } from '../core/errors.js';
import { parseJsonLine, runTreeFiles, textLines, type SkippedEntry } from '../files.js';
import { isRecord } from '../core/values.js';
import type { EpisodeFacts } from './report.js';

/** Records with no prompt_version (older harness runs) form their own arm rather than joining another. */
export const UNVERSIONED = 'unversioned';
export const UNNAMED_MODEL = 'unnamed';

export function episodeFacts(record: EpisodeRecord): EpisodeFacts {
  // One object literal of one shape for every episode (no spreads): 20,000 of them stay fast objects.
  const facts: EpisodeFacts = {
    episodeId: record.episode_id,
    model: record.model_name ?? UNNAMED_MODEL,
    promptVersion: record.config?.prompt_version ?? UNVERSIONED,
    taskKey: `${record.task.split}/${record.task.index}`,
    sample: record.task.sample ?? null,
    country: record.task.country ?? null,
    failed: true,
    distanceKm: null,
    cost: 0,
    countryHit: null,
    forced: false,
    turns: null,
    looks: null,
    moves: null,
    pins: null,
    tokensOut: null,
    modelTurns: 0,
    modelTurnsNoFinish: 0,
  };
  if (isFailed(record)) return facts;
  const o = record.outcome;
  let tokensOut: number | null = null;
  for (const turn of record.turns) {
    if (!turn.model) continue;
    facts.modelTurns++;
    if (!turn.model.finish_reason) facts.modelTurnsNoFinish++;
    const out = tokenCounts(turn.model.tokens).output;
    if (out !== null) tokensOut = (tokensOut ?? 0) + out;
  }
  facts.failed = false;
  facts.distanceKm = o.distance_km ?? null;
  facts.cost = o.action_cost ?? 0;
  facts.countryHit = o.country_hit ?? null;
  facts.forced = o.forced_guess === true;
  facts.turns = o.turns_used ?? null;
  facts.looks = o.n_looks ?? null;
  facts.moves = o.n_moves ?? null;
  facts.pins = o.n_pins ?? null;
  facts.tokensOut = o.tokens_out ?? tokensOut;
  return facts;
}

/** Every episode under the given files or run trees (`<run>/episodes.jsonl`, `pass-<p>/shard-<i>/...`). */
export async function* factsFromPaths(paths: readonly string[], onSkipped?: (entry: SkippedEntry) => void): AsyncGenerator<EpisodeFacts> {
  for (const path of paths) {
    for (const file of runTreeFiles(path, onSkipped)) {
      for await (const { line, text } of textLines(file)) {
        // A test, not trim(): no copy of every line.
        if (!/\S/.test(text)) continue;
        const value = parseJsonLine(text, file, line);
        const problem = reportProblem(value);
        if (problem) throw new InputError(`${problem.message} (expected a schema-v2 episode record)`, { file, line, field: problem.field || undefined });
        yield episodeFacts(value as EpisodeRecord);
      }
    }
  }
}

type Problem = { field: string; message: string } | null;

const got = (value: unknown) => (value === undefined ? 'nothing' : JSON.stringify(value)?.slice(0, 60));
const optional = (value: unknown, ok: (v: unknown) => boolean, field: string, expected: string): Problem =>
  value === undefined || value === null || ok(value) ? null : { field, message: `expected ${expected}, got ${got(value)}` };
const isCount = (v: unknown) => Number.isInteger(v) && (v as number) >= 0;
const isNumber = (v: unknown) => typeof v === 'number' && Number.isFinite(v);
const isString = (v: unknown) => typeof v === 'string';

/**
 * Checks the fields the report reads, rather than the whole record (parseEpisodeRecord): a full
 * parse of 20,000 harness records copies every turn and costs the report its one-second budget
 * (docs/budgets.md). Keys the report ignores are not checked here; `episodes import` checks them all.
 */
function reportProblem(value: unknown): Problem {
  if (!isRecord(value)) return { field: '', message: `expected a JSON object, got ${got(value)}` };
  if (value.schema_version !== EPISODE_SCHEMA_VERSION) return { field: 'schema_version', message: `expected ${EPISODE_SCHEMA_VERSION}, got ${got(value.schema_version)}` };
  if (!isString(value.episode_id)) return { field: 'episode_id', message: `expected a string, got ${got(value.episode_id)}` };
  const task = value.task;
  if (!isRecord(task)) return { field: 'task', message: `expected an object, got ${got(task)}` };
  if (!isString(task.split)) return { field: 'task.split', message: `expected a string, got ${got(task.split)}` };
  if (!isCount(task.index)) return { field: 'task.index', message: `expected a whole number >= 0, got ${got(task.index)}` };
  const config = value.config;
  const head =
    optional(task.sample, isCount, 'task.sample', 'a whole number >= 0') ??
    optional(task.country, isString, 'task.country', 'a string') ??
    optional(value.model_name, isString, 'model_name', 'a string') ??
    optional(config, isRecord, 'config', 'an object') ??
    (isRecord(config) ? optional(config.prompt_version, isString, 'config.prompt_version', 'a string') : null);
  if (head) return head;
  if (!('outcome' in value) && 'error' in value) return isString(value.error) ? null : { field: 'error', message: `expected a string, got ${got(value.error)}` };
  const outcome = value.outcome;
  if (!isRecord(outcome)) return { field: 'outcome', message: `expected an object (or "error" for a failed episode), got ${got(outcome)}` };
  if (!Array.isArray(value.turns)) return { field: 'turns', message: `expected an array, got ${got(value.turns)}` };
  for (const key of ['distance_km', 'action_cost'] as const) {
    const problem = optional(outcome[key], (v) => isNumber(v) && (v as number) >= 0, `outcome.${key}`, 'a number >= 0');
    if (problem) return problem;
  }
  for (const key of ['turns_used', 'n_looks', 'n_moves', 'n_pins', 'tokens_out'] as const) {
    const problem = optional(outcome[key], isCount, `outcome.${key}`, 'a whole number >= 0');
    if (problem) return problem;
  }
  for (const key of ['country_hit', 'forced_guess'] as const) {
    const problem = optional(outcome[key], (v) => typeof v === 'boolean', `outcome.${key}`, 'true or false');
    if (problem) return problem;
  }
  for (const [i, turn] of (value.turns as unknown[]).entries()) {
    if (!isRecord(turn)) return { field: `turns[${i}]`, message: `expected an object, got ${got(turn)}` };
    const problem =
      optional(turn.model, isRecord, `turns[${i}].model`, 'an object') ??
      (isRecord(turn.model) ? optional(turn.model.finish_reason, isString, `turns[${i}].model.finish_reason`, 'a string') : null);
    if (problem) return problem;
  }
  return null;
}
