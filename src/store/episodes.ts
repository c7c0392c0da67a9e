/**
 * Episodes in the workspace store. A record is split so that each piece is stored once: the
 * `episodes` row holds the columns the list filters and sorts on plus `record_json`, the record
 * without its turns; each turn is a `turns` row whose `turn_json` is the turn without its message
 * list, which goes to `messages_json` (the audit reads it there). `loadEpisode` puts them back
 * together. A failed record has no turns of its own and is kept whole. Saving is idempotent by
 * episode_id: saving again replaces the episode and its turns, and its words in the full-text index
 * `episode_text` (migration 6), which every save keeps up to date: imports save here too.
 */
import { isCompleted, type CompletedEpisode, type EpisodeRecord, type Turn } from '../core/episode.js';
import type { Task } from '../core/tasks.js';
import { GeolabError, InputError, UsageError } from '../core/errors.js';
import { countryNamesFor } from '../geo/countries.js';
import type { Db, Transaction } from './db.js';
import { DESCENDING_BY_DEFAULT, type EpisodeSort } from './episode-sort.js';
import { ABORTED_ERROR, unknownStatus, type EpisodeStatus } from './episode-state.js';
import { searchText, textQuery } from './episode-text.js';
import { hasImage } from './images.js';
import { getTaskSet, readTasksAt, versionPlayed } from './task-sets.js';

export type { EpisodeSort };

export interface SaveOptions {
  /** The eval run the episode belongs to (an `eval_runs` row); kept from before when omitted. */
  runId?: string;
  /**
   * A turn's image_sha256 not in the image store: `fail` (the default: the recorder stores images
   * first, so a missing one is a bug) or `unlink` (imports of runs whose image files are elsewhere:
   * the turn row has no image, the record keeps the hash).
   */
  missingImages?: 'fail' | 'unlink';
}

/** A record the store cannot hold as it is, naming the field. */
export class EpisodeFieldError extends InputError {
  constructor(
    readonly field: string,
    readonly detail: string,
  ) {
    super(detail, { field });
  }
}

/** Saves one episode and its turns in one transaction; saving an episode_id again replaces it. */
export function saveEpisode(db: Db, record: EpisodeRecord, options: SaveOptions = {}): void {
  statements(db).save.immediate(record, options);
}

/**
 * saveEpisode for a caller that holds a write transaction and saves many (an import): no savepoint
 * of its own. A record it refuses (EpisodeFieldError) is refused before anything is written, and any
 * other error must end the caller's transaction. A savepoint per episode would make SQLite's
 * full-text index (episode-text.ts) write its pending words out at each one: six times the cost of
 * indexing them, a quarter more on the whole import.
 */
export function saveEpisodeInTransaction(db: Db, record: EpisodeRecord, options: SaveOptions = {}): void {
  if (!db.inTransaction) throw new GeolabError('saveEpisodeInTransaction needs a write transaction open on the connection');
  writeEpisode(db, statements(db), record, options);
}

/**
 * Takes episodes out of their run, keeping them in the workspace: a sweep's failed episodes that a
 * re-run played again, so the run holds one episode per (task, sample) as its tree does.
 */
export function detachFromRun(db: Db, episodeIds: readonly string[]): void {
  const detach = db.prepare('UPDATE episodes SET run_id = NULL WHERE episode_id = ?');
  db.transaction(() => episodeIds.forEach((id) => detach.run(id))).immediate();
}

export interface EpisodeRow {
  episode_id: string;
  recorded_at: string;
  model_name: string | null;
  split: string;
  task_index: number;
  sample: number;
  country: string | null;
  verdict: string | null;
  distance_km: number | null;
  reward: number | null;
  turns_used: number | null;
  error: string | null;
}

export interface EpisodeQuery {
  limit?: number;
  offset?: number;
  /** Model, country and verdict match the start of the stored name, whatever the case ("wrong" finds "Wrong continent"). */
  model?: string;
  /** The whole split name. */
  split?: string;
  /** Also any name, code or demonym of a country (src/geo/countries.ts): "serbia", "RS", "serbian". */
  country?: string;
  verdict?: string;
  runId?: string;
  /** Case-insensitive substring of the id, model, task id, country, verdict or error. */
  search?: string;
  /** How the episode ended (episode-state.ts, EPISODE_STATUSES). */
  status?: EpisodeStatus;
  /**
   * Words of its prompts, replies and reasoning (episode-text.ts), as one phrase whose last word
   * matches by its start, whatever the case and accents: "bollard" finds "Bollards".
   */
  text?: string;
  minReward?: number;
  maxReward?: number;
  sort?: EpisodeSort;
  /**
   * Default: newest, highest reward, nearest and fewest turns first. Ties follow the direction
   * (oldest first going up, newest first going down), so that the reversed list is the list
   * reversed; episodes without the sort value stay last either way.
   */
  descending?: boolean;
}

const SORT_COLUMN: Record<EpisodeSort, string> = {
  recent: 'recorded_at',
  reward: 'reward',
  distance: 'distance_km',
  turns: 'turns_used',
};

const ROW_COLUMNS =
  'episode_id, recorded_at, model_name, split, task_index, sample, country, verdict, distance_km, reward, turns_used, error';

/**
 * Episodes matching the query, newest first unless sorted otherwise; episodes without the sort
 * value (failed ones have no reward) come last either way.
 */
export function listEpisodes(db: Db, query: EpisodeQuery = {}): EpisodeRow[] {
  const sort = query.sort ?? 'recent';
  const direction = (query.descending ?? DESCENDING_BY_DEFAULT[sort]) ? 'DESC' : 'ASC';
  const byTime = `recorded_at ${direction}, episode_id ${direction}`;
  const { limit, offset = 0 } = query;
  if (sort === 'recent') return selectRows(db, query, [], byTime, limit, offset);
  // Those with the value, then those without: SQLite walks an index in order for a plain ORDER BY
  // but never for NULLS LAST, and two walks of covering indexes (migration 3) that stop at the page
  // cost far less than one sort of every matching row (15 to 130 ms at 100k episodes).
  const column = SORT_COLUMN[sort];
  const hasValue = `${column} IS NOT NULL`;
  const valued = selectRows(db, query, [hasValue], `${column} ${direction}, ${byTime}`, limit, offset);
  if (limit !== undefined && valued.length >= limit) return valued;
  // The page reaches past the last episode with a value; when it starts past it, by how much.
  const skip = valued.length > 0 || offset === 0 ? 0 : offset - countWhere(db, query, [hasValue]);
  const rest = limit === undefined ? undefined : limit - valued.length;
  return [...valued, ...selectRows(db, query, [`${column} IS NULL`], byTime, rest, skip)];
}

export function countEpisodes(db: Db, query: EpisodeQuery = {}): number {
  return countWhere(db, query, []);
}

function countWhere(db: Db, query: EpisodeQuery, extra: readonly string[]): number {
  const { sql, params } = whereClause(query, extra);
  return db.prepare(`SELECT COUNT(*) FROM episodes${sql}`).pluck().get(...params) as number;
}

function selectRows(
  db: Db,
  query: EpisodeQuery,
  extra: readonly string[],
  order: string,
  limit: number | undefined,
  offset: number,
): EpisodeRow[] {
  const { sql, params } = whereClause(query, extra);
  const page = limit !== undefined || offset ? ' LIMIT ? OFFSET ?' : '';
  if (page) params.push(limit ?? -1, offset);
  return db.prepare(`SELECT ${ROW_COLUMNS} FROM episodes${sql} ORDER BY ${order}${page}`).all(...params) as EpisodeRow[];
}

/**
 * The episode with this id, or with the only id starting with it (like a git hash); undefined when
 * none matches. A prefix shared by several episodes throws, listing them.
 */
export function loadEpisode(db: Db, id: string): EpisodeRecord | undefined {
  if (id === '') throw new UsageError('expected an episode id (or the start of one)');
  const s = statements(db);
  let row = s.byId.get(id) as StoredEpisode | undefined;
  if (!row) {
    const matches = (s.idsFrom.all(id, PREFIX_CANDIDATES + 1) as string[]).filter((candidate) => candidate.startsWith(id));
    if (matches.length > 1) {
      const more = matches.length > PREFIX_CANDIDATES ? ', ...' : '';
      throw new GeolabError(
        `episode id "${id}" is ambiguous: it matches ${matches.slice(0, PREFIX_CANDIDATES).join(', ')}${more}; give more characters`,
      );
    }
    if (matches[0] === undefined) return undefined;
    row = s.byId.get(matches[0]) as StoredEpisode;
  }
  const record = JSON.parse(row.record_json) as EpisodeRecord;
  // Only a completed record's turns live in their own table; a failed one keeps its own.
  if (isCompleted(record)) {
    record.turns = (s.turnsOf.all(row.episode_id) as { turn_json: string; messages_json: string | null }[]).map((t) => {
      const turn = JSON.parse(t.turn_json) as Record<string, unknown>;
      if (t.messages_json !== null) turn.messages = JSON.parse(t.messages_json);
      return turn as Turn;
    });
  }
  return record;
}

const PREFIX_CANDIDATES = 10;

/**
 * The tasks of the split a stored episode played, as they were when it played them (the version it
 * recorded, docs/splits.md, Versions); null when the split is no task set of the workspace.
 */
export function episodeSplitTasks(db: Db, episodeId: string, split: string): Task[] | null {
  return getTaskSet(db, split) ? readTasksAt(db, split, episodeTaskVersion(db, episodeId)) : null;
}

/**
 * The version of its task set an episode was played on (docs/splits.md, Versions): a sha256 for
 * `readTasksAt`, or null for episodes saved before versions existed (or on a split that was no task
 * set), which read the set's first recorded version.
 */
export function episodeTaskVersion(db: Db, episodeId: string): string | null {
  return (db.prepare('SELECT task_set_sha256 FROM episodes WHERE episode_id = ?').pluck().get(episodeId) as string | null | undefined) ?? null;
}

/** A stored episode as `episodesAfter` gives it: where it sits in the table and its run. */
export interface StoredEpisodeRecord {
  rowid: number;
  runId: string | null;
  record: EpisodeRecord;
}

/**
 * Up to `limit` episodes stored after the row `afterRowid`, in table order, their turns without
 * message lists: what a report reads, in one statement a page instead of loadEpisode's two an
 * episode. New rows get larger rowids than any before them; saving an episode again keeps its row.
 */
export function episodesAfter(db: Db, afterRowid: number, limit: number): StoredEpisodeRecord[] {
  const rows = statements(db).after.all(afterRowid, limit) as { rowid: number; run_id: string | null; record_json: string; turns_json: string | null }[];
  return rows.map((row) => {
    const record = JSON.parse(row.record_json) as EpisodeRecord;
    // Sorted here: an ORDER BY inside the aggregate costs the statement a third of its time.
    if (isCompleted(record)) record.turns = row.turns_json === null ? [] : (JSON.parse(row.turns_json) as Turn[]).sort((a, b) => a.turn - b.turn);
    return { rowid: row.rowid, runId: row.run_id, record };
  });
}

/**
 * Every episode id in id order, read a page at a time: no statement stays open between pages, so
 * the caller may load each episode (loadEpisode) as it goes, in memory that does not grow with the store.
 */
export function* episodeIds(db: Db, pageSize = 500): Generator<string> {
  const page = db.prepare('SELECT episode_id FROM episodes WHERE episode_id > ? ORDER BY episode_id LIMIT ?').pluck();
  for (let after = ''; ; ) {
    const ids = page.all(after, pageSize) as string[];
    yield* ids;
    if (ids.length < pageSize) return;
    after = ids[ids.length - 1] as string;
  }
}

interface StoredEpisode {
  episode_id: string;
  record_json: string;
}

/** The query's filters as SQL, and `extra` conditions of the caller's own (no parameters). */
function whereClause(query: EpisodeQuery, extra: readonly string[] = []): { sql: string; params: unknown[] } {
  const conditions: string[] = [...extra];
  const params: unknown[] = [];
  const equal = (column: string, value: string | undefined) => {
    if (value === undefined) return;
    conditions.push(`${column} = ?`);
    params.push(value);
  };
  // Names people type ("qwen", "serbia", "wrong") match the stored spelling by its start, whatever
  // the case; a country also by the names, codes and demonyms geolab knows for it. The list scans
  // the covering index either way, so LIKE and the IN list cost nothing there.
  const startsWith = (column: string, value: string) => {
    params.push(`${escapeLike(value)}%`);
    return `${column} LIKE ? ESCAPE '\\'`;
  };
  if (query.model !== undefined) conditions.push(startsWith('model_name', query.model));
  equal('split', query.split);
  if (query.country !== undefined) {
    const names = countryNamesFor(query.country);
    const prefixed = startsWith('country', query.country);
    conditions.push(names.length ? `(${prefixed} OR country COLLATE NOCASE IN (${names.map(() => '?').join(', ')}))` : prefixed);
    params.push(...names);
  }
  if (query.verdict !== undefined) conditions.push(startsWith('verdict', query.verdict));
  equal('run_id', query.runId);
  if (query.minReward !== undefined) {
    conditions.push('reward >= ?');
    params.push(query.minReward);
  }
  if (query.maxReward !== undefined) {
    conditions.push('reward <= ?');
    params.push(query.maxReward);
  }
  if (query.status !== undefined) conditions.push(statusCondition(query.status));
  if (query.text !== undefined) {
    conditions.push('rowid IN (SELECT rowid FROM episode_text WHERE episode_text MATCH ?)');
    params.push(textQuery(query.text));
  }
  if (query.search) {
    const columns = ['episode_id', 'model_name', 'task_id', 'country', 'verdict', 'error'];
    conditions.push(`(${columns.map((c) => `${c} LIKE ? ESCAPE '\\'`).join(' OR ')})`);
    const pattern = `%${escapeLike(query.search)}%`;
    params.push(...columns.map(() => pattern));
  }
  return { sql: conditions.length ? ` WHERE ${conditions.join(' AND ')}` : '', params };
}

/** The condition of a status (no parameters); a value outside EPISODE_STATUSES is a usage error naming them. */
function statusCondition(status: EpisodeStatus): string {
  switch (status) {
    case 'scored':
      return 'error IS NULL';
    case 'failed':
      return `(error IS NOT NULL AND error <> '${ABORTED_ERROR}')`;
    case 'aborted':
      return `error = '${ABORTED_ERROR}'`;
    case 'provider-error':
      // A completed record's turns are rows (the partial index of migration 6 finds them); a failed
      // one's are in its record, read for the failed episodes only.
      return `(episode_id IN (SELECT episode_id FROM turns WHERE status = 'provider_error')
        OR (error IS NOT NULL AND EXISTS (SELECT 1 FROM json_each(record_json, '$.turns') j WHERE j.value ->> '$.status' = 'provider_error')))`;
    default:
      throw new UsageError(unknownStatus(String(status satisfies never)));
  }
}

/** `text` as a LIKE pattern that matches it literally (with ESCAPE '\\'). */
function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => '\\' + c);
}

/** Harness times carry an offset ("+00:00"), geolab's a "Z": one form, so that text order is time order. */
function normalizeTime(value: unknown): string | null {
  if (typeof value !== 'string' || value === '') return null;
  // A time without a zone is UTC in the harness (docs/formats.md), not the reader's local time.
  const zoned = /T\d\d:\d\d(:\d\d(\.\d+)?)?$/.test(value) ? value + 'Z' : value;
  const ms = Date.parse(zoned);
  return Number.isNaN(ms) ? value : new Date(ms).toISOString();
}

function writeEpisode(db: Db, s: EpisodeStatements, record: EpisodeRecord, options: SaveOptions): void {
  let turns: Turn[] = [];
  let stored: Record<string, unknown> = record;
  let outcome: CompletedEpisode['outcome'] | undefined;
  let error: string | null = null;
  if (isCompleted(record)) {
    const { turns: recordTurns, ...withoutTurns } = record;
    turns = recordTurns ?? [];
    stored = withoutTurns;
    outcome = record.outcome;
  } else {
    error = record.error;
  }
  // Every refusal (EpisodeFieldError) comes before the first write: saveEpisodeInTransaction needs no savepoint.
  const seen = new Set<number>();
  const turnRows = turns.map((turn, i) => {
    if (seen.has(turn.turn)) throw new EpisodeFieldError(`turns[${i}].turn`, `turn ${turn.turn} appears twice`);
    seen.add(turn.turn);
    return turnColumns(db, record.episode_id, turn, i, options);
  });
  const text = searchText((record as { turns?: unknown }).turns);
  s.upsert.run({
    episode_id: record.episode_id,
    run_id: options.runId ?? null,
    record_time: normalizeTime(record.recorded_at),
    now: new Date().toISOString(),
    model_name: record.model_name ?? null,
    split: record.task.split,
    task_index: record.task.index,
    sample: record.task.sample ?? 0,
    task_id: record.task.task_id ?? null,
    country: record.task.country ?? null,
    verdict: outcome?.verdict ?? null,
    distance_km: outcome?.distance_km ?? null,
    reward: outcome?.reward ?? null,
    train_reward: outcome?.train_reward ?? null,
    turns_used: outcome?.turns_used ?? null,
    error,
    record_json: JSON.stringify(stored),
    task_set_sha256: versionPlayed(db, record.task.split, record.task.index, record.task.task_id ?? null),
  });
  s.deleteTurns.run(record.episode_id);
  for (const row of turnRows) s.insertTurn.run(...row);
  // The words `text:` searches (episode-text.ts), from the record in hand: no JSON read back.
  const rowid = s.rowidOf.get(record.episode_id) as number;
  if (text === '') s.deleteText.run(rowid);
  else s.replaceText.run(rowid, text);
}

function turnColumns(db: Db, episodeId: string, turn: Turn, i: number, options: SaveOptions): unknown[] {
  const { messages, ...rest } = turn as Turn & { messages?: unknown };
  let image = turn.image_sha256 ?? null;
  if (image !== null && !hasImage(db, image)) {
    if (options.missingImages !== 'unlink') {
      throw new EpisodeFieldError(`turns[${i}].image_sha256`, `image ${image} is not in the image store: store the episode's images first`);
    }
    image = null;
  }
  return [
    episodeId,
    turn.turn,
    turn.status ?? null,
    turn.action ? JSON.stringify(turn.action) : null,
    image,
    turn.feedback ?? null,
    turn.reward ?? null,
    turn.done ? 1 : 0,
    messages === undefined ? null : JSON.stringify(messages),
    JSON.stringify(rest),
  ];
}

type EpisodeStatements = ReturnType<typeof prepareStatements>;

// Prepared once per connection: an import saves thousands of episodes a second.
const prepared = new WeakMap<Db, EpisodeStatements & { save: Transaction<(record: EpisodeRecord, options: SaveOptions) => void> }>();

function statements(db: Db) {
  let cached = prepared.get(db);
  if (!cached) {
    const s = prepareStatements(db);
    cached = { ...s, save: db.transaction((record: EpisodeRecord, options: SaveOptions) => writeEpisode(db, s, record, options)) };
    prepared.set(db, cached);
  }
  return cached;
}

function prepareStatements(db: Db) {
  const fields = [
    'episode_id', 'run_id', 'recorded_at', 'model_name', 'split', 'task_index', 'sample', 'task_id', 'country',
    'verdict', 'distance_km', 'reward', 'train_reward', 'turns_used', 'error', 'record_json', 'task_set_sha256',
  ];
  const values = fields.map((f) => (f === 'recorded_at' ? 'COALESCE(@record_time, @now)' : `@${f}`));
  // On a second save the run and the time are kept when the new record does not carry them.
  const updates = fields
    .filter((f) => f !== 'episode_id')
    .map((f) =>
      f === 'run_id'
        ? 'run_id = COALESCE(excluded.run_id, episodes.run_id)'
        : f === 'recorded_at'
          ? 'recorded_at = COALESCE(@record_time, episodes.recorded_at)'
          : `${f} = excluded.${f}`,
    );
  return {
    upsert: db.prepare(
      `INSERT INTO episodes (${fields.join(', ')}) VALUES (${values.join(', ')})
       ON CONFLICT (episode_id) DO UPDATE SET ${updates.join(', ')}`,
    ),
    deleteTurns: db.prepare('DELETE FROM turns WHERE episode_id = ?'),
    insertTurn: db.prepare(
      `INSERT INTO turns (episode_id, turn, status, action_json, image_sha256, feedback, reward, done, messages_json, turn_json)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    rowidOf: db.prepare('SELECT rowid FROM episodes WHERE episode_id = ?').pluck(),
    deleteText: db.prepare('DELETE FROM episode_text WHERE rowid = ?'),
    replaceText: db.prepare('INSERT OR REPLACE INTO episode_text (rowid, text) VALUES (?, ?)'),
    byId: db.prepare('SELECT episode_id, record_json FROM episodes WHERE episode_id = ?'),
    // Ids sharing a prefix are contiguous in the primary-key index, starting at the prefix itself.
    idsFrom: db.prepare('SELECT episode_id FROM episodes WHERE episode_id >= ? ORDER BY episode_id LIMIT ?').pluck(),
    turnsOf: db.prepare('SELECT turn_json, messages_json FROM turns WHERE episode_id = ? ORDER BY turn'),
    // Each turn_json is a JSON object: joined with commas inside brackets they are one JSON array.
    after: db.prepare(
      `SELECT e.rowid AS rowid, e.run_id, e.record_json,
         (SELECT '[' || group_concat(t.turn_json, ',') || ']' FROM turns t WHERE t.episode_id = e.episode_id) AS turns_json
       FROM episodes e WHERE e.rowid > ? ORDER BY e.rowid LIMIT ?`,
    ),
  };
}
