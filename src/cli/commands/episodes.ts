/** `geolab episodes list | import`. */
import { basename, dirname, relative, resolve, sep } from 'node:path';
import { UsageError } from '../../core/errors.js';
import { episodeState, episodeStatus, unknownStatus } from '../../store/episode-state.js';
import { countEpisodes, listEpisodes, type EpisodeQuery, type EpisodeRow } from '../../store/episodes.js';
import { runTreeFiles } from '../../files.js';
import { importEpisodesFile, type ImportEpisodesResult } from '../../store/import-episodes.js';
import { openWorkspace } from '../../store/index.js';
import type { GlobalOptions } from '../options.js';
import { printJson, printLine, table, warn, warnSkipped } from '../output.js';

const DEFAULT_LIMIT = 50;

export interface ListOptions extends GlobalOptions {
  /** Episodes to show, newest first (default 50; 0 shows all). */
  limit?: number;
  model?: string;
  split?: string;
  country?: string;
  verdict?: string;
  /** Only episodes whose stored reward is at least this. */
  minReward?: number;
  /** Case-insensitive text in the id, model, task id, country, verdict or error. */
  search?: string;
  /** Only the episodes of this run. */
  run?: string;
  /** scored, failed, aborted or provider-error (any case). */
  status?: string;
  /** Words of the prompts, replies and reasoning (the workspace's full-text index). */
  text?: string;
}

export async function listCommand(opts: ListOptions): Promise<void> {
  const limit = opts.limit ?? DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 0) throw new UsageError(`--limit expects a whole number of episodes, got ${limit}`);
  if (opts.minReward !== undefined && !Number.isFinite(opts.minReward)) throw new UsageError(`--min-reward expects a number, got ${opts.minReward}`);
  const status = opts.status === undefined ? undefined : episodeStatus(opts.status);
  if (opts.status !== undefined && !status) throw new UsageError(`--status: ${unknownStatus(opts.status)}`);
  const query: EpisodeQuery = {
    model: opts.model,
    split: opts.split,
    country: opts.country,
    verdict: opts.verdict,
    minReward: opts.minReward,
    search: opts.search,
    status,
    text: opts.text,
    runId: opts.run,
  };
  const ws = await openWorkspace(opts.workspace);
  try {
    const rows = listEpisodes(ws.db, { ...query, limit: limit || undefined });
    if (opts.json) return printJson(rows.map(jsonRow));
    if (rows.length === 0) return printLine(`no episodes${Object.values(query).some((v) => v !== undefined) ? ' match' : ' yet'}`);
    printLine(
      table([
        ['episode', 'model', 'split', 'task', 'country', 'verdict', 'distance_km', 'reward'],
        ...rows.map((e) => [
          e.episode_id.slice(0, 8),
          e.model_name ?? '-',
          e.split,
          e.task_index,
          e.country ?? '-',
          e.error !== null ? episodeState(e.error) : (e.verdict ?? '-'),
          e.distance_km === null ? '-' : e.distance_km.toFixed(1),
          e.reward === null ? '-' : e.reward.toFixed(3),
        ]),
      ]),
    );
    const total = countEpisodes(ws.db, query);
    if (total > rows.length) printLine(`\n${rows.length} of ${total} episodes, newest first (--limit N for more)`);
  } finally {
    ws.close();
  }
}

/** The JSON form of a listed episode: the table's columns with the full id and the time. */
function jsonRow(e: EpisodeRow) {
  return {
    episode_id: e.episode_id,
    recorded_at: e.recorded_at,
    model: e.model_name,
    split: e.split,
    task_index: e.task_index,
    country: e.country,
    verdict: e.verdict,
    distance_km: e.distance_km,
    reward: e.reward,
    state: episodeState(e.error),
  };
}

export interface ImportOptions extends GlobalOptions {
  skipInvalid?: boolean;
  runId?: string;
  /** A folder besides the file's own that records may name images in. */
  imagesDir?: string;
}

/**
 * Imports files and whole run trees. Each file is one transaction (idempotent by episode_id); an
 * episode found under a folder joins the run the tree names (`<run>/episodes.jsonl`, or the folder
 * holding `pass-<p>/shard-<i>/`) unless --run-id names one for everything.
 */
export async function importCommand(paths: string[], opts: ImportOptions): Promise<void> {
  const files = paths.flatMap((path) => {
    const found = runTreeFiles(path, warnSkipped);
    const tree = found.length !== 1 || found[0] !== path;
    return found.map((file) => ({ file, runId: opts.runId ?? (tree ? runIdOf(path, file) : undefined) }));
  });
  const ws = await openWorkspace(opts.workspace);
  try {
    const results: ImportEpisodesResult[] = [];
    for (const { file, runId } of files) {
      const started = Date.now();
      // Long imports show a count and a rate on a terminal; pipes and --json get the result only.
      const onProgress =
        process.stderr.isTTY && !opts.json
          ? (lines: number) => process.stderr.write(`\r${file}: ${lines} lines, ${Math.round(lines / ((Date.now() - started) / 1000 || 1))}/s`)
          : undefined;
      const result = await importEpisodesFile(ws, file, { skipInvalid: opts.skipInvalid, runId, imagesDir: opts.imagesDir, onProgress });
      if (onProgress) process.stderr.write('\r\x1b[K');
      results.push(result);
      if (!opts.json) printResult(result, ws.dir);
    }
    if (opts.json) {
      if (results.length === 1) return printJson({ ...results[0], workspace: ws.dir });
      const sum = (key: 'imported' | 'new' | 'already_present' | 'skipped' | 'images') => results.reduce((n, r) => n + r[key], 0);
      return printJson({ files: results, imported: sum('imported'), new: sum('new'), already_present: sum('already_present'), skipped: sum('skipped'), images: sum('images'), workspace: ws.dir });
    }
    if (results.length > 1) {
      const total = (key: 'new' | 'already_present') => results.reduce((n, r) => n + r[key], 0);
      printLine(`${results.length} files: ${total('new')} new, ${total('already_present')} already present, in ${ws.dir}`);
    }
  } finally {
    ws.close();
  }
}

function printResult(result: ImportEpisodesResult, workspace: string): void {
  const { file } = result;
  for (const message of result.warnings) warn(`${file}: warning: ${message}`);
  for (const p of result.invalid) warn(`${file}:${p.line}: skipped: ${p.field ? `${p.field}: ` : ''}${p.message}`);
  const unreported = result.skipped - new Set(result.invalid.map((p) => p.line)).size;
  if (unreported > 0) warn(`${file}: and ${unreported} more invalid line(s)`);
  const skipped = result.skipped ? `, skipped ${result.skipped} invalid line(s)` : '';
  const images = result.images ? `, ${result.images} new image(s)` : '';
  printLine(`${file}: ${result.new} new, ${result.already_present} already present${images}${skipped}, in ${workspace}`);
}

/**
 * The run a file of a tree belongs to: its own folder, or for a sweep the folder above `pass-<p>`;
 * the folder given is the run when the file sits right in it. Characters a run id may not hold become "-".
 */
function runIdOf(root: string, file: string): string {
  const parts = relative(resolve(root), dirname(resolve(file))).split(sep).filter(Boolean);
  const pass = parts.findIndex((part) => /^pass-\d+$/.test(part));
  const inRoot = pass === -1 ? parts : parts.slice(0, pass);
  const name = inRoot.length > 0 ? inRoot.join('-') : basename(resolve(root));
  return name.replace(/^[^A-Za-z0-9]+/, '').replace(/[^A-Za-z0-9_.-]/g, '-').slice(0, 128) || 'run';
}
