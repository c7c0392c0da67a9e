/**
 * The workspace recorder: the sink a runner hands finished episodes to. Each episode lands twice,
 * in the workspace database (for the TUI, the audit and the eval board) and as one line of the run's
 * `runs/<run-id>/episodes.jsonl` (docs/formats.md, so the public harness's `report` reads geolab runs).
 * Images are stored once by sha256 and referenced by hash and by path, never inlined; a sweep's run
 * folder also holds its own links to them (`ownImages`), so that its records point inside it.
 */
import { randomBytes } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { basename, join, relative, sep } from 'node:path';
import { parseEpisodeRecord, withoutEmptyKeys, type EpisodeRecord, type Turn } from '../core/episode.js';
import { GeolabError } from '../core/errors.js';
import { linkOrCopy } from '../files.js';
import { saveEpisode } from '../store/episodes.js';
import { assertRunId, ensureEvalRun } from '../store/eval-runs.js';
import { imagePath, sniffImageMime, storeImage } from '../store/images.js';
import type { Workspace } from '../store/index.js';
import type { EpisodeSink } from './types.js';

/** A run folder's own images (with `ownImages`), beside its episodes.jsonl. */
export const IMAGES_DIR = 'images';

export interface RecorderOptions {
  /** Continue (append to) an existing run, or name a new one; default: a fresh time-stamped id. */
  runId?: string;
  /** Human name of the run in `eval_runs` (default: the run id). */
  runName?: string;
  /** The run's configuration, kept in run.json and `eval_runs.config_json`. */
  config?: Record<string, unknown>;
  /** Where episodes.jsonl and run.json go (a sweep's output tree); default `<workspace>/runs/<runId>`. */
  runDir?: string;
  /**
   * Keep the images in the run folder: each is hard-linked (copied where linking fails) into
   * `<runDir>/images/`, and `image_path` points there, so the folder can be moved or copied whole.
   * Otherwise `image_path` points into the workspace's image store.
   */
  ownImages?: boolean;
}

export interface Recorder extends EpisodeSink {
  readonly runId: string;
  /** Where episodes.jsonl and run.json are: `<workspace>/runs/<runId>` unless given. */
  readonly runDir: string;
}

/** A run id that sorts by time and reads as one: `2026-11-30T03-40-12-a1b2c3` (UTC). */
export function newRunId(now = new Date()): string {
  return `${now.toISOString().slice(0, 19).replace(/:/g, '-')}-${randomBytes(3).toString('hex')}`;
}

export function createRecorder(ws: Workspace, options: RecorderOptions = {}): Recorder {
  const runId = options.runId ?? newRunId();
  assertRunId(runId);
  const runDir = options.runDir ?? join(ws.paths.runs, runId);
  const episodesFile = join(runDir, 'episodes.jsonl');
  let started = false;

  const start = (first: EpisodeRecord) => {
    const createdAt = new Date().toISOString();
    const config = options.config ?? {};
    mkdirSync(runDir, { recursive: true });
    const runFile = join(runDir, 'run.json');
    if (!existsSync(runFile)) {
      const run = {
        run_id: runId,
        name: options.runName ?? runId,
        created_at: createdAt,
        model_name: first.model_name,
        model: first.model,
        config: withoutEmptyKeys(config),
      };
      writeFileSync(runFile, JSON.stringify(run, null, 2) + '\n');
    }
    ensureEvalRun(ws.db, { id: runId, name: options.runName, root: runDir, config, createdAt });
    started = true;
  };

  return {
    runId,
    runDir,
    // The body never awaits: episodes written concurrently by several runners never interleave
    // their lines, and the run is started exactly once.
    async write(given, images) {
      // Keys without a value are left out of what is written (docs/formats.md), whoever built the record.
      const record = withoutEmptyKeys(given);
      // Checked before anything is written, so the JSONL only ever holds records the harness reads.
      const parsed = parseEpisodeRecord(record);
      if (!parsed.ok) throw new GeolabError(`episode ${record.episode_id} is not a valid schema-v2 record: ${parsed.error}`);
      for (const [sha256, image] of images) {
        const mime = sniffImageMime(image.bytes);
        if (!mime) throw new GeolabError(`episode ${record.episode_id}: image ${sha256} is neither JPEG nor PNG (declared ${image.mime})`);
        const stored = storeImage(ws, image.bytes, mime);
        // Records refer to images by these keys: a key that is not the bytes' hash would dangle.
        if (stored !== sha256) throw new GeolabError(`episode ${record.episode_id}: image keyed ${sha256} has sha256 ${stored}`);
      }
      const withPaths = withImagePaths(record, (sha256) => {
        const stored = imagePath(ws, sha256);
        if (!stored) return undefined;
        let file = stored;
        if (options.ownImages) {
          file = join(runDir, IMAGES_DIR, basename(stored));
          linkOrCopy(stored, file);
        }
        return relative(runDir, file).split(sep).join('/');
      });
      if (!started) start(withPaths);
      saveEpisode(ws.db, withPaths, { runId });
      appendFileSync(episodesFile, JSON.stringify(withPaths) + '\n');
    },
  };
}

/** The record with each turn's `image_path` set to its image file, relative to the run directory. */
function withImagePaths(record: EpisodeRecord, pathOf: (sha256: string) => string | undefined): EpisodeRecord {
  if (!Array.isArray(record.turns)) return record;
  const turns = (record.turns as Turn[]).map((turn) => {
    const path = turn.image_sha256 ? pathOf(turn.image_sha256) : undefined;
    return path ? { ...turn, image_path: path } : turn;
  });
  return { ...record, turns };
}
