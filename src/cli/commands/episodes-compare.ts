/**
 * `geolab episodes compare A B` (two episodes of one task side by side: the Compare screen on a
 * terminal, text or JSON elsewhere) and `geolab episodes replay FILE|ID` (every recorded image drawn
 * again and its hash checked). A and B are workspace episode ids or `FILE[:LINE]` of episode JSONL.
 */
import { resolve } from 'node:path';
import type { EpisodeRecord, Turn } from '../../core/episode.js';
import { EXIT, UsageError } from '../../core/errors.js';
import { isRecord } from '../../core/values.js';
import { compareEpisodes, comparisonLines, taskMismatch } from '../../eval/compare.js';
import { episodesInFile, fileRef, workspaceEpisode, type NamedEpisode } from '../../store/episode-refs.js';
import type { ReplayedTurn } from '../../eval/replay.js';
import type { ReplayProgress } from '../../eval/replay-run.js';
import { readContainedFile } from '../../files.js';
import type { Workspace } from '../../store/index.js';
import type { CompareSide } from '../../tui/state/navigation.js';
import type { GlobalOptions } from '../options.js';
import { printJson, printLine, warn } from '../output.js';
import { canDrawTui } from '../tty.js';

/** The width the plain text fits, so it reads in a narrow terminal or a pasted report. */
const TEXT_COLUMNS = 100;

export async function compareCommand(a: string, b: string, opts: GlobalOptions): Promise<void> {
  const [left, right] = await withEpisodes(opts, [a, b], async (found) => {
    const [x, y] = found.map((f) => single(f.ref, f.episodes));
    // Refused before any screen opens: a mismatch is bad usage (exit 2), naming both.
    const mismatch = taskMismatch(x!, y!);
    if (mismatch) throw new UsageError(mismatch);
    return [x!, y!];
  });
  if (!opts.json && canDrawTui()) {
    const { openCompare } = await import('../../tui/entry.js');
    return openCompare({ workspace: opts.workspace, a: await side(left!), b: await side(right!) });
  }
  const comparison = compareEpisodes(left!, right!);
  if (opts.json) return printJson(snakeKeys(comparison));
  for (const line of comparisonLines(comparison, TEXT_COLUMNS)) printLine(line);
}

/** JSON beside episode records reads in their snake_case: `referenceReward` is printed `reference_reward`. */
function snakeKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(snakeKeys);
  if (!isRecord(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), snakeKeys(item)]));
}

/** What the Compare screen opens on: a workspace episode by id, a file's record with the images it names. */
async function side(e: NamedEpisode): Promise<CompareSide> {
  return e.fileDir === undefined ? { episodeId: e.record.episode_id } : { label: e.label, record: e.record, images: await fileImages(e) };
}

/** A reference that names one episode: an id, FILE:LINE, or a file holding just one. */
function single(ref: string, episodes: NamedEpisode[]): NamedEpisode {
  if (episodes.length === 1) return episodes[0]!;
  throw new UsageError(`${ref} holds ${episodes.length} episodes: name one as ${ref}:LINE (for example ${episodes[0]!.label})`);
}

/**
 * The images a file's record names, read only from inside the file's folder and under the import's
 * size cap (docs/reliability.md, "Size caps"): a FIFO, a device or a larger file is never read, and
 * is said on stderr with the reason; a missing one is just not shown.
 */
export async function fileImages(e: NamedEpisode, say: (text: string) => void = warn): Promise<ReadonlyMap<string, Buffer>> {
  const images = new Map<string, Buffer>();
  if (e.fileDir === undefined) return images;
  const { MAX_IMAGE_BYTES } = await import('../../store/import-episodes.js');
  const root = resolve(e.fileDir);
  for (const [i, turn] of ((e.record.turns ?? []) as Turn[]).entries()) {
    if (!turn.image_sha256 || !turn.image_path || images.has(turn.image_sha256)) continue;
    const read = readContainedFile(resolve(root, turn.image_path), [root], MAX_IMAGE_BYTES);
    if (read.ok) images.set(turn.image_sha256, read.bytes);
    else if (!read.missing) say(`${e.label}: turns[${i}].image_path ${JSON.stringify(turn.image_path)} skipped: it ${read.reason}`);
  }
  return images;
}

export interface ReplayOptions extends GlobalOptions {
  /** Side of the square views, as the environment that recorded them served (default 640). */
  viewSize?: number;
  /** A panorama cache over the task sets' and the workspace's. */
  panos?: string;
}

export async function replayCommand(ref: string, opts: ReplayOptions): Promise<void> {
  if (opts.viewSize !== undefined && (!Number.isInteger(opts.viewSize) || opts.viewSize < 16 || opts.viewSize > 4096)) {
    throw new UsageError(`--view-size expects whole pixels from 16 to 4096, got ${opts.viewSize}`);
  }
  const [{ replayEpisodes }, { openWorkspace }] = await Promise.all([import('../../eval/replay-run.js'), import('../../store/index.js')]);
  const ws = await openWorkspace(opts.workspace);
  try {
    // A whole run takes a while (about a second per episode): a terminal gets count, rate and ETA.
    const progress = (total: number) => (process.stderr.isTTY && !opts.json && total > 1 ? progressMeter(total) : undefined);
    const { viewSizePx, replays, totals } = await replayEpisodes(ws, ref, { viewSize: opts.viewSize, panos: opts.panos, progress });
    if (totals.changed > 0) process.exitCode = EXIT.problemFound;
    if (opts.json) {
      return printJson({
        view_size: viewSizePx,
        ...totals,
        episodes: replays.map(({ episode, turns }) => ({ episode_id: episode.record.episode_id, source: episode.label, split: episode.record.task.split, index: episode.record.task.index, turns: turns.map(jsonTurn) })),
      });
    }
    for (const { episode, turns } of replays) printReplay(episode, turns);
    printLine(`${totals.images} image(s) at view size ${viewSizePx}: ${totals.ok} ok, ${totals.changed} changed, ${totals.cannot_render} cannot be drawn`);
  } finally {
    ws.close();
  }
}

/** Episodes replayed, the rate and the time left, on one line of stderr redrawn in place; cleared at the end. */
function progressMeter(total: number): ReplayProgress {
  const started = Date.now();
  return {
    replayed(done) {
      const rate = done / Math.max(0.001, (Date.now() - started) / 1000);
      const eta = Math.round((total - done) / rate);
      process.stderr.write(`\r\x1b[Kreplayed ${done}/${total} episodes, ${rate.toFixed(1)}/s, about ${eta} s left`);
    },
    end() {
      process.stderr.write('\r\x1b[K');
    },
  };
}

function jsonTurn(t: ReplayedTurn) {
  return { turn: t.turn, kind: t.kind, status: t.status, drawn: t.drawn, recorded_sha256: t.recordedSha256, rendered_sha256: t.renderedSha256 ?? null, reason: t.reason ?? null };
}

function printReplay(episode: NamedEpisode, turns: ReplayedTurn[]): void {
  const r: EpisodeRecord = episode.record;
  printLine(`episode ${r.episode_id} (${episode.label}) · ${r.model_name ?? '?'} · ${r.task.split}/${r.task.index}`);
  if (turns.length === 0) printLine('  no turn recorded an image hash: nothing to check');
  for (const t of turns) {
    const head = `  turn ${String(t.turn).padStart(2)}  ${t.kind.padEnd(4)}  ${t.status.padEnd(13)}`;
    if (t.status === 'ok') printLine(`${head} ${t.drawn}`);
    else if (t.status === 'changed') printLine(`${head} ${t.drawn}: recorded ${t.recordedSha256.slice(0, 12)}, drawn ${t.renderedSha256!.slice(0, 12)}`);
    else printLine(`${head} ${t.reason}`);
  }
}

/**
 * The episodes each reference names, the workspace opened only when a reference is an id (two
 * files compare without one); `use` runs while it is open.
 */
async function withEpisodes<T>(opts: GlobalOptions, refs: string[], use: (found: { ref: string; episodes: NamedEpisode[] }[], ws: Workspace | undefined) => Promise<T>): Promise<T> {
  const files = refs.map(fileRef);
  let ws: Workspace | undefined;
  if (files.some((f) => f === null)) ws = await (await import('../../store/index.js')).openWorkspace(opts.workspace);
  try {
    const found = [];
    for (const [i, ref] of refs.entries()) {
      const file = files[i];
      found.push({ ref, episodes: file ? await episodesInFile(file) : [await workspaceEpisode(ws!, ref)] });
    }
    return await use(found, ws);
  } finally {
    ws?.close();
  }
}
