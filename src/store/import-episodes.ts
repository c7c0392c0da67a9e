/**
 * Imports a geoeval episode file (JSONL, schema v2, completed and failed records) into the store.
 * Streams the file line by line (constant memory in its size) inside one transaction: a bad line
 * aborts the whole import, naming file:line and the field, unless `skipInvalid`, which counts and
 * skips it. Idempotent by episode_id, like saveEpisode. Turn images are linked from the files the
 * records name (`image_path`, relative to the JSONL) when their bytes match `image_sha256`.
 */
import { createReadStream, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { parseEpisodeRecord, type Turn } from '../core/episode.js';
import { InputError } from '../core/errors.js';
import { assertReadableFile } from '../files.js';
import { beginWrite } from './db.js';
import { assertRunId, ensureEvalRun } from './eval-runs.js';
import { EpisodeFieldError, saveEpisode, type EpisodeRecord } from './episodes.js';
import { hasImage, sha256Hex, sniffImageMime, storeImage } from './images.js';
import type { Workspace } from './index.js';

export interface ImportEpisodesOptions {
  /** Attach the episodes to this eval run (created when new). */
  runId?: string;
  /** Skip and count invalid lines instead of aborting. */
  skipInvalid?: boolean;
  /** Called every PROGRESS_EVERY lines with the count so far. */
  onProgress?: (lines: number) => void;
}

export interface InvalidLine {
  line: number;
  /** Field path such as `turns[2].pins[0]`; empty for the line as a whole. */
  field: string;
  message: string;
}

export interface ImportEpisodesResult {
  file: string;
  lines: number;
  imported: number;
  /** Lines skipped as invalid (only with skipInvalid). */
  skipped: number;
  /** The first MAX_REPORTED problems of the skipped lines. */
  invalid: InvalidLine[];
  /** Images newly stored from files next to the JSONL. */
  images: number;
}

const PROGRESS_EVERY = 1000;
const MAX_REPORTED = 100;

export async function importEpisodesFile(ws: Workspace, file: string, options: ImportEpisodesOptions = {}): Promise<ImportEpisodesResult> {
  const path = resolve(file);
  await assertReadableFile(file, 'episode file');
  if (options.runId !== undefined) assertRunId(options.runId);
  const result: ImportEpisodesResult = { file, lines: 0, imported: 0, skipped: 0, invalid: [], images: 0 };
  const baseDir = dirname(path);
  const reject = (problems: InvalidLine[]) => {
    const first = problems[0] as InvalidLine;
    if (!options.skipInvalid) throw new InputError(first.message, { file, line: first.line, field: first.field || undefined });
    result.skipped++;
    result.invalid.push(...problems.slice(0, MAX_REPORTED - result.invalid.length));
  };

  // One transaction across the awaits of the line reader (a savepoint in the seeding one); each
  // saveEpisode nests inside it as a savepoint.
  const write = beginWrite(ws.db);
  try {
    if (options.runId !== undefined) ensureEvalRun(ws.db, { id: options.runId, root: baseDir });
    const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
    for await (const text of lines) {
      const line = ++result.lines;
      if (options.onProgress && line % PROGRESS_EVERY === 0) options.onProgress(line);
      if (text.trim() === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (err) {
        reject([{ line, field: '', message: `not valid JSON: ${(err as Error).message}` }]);
        continue;
      }
      const parsed = parseEpisodeRecord(value);
      if (!parsed.ok) {
        reject(parsed.issues.map((issue) => ({ line, field: issue.path, message: issue.message })));
        continue;
      }
      // The line as written, not zod's copy of it: same content, the file's own key order.
      const record = value as EpisodeRecord;
      result.images += linkImages(ws, record, baseDir);
      try {
        saveEpisode(ws.db, record, { runId: options.runId, missingImages: 'unlink' });
      } catch (err) {
        if (!(err instanceof EpisodeFieldError)) throw err;
        reject([{ line, field: err.field, message: err.detail }]);
        continue;
      }
      result.imported++;
    }
    write.commit();
  } catch (err) {
    write.rollback();
    throw err;
  }
  return result;
}

/**
 * Stores the images a record's turns name and the store lacks; returns how many. Nothing is cached
 * across records, so memory stays constant however many images a file references.
 */
function linkImages(ws: Workspace, record: EpisodeRecord, baseDir: string): number {
  if (!Array.isArray(record.turns)) return 0;
  let stored = 0;
  for (const turn of record.turns as Turn[]) {
    const sha256 = turn.image_sha256;
    if (!sha256 || !turn.image_path || hasImage(ws.db, sha256)) continue;
    const bytes = readIfPresent(resolve(baseDir, turn.image_path));
    const mime = bytes && sniffImageMime(bytes);
    // A file that is not the image the record hashed would make the reference lie: leave it out.
    if (bytes && mime && sha256Hex(bytes) === sha256) {
      storeImage(ws, bytes, mime);
      stored++;
    }
  }
  return stored;
}

function readIfPresent(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}
