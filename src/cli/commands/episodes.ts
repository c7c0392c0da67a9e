/** `geolab episodes list | import`. */
import { UsageError } from '../../core/errors.js';
import { episodeState } from '../../store/episode-state.js';
import { countEpisodes, listEpisodes, type EpisodeQuery, type EpisodeRow } from '../../store/episodes.js';
import { importEpisodesFile } from '../../store/import-episodes.js';
import { openWorkspace } from '../../store/index.js';
import type { GlobalOptions } from '../main.js';
import { printJson, printLine, table, warn } from '../output.js';

const DEFAULT_LIMIT = 50;

export interface ListOptions extends GlobalOptions {
  /** Episodes to show, newest first (default 50; 0 shows all). */
  limit?: number;
  model?: string;
  split?: string;
  country?: string;
  verdict?: string;
}

export async function listCommand(opts: ListOptions): Promise<void> {
  const limit = opts.limit ?? DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 0) throw new UsageError(`--limit expects a whole number of episodes, got ${limit}`);
  const query: EpisodeQuery = { model: opts.model, split: opts.split, country: opts.country, verdict: opts.verdict };
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

export async function importCommand(file: string, opts: ImportOptions): Promise<void> {
  const ws = await openWorkspace(opts.workspace);
  try {
    const started = Date.now();
    // Long imports show a count and a rate on a terminal; pipes and --json get the result only.
    const onProgress =
      process.stderr.isTTY && !opts.json
        ? (lines: number) => process.stderr.write(`\r${lines} lines, ${Math.round(lines / ((Date.now() - started) / 1000 || 1))}/s`)
        : undefined;
    const result = await importEpisodesFile(ws, file, { skipInvalid: opts.skipInvalid, runId: opts.runId, imagesDir: opts.imagesDir, onProgress });
    if (onProgress) process.stderr.write('\r\x1b[K');
    if (opts.json) return printJson({ ...result, workspace: ws.dir });
    for (const message of result.warnings) warn(`${file}: warning: ${message}`);
    for (const p of result.invalid) warn(`${file}:${p.line}: skipped: ${p.field ? `${p.field}: ` : ''}${p.message}`);
    const unreported = result.skipped - new Set(result.invalid.map((p) => p.line)).size;
    if (unreported > 0) warn(`${file}: and ${unreported} more invalid line(s)`);
    const skipped = result.skipped ? `, skipped ${result.skipped} invalid line(s)` : '';
    const images = result.images ? `, ${result.images} new image(s)` : '';
    printLine(`${file}: ${result.new} new, ${result.already_present} already present${images}${skipped}, in ${ws.dir}`);
  } finally {
    ws.close();
  }
}
