/**
 * Imports a geoeval episode file (JSONL, schema v2, completed and failed records) into the store.
 *
 * Two passes over the file, streamed line by line (memory grows only with the ids and the images
 * met, not with the records):
 * 1. Outside any transaction: every line is parsed and validated, an episode_id repeated within the
 *    file is caught (naming both lines), and the turn images the records name (`image_path`) are
 *    read, checked against their `image_sha256` and written into the image store, and so are the
 *    images sent to the model that the turns' messages name, when found in `images/` beside the file.
 * 2. In one write transaction: the image rows and the episodes. No file a record names is read
 *    while the transaction is held, so a slow or hostile file cannot keep the workspace locked.
 * A bad line aborts the whole import, naming file:line and the field, unless `skipInvalid`, which
 * counts, reports and skips it. A failed import leaves no trace: the transaction rolls back and the
 * image files it wrote are removed. Idempotent by episode_id, like saveEpisode.
 *
 * An `image_path` is read only if it is a regular file of at most MAX_IMAGE_BYTES inside the file's
 * own folder (the run's) or `imagesDir`: FIFOs, devices and paths leading elsewhere are refused.
 */
import { realpathSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseEpisodeRecord, type EpisodeRecord, type Turn } from '../core/episode.js';
import { GeolabError, InputError } from '../core/errors.js';
import { assertReadableFile, readContainedFile, textLines } from '../files.js';
import { beginWrite } from './db.js';
import { assertRunId, ensureEvalRun } from './eval-runs.js';
import { EpisodeFieldError, saveEpisodeInTransaction } from './episodes.js';
import { hasImage, insertImageRow, sha256Hex, sniffImageMime, writeImageFile, type StoredImageFile } from './images.js';
import type { Workspace } from './index.js';

export interface ImportEpisodesOptions {
  /** Attach the episodes to this eval run (created when new). */
  runId?: string;
  /** Skip and count invalid lines instead of aborting. */
  skipInvalid?: boolean;
  /** A folder besides the file's own that records may name images in. */
  imagesDir?: string;
  /** Called every PROGRESS_EVERY lines with the count so far (of each pass). */
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
  /** Episodes saved: `new` plus `already_present`. */
  imported: number;
  /** Episodes whose id the workspace did not hold. */
  new: number;
  /** Episodes whose id the workspace held already (replaced by the file's record). */
  already_present: number;
  /** Lines skipped as invalid (only with skipInvalid). */
  skipped: number;
  /** The first MAX_REPORTED problems of the skipped lines. */
  invalid: InvalidLine[];
  /** Images newly stored from the files the records name. */
  images: number;
  /** Worth a look, the import went on: e.g. a file with no episodes. */
  warnings: string[];
}

const PROGRESS_EVERY = 1000;
const MAX_REPORTED = 100;
/** A panorama view or map is well under this; anything larger is not one of the harness's images. */
export const MAX_IMAGE_BYTES = 32 * 1024 * 1024;

export async function importEpisodesFile(ws: Workspace, file: string, options: ImportEpisodesOptions = {}): Promise<ImportEpisodesResult> {
  const path = resolve(file);
  await assertReadableFile(file, 'episode file');
  if (options.runId !== undefined) assertRunId(options.runId);
  const roots = imageRoots(dirname(path), options.imagesDir);
  const result: ImportEpisodesResult = { file, lines: 0, imported: 0, new: 0, already_present: 0, skipped: 0, invalid: [], images: 0, warnings: [] };
  const skippedLines = new Set<number>();
  const reject = (problems: InvalidLine[]) => {
    const first = problems[0] as InvalidLine;
    if (!options.skipInvalid) throw new InputError(first.message, { file, line: first.line, field: first.field || undefined });
    skippedLines.add(first.line);
    result.skipped++;
    result.invalid.push(...problems.slice(0, MAX_REPORTED - result.invalid.length));
  };

  const written: { image: StoredImageFile; file: string; created: boolean }[] = [];
  const onLine = (line: number) => {
    result.lines = line;
    if (options.onProgress && line % PROGRESS_EVERY === 0) options.onProgress(line);
  };
  try {
    const before = statSync(path);
    let episodes = 0;
    const firstLineOf = new Map<string, number>();
    for await (const { line, record } of records(path, onLine, reject)) {
      const seen = firstLineOf.get(record.episode_id);
      if (seen !== undefined) {
        reject([{ line, field: 'episode_id', message: `episode_id ${JSON.stringify(record.episode_id)} is repeated: first on line ${seen}, again on line ${line}` }]);
        continue;
      }
      firstLineOf.set(record.episode_id, line);
      episodes++;
      const problem = readImages(ws, record, path, roots, written);
      if (problem) reject([{ line, ...problem }]);
    }
    if (episodes === 0 && result.skipped === 0) result.warnings.push('no episodes in file');
    // The second pass must read the file the first one checked.
    const after = statSync(path);
    if (after.ino !== before.ino || after.size !== before.size || after.mtimeMs !== before.mtimeMs) {
      throw new InputError('the file changed while it was being imported: nothing was imported', { file });
    }

    // One transaction across the awaits of the line reader (a savepoint inside the seeding one); a
    // record saveEpisodeInTransaction refuses is refused before it writes anything, so it needs no
    // savepoint of its own.
    const write = beginWrite(ws.db);
    try {
      if (options.runId !== undefined) ensureEvalRun(ws.db, { id: options.runId, root: dirname(path) });
      for (const { image } of written) insertImageRow(ws.db, image);
      const exists = ws.db.prepare('SELECT 1 FROM episodes WHERE episode_id = ?').pluck();
      const progress = options.onProgress && ((line: number) => line % PROGRESS_EVERY === 0 && options.onProgress?.(line));
      for await (const { line, record } of records(path, progress, () => {})) {
        if (skippedLines.has(line)) continue;
        const present = exists.get(record.episode_id) !== undefined;
        try {
          saveEpisodeInTransaction(ws.db, record, { runId: options.runId, missingImages: 'unlink' });
        } catch (err) {
          if (!(err instanceof EpisodeFieldError)) throw err;
          reject([{ line, field: err.field, message: err.detail }]);
          continue;
        }
        if (present) result.already_present++;
        else result.new++;
      }
      write.commit();
    } catch (err) {
      write.rollback();
      throw err;
    }
  } catch (err) {
    removeUnrecorded(ws, written);
    throw err;
  }
  result.imported = result.new + result.already_present;
  result.images = written.filter((w) => w.created).length;
  return result;
}

/** The valid records of the file with their line numbers; every other non-blank line goes to `reject`. */
async function* records(
  file: string,
  onLine: ((line: number) => void) | undefined,
  reject: (problems: InvalidLine[]) => void,
): AsyncGenerator<{ line: number; record: EpisodeRecord }> {
  for await (const { line, text } of textLines(file)) {
    onLine?.(line);
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
    // The line as written, not the check's copy of it: same content, the file's own key order.
    yield { line, record: value as EpisodeRecord };
  }
}

function imageRoots(runDir: string, imagesDir: string | undefined): string[] {
  const roots = [realpathSync(runDir)];
  if (imagesDir !== undefined) {
    try {
      roots.push(realpathSync(imagesDir));
    } catch (err) {
      throw new InputError(`cannot use --images-dir: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, { file: imagesDir });
    }
  }
  return roots;
}

/**
 * Reads, checks and stores the images a record's turns name and the store lacks. A file that is
 * missing, or not the image the record hashed, is left out (the turn keeps its hash, unlinked); a
 * path that may not be read is a problem with the line.
 */
function readImages(
  ws: Workspace,
  record: EpisodeRecord,
  jsonl: string,
  roots: readonly string[],
  written: { image: StoredImageFile; file: string; created: boolean }[],
): Omit<InvalidLine, 'line'> | null {
  if (!Array.isArray(record.turns)) return null;
  const turns = record.turns as Turn[];
  for (const [i, turn] of turns.entries()) {
    const sha256 = turn.image_sha256;
    if (!sha256 || !turn.image_path || hasImage(ws.db, sha256) || written.some((w) => w.image.sha256 === sha256)) continue;
    const read = readContainedFile(resolve(dirname(jsonl), turn.image_path), roots, MAX_IMAGE_BYTES);
    if (!read.ok) {
      if (read.missing) continue;
      return {
        field: `turns[${i}].image_path`,
        message:
          `${JSON.stringify(turn.image_path)} ${read.reason}: expected a regular image file of at most ${MAX_IMAGE_BYTES} bytes ` +
          `inside ${roots.join(' or ')} (--images-dir DIR allows another folder)`,
      };
    }
    const mime = sniffImageMime(read.bytes);
    // A file that is not the image the record hashed would make the reference lie: leave it out.
    if (!mime || sha256Hex(read.bytes) !== sha256) continue;
    written.push(writeImageFile(ws, read.bytes, mime));
  }
  for (const sha256 of messageImages(turns)) {
    if (hasImage(ws.db, sha256) || written.some((w) => w.image.sha256 === sha256)) continue;
    for (const name of [`${sha256}.jpg`, `${sha256}.png`]) {
      const read = readContainedFile(join(dirname(jsonl), MESSAGE_IMAGES_DIR, name), roots, MAX_IMAGE_BYTES);
      const mime = read.ok ? sniffImageMime(read.bytes) : null;
      if (!read.ok || !mime || sha256Hex(read.bytes) !== sha256) continue;
      written.push(writeImageFile(ws, read.bytes, mime));
      break;
    }
  }
  return null;
}

/**
 * Where a file's records keep the images sent to the model (`{"type": "image", "sha256"}` parts of
 * the turns' messages), which a record names by hash only: `images/<sha256>.jpg|png` beside the file,
 * as the demo's episodes ship them. Without them the audit cannot check those images' metadata.
 */
const MESSAGE_IMAGES_DIR = 'images';

/** The hashes of the image parts of the turns' messages, each once. */
function messageImages(turns: readonly Turn[]): Set<string> {
  const found = new Set<string>();
  for (const turn of turns) {
    const messages = (turn as { messages?: unknown }).messages;
    if (!Array.isArray(messages)) continue;
    for (const message of messages) {
      const content = (message as { content?: unknown } | null)?.content;
      if (!Array.isArray(content)) continue;
      for (const part of content) {
        const { type, sha256 } = (part ?? {}) as { type?: unknown; sha256?: unknown };
        if (type === 'image' && typeof sha256 === 'string' && /^[0-9a-f]{64}$/.test(sha256)) found.add(sha256);
      }
    }
  }
  return found;
}

/** After a failed import: the image files it wrote that no `images` row refers to. */
function removeUnrecorded(ws: Workspace, written: readonly { image: StoredImageFile; file: string; created: boolean }[]): void {
  for (const { image, file, created } of written) {
    if (!created || hasImage(ws.db, image.sha256)) continue;
    try {
      rmSync(file, { force: true });
    } catch (err) {
      throw new GeolabError(`could not remove ${file} after the failed import: ${(err as Error).message}`);
    }
  }
}
