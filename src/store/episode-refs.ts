/**
 * The episodes a command names (`episodes compare A B`, `episodes replay X`): a workspace episode id
 * or the start of one, an episode JSONL file (every record in it), or `FILE:LINE` (the record on that
 * line). A file wins over an id when both could be meant, since ids never contain a path separator.
 */
import { existsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseEpisodeRecord, type EpisodeRecord } from '../core/episode.js';
import { GeolabError, InputError, UsageError } from '../core/errors.js';
import { parseJsonLine, textLines } from '../files.js';
import type { Workspace } from './index.js';

export interface NamedEpisode {
  /** How messages name it: `path/episodes.jsonl:3`, or the first 8 characters of its id. */
  label: string;
  record: EpisodeRecord;
  /** The folder of the file it came from, where its `image_path`s point; absent from the workspace. */
  fileDir?: string;
}

export interface FileRef {
  file: string;
  /** Only this line's record; every record of the file when absent. */
  line?: number;
}

/** The file (and line) a reference names, or null when it names no file (an episode id, then). */
export function fileRef(ref: string): FileRef | null {
  if (isFile(ref)) return { file: ref };
  const at = /^(.+):(\d+)$/.exec(ref);
  if (at && isFile(at[1]!)) return { file: at[1]!, line: Number(at[2]) };
  return null;
}

function isFile(path: string): boolean {
  return existsSync(path) && statSync(path).isFile();
}

/** The valid records of a file, or of one of its lines; a bad line is an error naming file:line and field. */
export async function episodesInFile({ file, line: wanted }: FileRef): Promise<NamedEpisode[]> {
  const found: NamedEpisode[] = [];
  let lines = 0;
  for await (const { line, text } of textLines(file)) {
    lines = line;
    if ((wanted !== undefined && line !== wanted) || text.trim() === '') continue;
    const parsed = parseEpisodeRecord(parseJsonLine(text, file, line));
    if (!parsed.ok) {
      const issue = parsed.issues[0];
      throw new InputError(`not a schema-v2 episode record: ${issue?.message ?? parsed.error}`, { file, line, field: issue?.path || undefined });
    }
    found.push({ label: `${file}:${line}`, record: parsed.record, fileDir: dirname(file) });
    if (wanted !== undefined) break;
  }
  if (found.length === 0) {
    const what = wanted === undefined ? 'no episode records' : wanted > lines ? `no line ${wanted} (it has ${lines})` : `no episode record on line ${wanted}`;
    throw new InputError(`${what}: expected schema-v2 episode JSONL`, { file });
  }
  return found;
}

/** The workspace's episode with this id or unique id prefix. */
export async function workspaceEpisode(ws: Workspace, id: string): Promise<NamedEpisode> {
  const { loadEpisode } = await import('./episodes.js');
  const record = loadEpisode(ws.db, id);
  if (!record) throw new GeolabError(`no episode ${id} in ${ws.dir}, and no such file (see \`geolab episodes list\`)`);
  return { label: record.episode_id.slice(0, 8), record };
}

/** Every episode a reference names: those of a file (or its one line), or the workspace's one by id. */
export async function namedEpisodes(ws: Workspace, ref: string): Promise<NamedEpisode[]> {
  const file = fileRef(ref);
  return file ? episodesInFile(file) : [await workspaceEpisode(ws, ref)];
}

/** The one episode a reference names (an id, FILE:LINE, or a file holding just one). */
export async function oneEpisode(ws: Workspace, ref: string): Promise<NamedEpisode> {
  const episodes = await namedEpisodes(ws, ref);
  if (episodes.length === 1) return episodes[0]!;
  throw new UsageError(`${ref} holds ${episodes.length} episodes: name one as ${ref}:LINE (for example ${episodes[0]!.label})`);
}
