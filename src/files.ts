/** Small file checks and reads shared by the loaders and caches. */
import { createHash, randomBytes } from 'node:crypto';
import { accessSync, closeSync, constants, copyFileSync, createReadStream, existsSync, fstatSync, linkSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, realpathSync, renameSync, rmSync, statSync, writeFileSync, type Stats } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { InputError, UsageError } from './core/errors.js';

/** Throws an InputError naming the file unless it is a readable regular file. */
export async function assertReadableFile(file: string, what: string): Promise<void> {
  try {
    const info = await stat(file);
    if (!info.isFile()) throw new InputError('not a regular file', { file });
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw new InputError(`cannot read ${what}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, { file });
  }
}

export async function fileExists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * A panorama cache directory as an absolute path. It may not exist yet (a fetch creates it), but
 * something other than a directory there is bad usage.
 */
export function checkedPanosDir(dir: string, what: string): string {
  const path = resolve(dir);
  const info = statSync(path, { throwIfNoEntry: false });
  if (info && !info.isDirectory()) throw new UsageError(`${what} ${path} is not a directory`);
  return path;
}

/**
 * Creates a directory and its missing parents, and checks that it is writable; otherwise throws an
 * InputError naming it, what it was for and `hint`. Node's recursive mkdir retries forever where a
 * parent exists but refuses children (`/proc/nope`), so the parents are walked here, one mkdir each.
 */
export function ensureWritableDirectory(dir: string, what: string, hint = ''): void {
  const target = resolve(dir);
  const fail = (reason: string) => new InputError(`cannot use this as the ${what}: ${reason}${hint && `; ${hint}`}`, { file: dir });
  const missing: string[] = [];
  for (let at = target; ; at = dirname(at)) {
    const where = at === target ? '' : `${at}: `;
    try {
      if (!statSync(at).isDirectory()) throw fail(`${where}not a directory`);
      break;
    } catch (err) {
      if (err instanceof InputError) throw err;
      // ENOTDIR: a file stands somewhere above; walking up names it.
      const code = (err as NodeJS.ErrnoException).code;
      if ((code !== 'ENOENT' && code !== 'ENOTDIR') || dirname(at) === at) throw fail(where + describeError(err));
      missing.push(at);
    }
  }
  for (const at of missing.reverse()) {
    try {
      mkdirSync(at);
    } catch (err) {
      // Another process may create the same directory at the same moment.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || !isDirectory(at)) throw fail(`cannot create ${at}: ${describeError(err)}`);
    }
  }
  try {
    accessSync(target, constants.W_OK | constants.X_OK);
  } catch (err) {
    throw fail(`not writable: ${describeError(err)}`);
  }
}

/** "ENOENT (no such file or directory)" from Node's "ENOENT: no such file or directory, mkdir '/x'". */
function describeError(err: unknown): string {
  const { code, message } = err as NodeJS.ErrnoException;
  const detail = /^[A-Z]+: ([^,]+)/.exec(message)?.[1];
  return code ? `${code}${detail ? ` (${detail})` : ''}` : message;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The longest line a JSONL reader takes by default (docs/reliability.md). */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;

/** "64 MiB", "1.5 KiB": a byte count as a person reads it. */
export function formatBytes(bytes: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} bytes` : `${Number.isInteger(value) ? value : value.toFixed(1)} ${units[unit]}`;
}

/**
 * The lines of a file as bytes, numbered from 1. A line ends at "\n", "\r\n" or a lone "\r". Lines
 * are cut in the bytes (no UTF-8 sequence holds a newline byte): readline's scan of long lines (a
 * prompt or episode line with inline images runs to megabytes) cost three times as much, and a
 * reader may skip bytes it never decodes.
 *
 * A line's bytes are a view of one reused buffer, valid until the next line is asked for: a
 * reader copies what it keeps. Reading into fresh chunks (a stream's) cost 200 ms of a 56 MB file's
 * first read in page faults and copies, against 10 ms reused. Memory stays about twice the longest
 * line (at least `chunkBytes`).
 *
 * A line longer than `maxLineBytes` is an InputError naming file:line and the cap, thrown as soon as
 * the buffer holds more than the cap without a line end: the line is never held whole, so memory
 * stays bounded by the cap (docs/reliability.md). This is the one line reader of every JSONL input.
 */
export async function* byteLines(file: string, chunkBytes = 1 << 20, maxLineBytes = MAX_LINE_BYTES, range?: ByteRange): AsyncGenerator<{ line: number; bytes: Buffer }, number> {
  return yield* byteLinesSync(file, chunkBytes, maxLineBytes, range);
}

/**
 * Bytes [start, end) of a file, where both are line starts (0, just after a "\n", or the file's
 * size; see lineStartAtOrAfter): its lines are numbered from 1 within the range.
 */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * byteLines for synchronous readers (a sweep's resume reads its tree before anything else runs).
 * Returns the number of lines read (the last one's number, blank lines counted).
 */
export function* byteLinesSync(file: string, chunkBytes = 1 << 20, maxLineBytes = MAX_LINE_BYTES, range?: ByteRange): Generator<{ line: number; bytes: Buffer }, number> {
  let line = 0;
  let position = range?.start ?? 0;
  const stop = range?.end ?? Infinity;
  let buffer = Buffer.allocUnsafe(Math.min(chunkBytes, maxLineBytes + 1));
  // The bytes not yet cut into lines are buffer[start, end).
  let start = 0;
  let end = 0;
  // The lines of a piece that ended at "\n" (or at the end of the file): a trailing "\r" dropped, a lone "\r" a line end.
  const pieces = function* (bytes: Buffer) {
    const stop = bytes.length && bytes[bytes.length - 1] === CR[0] ? bytes.length - 1 : bytes.length;
    let from = 0;
    for (let cr = bytes.indexOf(CR, from); cr !== -1 && cr < stop; cr = bytes.indexOf(CR, from)) {
      yield { line: ++line, bytes: bytes.subarray(from, cr) };
      from = cr + 1;
    }
    yield { line: ++line, bytes: bytes.subarray(from, stop) };
  };
  const fd = openRegularFile(file);
  try {
    for (;;) {
      // Searches stop at `end`: the buffer beyond it holds bytes of earlier reads.
      const data = buffer.subarray(0, end);
      for (let nl = data.indexOf(LF, start); nl !== -1; nl = data.indexOf(LF, start)) {
        yield* pieces(data.subarray(start, nl));
        start = nl + 1;
      }
      // Keep the partial line at the front, growing the buffer when the line fills it.
      if (start > 0) {
        buffer.copy(buffer, 0, start, end);
        end -= start;
        start = 0;
      }
      if (end === buffer.length) {
        if (end > maxLineBytes) {
          // Lines that end at a lone "\r" (not one that may be the "\r" of a "\r\n" cut by the read) are lines of their own.
          const cr = buffer.subarray(0, end - 1).lastIndexOf(CR);
          if (cr !== -1) {
            yield* pieces(buffer.subarray(0, cr + 1));
            start = cr + 1;
            continue;
          }
          throw new InputError(`line longer than the cap of ${formatBytes(maxLineBytes)} (a JSONL line holds one record)`, { file, line: line + 1 });
        }
        const grown = Buffer.allocUnsafe(Math.min(buffer.length * 2, maxLineBytes + 1));
        buffer.copy(grown, 0, 0, end);
        buffer = grown;
      }
      const want = Math.min(buffer.length - end, stop - position);
      const read = want > 0 ? readSync(fd, buffer, end, want, position) : 0;
      if (read === 0) break;
      end += read;
      position += read;
    }
    if (end > start) yield* pieces(buffer.subarray(start, end));
  } finally {
    closeSync(fd);
  }
  return line;
}

/**
 * The first line start at or after `offset` in a file: just after the first "\n" at or after
 * offset - 1, or the file's size when there is none. Splits a file into ranges of whole lines.
 */
export function lineStartAtOrAfter(file: string, offset: number): number {
  if (offset <= 0) return 0;
  const fd = openRegularFile(file);
  try {
    const size = fstatSync(fd).size;
    const window = Buffer.allocUnsafe(1 << 16);
    for (let at = offset - 1; at < size; at += window.length) {
      const read = readSync(fd, window, 0, window.length, at);
      const nl = window.subarray(0, read).indexOf(LF);
      if (nl !== -1) return at + nl + 1;
      if (read === 0) break;
    }
    return size;
  } finally {
    closeSync(fd);
  }
}

/**
 * Opens a file for reading only if it is a regular file: opened without blocking and checked on its
 * descriptor, so a FIFO (which would wait for a writer forever) or a device is never read, and
 * nothing can be swapped in between the check and the read. Any failure is an InputError naming the
 * file; with `what` it reads "cannot read <what>: <why>".
 */
export function openRegularFile(file: string, what?: string): number {
  const fail = (why: string) => new InputError(what ? `cannot read ${what}: ${why}` : why, { file });
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw fail(what ? code : `cannot read: ${code}`);
  }
  const info = fstatSync(fd);
  if (!info.isFile()) {
    closeSync(fd);
    throw fail(`${kindOf(info)}, not a regular file`);
  }
  return fd;
}

/** An open file's `size` bytes from its start (fewer if it shrank meanwhile). */
function readAll(fd: number, size: number): Buffer {
  const bytes = Buffer.alloc(size);
  let read = 0;
  while (read < size) {
    const n = readSync(fd, bytes, read, size - read, read);
    if (n === 0) break;
    read += n;
  }
  return bytes.subarray(0, read);
}

/** A regular file's bytes, at most `maxBytes` of them (a larger file is an InputError naming the cap), never a FIFO's or a device's. */
export function readRegularFile(file: string, maxBytes: number, what: string): Buffer {
  const fd = openRegularFile(file, what);
  try {
    const size = fstatSync(fd).size;
    if (size > maxBytes) throw new InputError(`cannot read ${what}: ${formatBytes(size)}, more than the ${formatBytes(maxBytes)} read at most`, { file });
    return readAll(fd, size);
  } finally {
    closeSync(fd);
  }
}

/**
 * Line ends as one-byte buffers: Buffer#indexOf with a buffer needle is a fast native search, with a
 * number it walks byte by byte (on Node 20, 95 ms against 3.5 ms over a 56 MB prompt file).
 */
const LF = Buffer.from('\n');
const CR = Buffer.from('\r');

/** A file's text, or null when it does not exist; any other failure to read it is an InputError naming it. */
export function readTextIfPresent(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new InputError(`cannot read: ${(err as Error).message}`, { file });
  }
}

/** One line of a JSON-lines file; a line that does not parse is an InputError naming file:line. */
export function parseJsonLine(text: string, file: string, line: number): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new InputError(`not valid JSON: ${(err as Error).message}`, { file, line });
  }
}

/** The lines of a text file (byteLines, decoded), with a UTF-8 byte order mark at its start dropped (JSON.parse refuses it). */
export async function* textLines(file: string): AsyncGenerator<{ line: number; text: string }> {
  for await (const { line, bytes } of byteLines(file)) {
    const text = bytes.toString('utf8');
    yield { line, text: line === 1 ? text.replace(/^\uFEFF/, '') : text };
  }
}

/** A line of a stream: its text, or that it ran past the cap. */
export type StreamLine = { line: number; text: string } | { line: number; tooLong: true };

/**
 * The lines of a stream (stdin) as text, numbered from 1, ending where byteLines ends them ("\n",
 * "\r\n" or a lone "\r"). A run of bytes without "\n" longer than `maxLineBytes` is given as one
 * `{ line, tooLong: true }` and dropped as it comes, never held: a stream without line ends costs at
 * most the cap in memory, where readline would hold the whole of it.
 */
export async function* streamLines(input: AsyncIterable<Buffer | string>, maxLineBytes: number): AsyncGenerator<StreamLine> {
  let line = 0;
  let parts: Buffer[] = [];
  let held = 0;
  let tooLong = false;
  // The lines of the bytes up to a "\n" (or the end): a trailing "\r" dropped, a lone "\r" a line end.
  function* ended(last: Buffer): Generator<StreamLine> {
    if (tooLong) {
      yield { line: ++line, tooLong: true };
    } else {
      const text = (parts.length ? Buffer.concat([...parts, last]) : last).toString('utf8');
      for (const piece of (text.endsWith('\r') ? text.slice(0, -1) : text).split('\r')) yield { line: ++line, text: piece };
    }
    parts = [];
    held = 0;
    tooLong = false;
  }
  for await (const chunk of input) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    let from = 0;
    for (let nl = bytes.indexOf(10); nl !== -1; nl = bytes.indexOf(10, from)) {
      const piece = bytes.subarray(from, nl);
      if (held + piece.length > maxLineBytes) tooLong = true;
      yield* ended(piece);
      from = nl + 1;
    }
    const rest = bytes.subarray(from);
    if (tooLong || held + rest.length > maxLineBytes) {
      tooLong = true;
      parts = [];
      held = 0;
    } else if (rest.length) {
      // A copy: the chunk may be a view of a buffer the stream reuses.
      parts.push(Buffer.from(rest));
      held += rest.length;
    }
  }
  if (held > 0 || tooLong) yield* ended(Buffer.alloc(0));
}

export type ContainedRead = { ok: true; bytes: Buffer } | { ok: false; missing: boolean; reason: string };

/**
 * Reads a file a piece of input names (an episode's image_path), only if it is a regular file of at
 * most `maxBytes` whose real path (symlinks resolved) lies inside one of `roots` (real paths). FIFOs,
 * devices, sockets and directories are refused without blocking: the file is opened non-blocking
 * and checked on the descriptor itself, so it cannot be swapped between the check and the read.
 */
export function readContainedFile(path: string, roots: readonly string[], maxBytes: number): ContainedRead {
  let real: string;
  try {
    real = realpathSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { ok: false, missing: code === 'ENOENT', reason: `cannot be resolved (${code ?? (err as Error).message})` };
  }
  if (!roots.some((root) => real === root || real.startsWith(root.endsWith(sep) ? root : root + sep))) {
    return { ok: false, missing: false, reason: real === path ? 'is outside the allowed folders' : `leads outside the allowed folders (to ${real})` };
  }
  let fd: number;
  try {
    fd = openSync(real, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (err) {
    return { ok: false, missing: false, reason: `cannot be opened (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})` };
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) return { ok: false, missing: false, reason: `is ${kindOf(info)}, not a regular file` };
    if (info.size > maxBytes) return { ok: false, missing: false, reason: `has ${info.size} bytes, above the cap of ${maxBytes}` };
    return { ok: true, bytes: readAll(fd, info.size) };
  } finally {
    closeSync(fd);
  }
}

function kindOf(info: Stats): string {
  if (info.isFIFO()) return 'a FIFO';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device';
  if (info.isDirectory()) return 'a directory';
  if (info.isSocket()) return 'a socket';
  return 'a special file';
}

/**
 * Puts a file at `dest` with the bytes of `src`: a hard link where the filesystem allows one, else a
 * copy (another filesystem, or one without hard links), written beside `dest` and renamed into place
 * so no reader sees half of it. A file already at `dest` is kept: callers name files by their content.
 */
export function linkOrCopy(src: string, dest: string): 'linked' | 'copied' | 'present' {
  if (existsSync(dest)) return 'present';
  mkdirSync(dirname(dest), { recursive: true });
  try {
    linkSync(src, dest);
    return 'linked';
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return 'present';
    if (code === 'ENOENT') throw err;
  }
  const temp = `${dest}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    copyFileSync(src, temp);
    renameSync(temp, dest);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
  return 'copied';
}

/**
 * Writes a whole file so that no reader (or crash) ever sees half of it: the bytes go to a temp file
 * beside it, renamed into place; the temp file is removed if anything fails, and the error rethrown.
 */
export function writeFileAtomic(file: string, bytes: Buffer | string): void {
  writeFilesAtomic([{ file, bytes }]);
}

/**
 * Writes several files as one step as far as a file system allows: every temp file is written
 * first, and only when all are complete are they renamed into place, so a failure while writing
 * leaves every earlier file as it was.
 */
export function writeFilesAtomic(files: readonly { file: string; bytes: Buffer | string }[]): void {
  const temps: string[] = [];
  try {
    for (const { file, bytes } of files) {
      mkdirSync(dirname(file), { recursive: true });
      const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
      temps.push(temp);
      writeFileSync(temp, bytes);
    }
    files.forEach(({ file }, i) => renameSync(temps[i] as string, file));
  } catch (err) {
    for (const temp of temps) rmSync(temp, { force: true });
    throw err;
  }
}

/** The sha256 of a file's bytes, streamed; an unreadable file is an InputError naming it. */
export function fileSha256(file: string, what: string): Promise<string> {
  // Checked first: a FIFO would keep the stream waiting for a writer forever.
  const fd = openRegularFile(file);
  return new Promise((resolvePromise, reject) => {
    const hash = createHash('sha256');
    createReadStream(file, { fd })
      .on('data', (chunk) => hash.update(chunk))
      .on('error', (err: NodeJS.ErrnoException) => reject(new InputError(`cannot read ${what}: ${err.code ?? err.message}`, { file })))
      .on('end', () => resolvePromise(hash.digest('hex')));
  });
}

/** An entry a directory walk passed over, and why (printed by the commands as `geolab: skipped <path>: <reason>`). */
export interface SkippedEntry {
  path: string;
  reason: string;
}

export interface WalkResult {
  /** The files taken, in path order; each file (device and inode) once. */
  files: string[];
  skipped: SkippedEntry[];
}

/**
 * The kernel's own trees: reading them is never what a run tree means, and some of their files never
 * end (docs/reliability.md). Known by device, so a bind mount or a link is caught as well as the path.
 */
const SPECIAL_ROOTS = ['/proc', '/sys', '/dev'];
/**
 * Known by path as well for /proc and /sys, whose mounts nest other kernel file systems. Not /dev:
 * /dev/shm is a memory file system that holds ordinary files (a scratch run tree may live there),
 * and what else lies under /dev is a device, which no walk reads (only regular files are taken).
 */
const SPECIAL_PATHS = ['/proc', '/sys'];
let specialDevices: Map<number, string> | undefined;

function specialRootOf(info: Stats, real?: string): string | undefined {
  if (real !== undefined) {
    const root = SPECIAL_PATHS.find((r) => real === r || real.startsWith(r + '/'));
    if (root) return root;
  }
  if (!specialDevices) {
    specialDevices = new Map();
    for (const root of SPECIAL_ROOTS) {
      const dev = statSync(root, { throwIfNoEntry: false })?.dev;
      if (dev !== undefined) specialDevices.set(dev, root);
    }
    // Where / itself shares a device with one of them (a container's overlay does not), the device says nothing.
    const rootDev = statSync('/', { throwIfNoEntry: false })?.dev;
    if (rootDev !== undefined) specialDevices.delete(rootDev);
  }
  return specialDevices.get(info.dev);
}

/**
 * The files under `root` that `accept` takes (by their path relative to `root`), in path order. The
 * one directory walk of geolab (docs/reliability.md): a symlink to a directory is never followed; a
 * directory already entered (same device and inode: a bind mount loop) is not entered again; nothing
 * under /proc, /sys or /dev is entered or read; a file reached twice (a symlink or a hard link to a file
 * already taken) is taken once; a symlink to a file is taken only when its target is a regular file.
 * Every entry passed over that could have mattered comes back in `skipped`, with the reason. `root`
 * itself, named by the user, is followed when it is a symlink.
 */
export function walkFiles(root: string, accept: (relative: string) => boolean): WalkResult {
  const skipped: SkippedEntry[] = [];
  const taken: { relative: string; path: string }[] = [];
  const seenFiles = new Map<string, string>();
  const seenDirs = new Set<string>();
  const rootInfo = statSync(root);
  const special = specialRootOf(rootInfo, realpathSync(root));
  if (special) return { files: [], skipped: [{ path: root, reason: `lies in ${special}, which is never walked` }] };
  const take = (path: string, relative: string, info: Stats, via: string) => {
    const id = `${info.dev}:${info.ino}`;
    const first = seenFiles.get(id);
    if (first !== undefined) return skipped.push({ path, reason: `${via}the same file as ${first}, read once` });
    seenFiles.set(id, path);
    taken.push({ relative, path });
  };
  const walk = (dir: string, relative: string, info: Stats) => {
    seenDirs.add(`${info.dev}:${info.ino}`);
    let entries;
    try {
      // In name order, so which of two paths to one file is taken does not depend on the file system.
      entries = readdirSync(dir).sort();
    } catch (err) {
      skipped.push({ path: dir, reason: `cannot be read (${describeError(err)})` });
      return;
    }
    for (const name of entries) {
      const path = join(dir, name);
      const rel = relative ? `${relative}/${name}` : name;
      let own: Stats;
      try {
        own = lstatSync(path);
      } catch (err) {
        skipped.push({ path, reason: `cannot be read (${describeError(err)})` });
        continue;
      }
      if (own.isSymbolicLink()) {
        let target: Stats;
        try {
          target = statSync(path);
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code;
          skipped.push({ path, reason: code === 'ENOENT' ? 'a symlink to nothing (dangling)' : code === 'ELOOP' ? 'a symlink loop' : `a symlink that cannot be followed (${describeError(err)})` });
          continue;
        }
        if (target.isDirectory()) {
          const where = specialRootOf(target, realPath(path));
          skipped.push({ path, reason: `a symlink to a directory${where ? ` in ${where}` : ''}, not followed` });
          continue;
        }
        if (!accept(rel)) continue;
        const where = specialRootOf(target, realPath(path));
        if (where) skipped.push({ path, reason: `a symlink into ${where}, never read` });
        else if (!target.isFile()) skipped.push({ path, reason: `a symlink to ${kindOf(target)}, not a regular file` });
        else take(path, rel, target, 'a symlink to ');
      } else if (own.isDirectory()) {
        const where = specialRootOf(own);
        if (where) skipped.push({ path, reason: `lies in ${where}, which is never walked` });
        else if (seenDirs.has(`${own.dev}:${own.ino}`)) skipped.push({ path, reason: 'a directory already walked (a loop)' });
        else walk(path, rel, own);
      } else if (accept(rel)) {
        if (!own.isFile()) skipped.push({ path, reason: `${kindOf(own)}, not a regular file` });
        else take(path, rel, own, '');
      }
    }
  };
  if (rootInfo.isDirectory()) walk(root, '', rootInfo);
  taken.sort((a, b) => (a.relative < b.relative ? -1 : a.relative > b.relative ? 1 : 0));
  return { files: taken.map((t) => t.path), skipped };
}

function realPath(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/** The episode file of a run (`<run>/episodes.jsonl`) or of a sweep's shard (`pass-<p>/shard-<i>/episodes.jsonl`). */
export const EPISODE_FILE = 'episodes.jsonl';

const isEpisodeFile = (relative: string) => relative === EPISODE_FILE || relative.endsWith(`/${EPISODE_FILE}`);

/**
 * The episode files under a run tree (walkFiles: no symlinked directory followed, each file once),
 * and what was skipped; an empty list when `dir` does not exist.
 */
export function runTreeEpisodeFiles(dir: string): WalkResult {
  if (!existsSync(dir)) return { files: [], skipped: [] };
  return walkFiles(dir, isEpisodeFile);
}

/**
 * The episode files a path names: itself, or every episodes.jsonl under a run tree, in path order
 * (walkFiles; each entry skipped is told to `onSkipped`). Here rather than in the readers' modules,
 * so a reader loads nothing it does not use.
 */
export function runTreeFiles(path: string, onSkipped?: (entry: SkippedEntry) => void): string[] {
  let info;
  try {
    info = statSync(path);
  } catch (err) {
    throw new InputError(`cannot read episode file or run folder: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, { file: path });
  }
  if (!info.isDirectory()) return [path];
  const { files, skipped } = walkFiles(path, isEpisodeFile);
  if (onSkipped) skipped.forEach(onSkipped);
  if (files.length === 0) throw new InputError(`no ${EPISODE_FILE} under this folder: expected a run (<run>/${EPISODE_FILE}) or a sweep (pass-<p>/shard-<i>/${EPISODE_FILE})`, { file: path });
  return files;
}
