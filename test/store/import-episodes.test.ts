import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/core/errors.js';
import { countEpisodes, listEpisodes, loadEpisode } from '../../src/store/episodes.js';
import { importEpisodesFile, MAX_IMAGE_BYTES } from '../../src/store/import-episodes.js';
import { readImage } from '../../src/store/images.js';
import { type Workspace } from '../../src/store/index.js';
import { completedEpisode, completedRecord, failedRecord } from '../helpers/episodes.js';
import { tempDir } from '../helpers/fixtures.js';
import { tempWorkspaces } from '../helpers/workspaces.js';

const workspace = tempWorkspaces();

function writeEpisodes(lines: (object | string)[], dir = tempDir()): string {
  const file = join(dir, 'episodes.jsonl');
  writeFileSync(file, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n');
  return file;
}

async function importError(ws: Workspace, file: string): Promise<InputError> {
  try {
    await importEpisodesFile(ws, file);
  } catch (err) {
    if (err instanceof InputError) return err;
    throw err;
  }
  throw new Error('expected the import to fail');
}

describe('importEpisodesFile', () => {
  it('imports completed and failed records', async () => {
    const ws = await workspace();
    const completed = completedRecord({ index: 1 });
    const failed = failedRecord({ index: 2 });
    const file = writeEpisodes([completed, '', failed]);
    expect(await importEpisodesFile(ws, file)).toEqual({
      file,
      lines: 3,
      imported: 2,
      new: 2,
      already_present: 0,
      skipped: 0,
      invalid: [],
      images: 0,
      warnings: [],
    });
    expect(loadEpisode(ws.db, completed.episode_id)).toEqual(completed);
    expect(loadEpisode(ws.db, failed.episode_id)).toEqual(failed);
  });

  it('is idempotent by episode_id', async () => {
    const ws = await workspace();
    const file = writeEpisodes([completedRecord({ index: 1 }), completedRecord({ index: 2 }), failedRecord({ index: 3 })]);
    await importEpisodesFile(ws, file);
    await importEpisodesFile(ws, file);
    expect(countEpisodes(ws.db)).toBe(3);
    expect(ws.db.prepare('SELECT COUNT(*) FROM turns').pluck().get()).toBe(8);
  });

  it('aborts the whole import at a line that is not JSON, naming file and line', async () => {
    const ws = await workspace();
    const file = writeEpisodes([completedRecord({ index: 1 }), completedRecord({ index: 2 }), '{"schema_version": 2,']);
    const error = await importError(ws, file);
    expect(error.message).toMatch(new RegExp(`^${file}:3: not valid JSON`));
    expect(error.exitCode).toBe(2);
    expect(countEpisodes(ws.db)).toBe(0);
  });

  it('names the line and field of a record that is not schema v2', async () => {
    const ws = await workspace();
    const bad = completedRecord({ index: 2 }) as Record<string, unknown>;
    bad.task = { index: 2 };
    const file = writeEpisodes([completedRecord({ index: 1 }), bad]);
    const error = await importError(ws, file);
    expect(error.message).toContain(`${file}:2, field task.split:`);
    expect(error.where).toEqual({ file, line: 2, field: 'task.split' });
    expect(countEpisodes(ws.db)).toBe(0);
  });

  it('names the line of a record the store cannot hold', async () => {
    const ws = await workspace();
    const twice = completedRecord({ index: 2 });
    twice.turns = [...(twice.turns ?? []), { turn: 0 }];
    const error = await importError(ws, writeEpisodes([twice]));
    expect(error.where).toMatchObject({ line: 1, field: 'turns[4].turn' });
  });

  it('leaves nothing of a skipped record the store refused halfway', async () => {
    const ws = await workspace();
    const twice = completedRecord({ id: 'twice' });
    twice.turns = [...(twice.turns ?? []), { turn: 3 }];
    const result = await importEpisodesFile(ws, writeEpisodes([completedRecord({ id: 'fine' }), twice]), { skipInvalid: true });
    expect(result).toMatchObject({ imported: 1, skipped: 1, invalid: [{ line: 2, field: 'turns[4].turn', message: 'turn 3 appears twice' }] });
    expect(listEpisodes(ws.db).map((e) => e.episode_id)).toEqual(['fine']);
    expect(ws.db.prepare("SELECT COUNT(*) FROM turns WHERE episode_id = 'twice'").pluck().get()).toBe(0);
  });

  it('skips and counts invalid lines when asked, keeping the rest', async () => {
    const ws = await workspace();
    const noSplit = { ...completedRecord({ index: 3 }), task: { index: 3 } };
    const file = writeEpisodes([completedRecord({ index: 1 }), 'not json', completedRecord({ index: 2 }), noSplit, { schema_version: 1 }]);
    const result = await importEpisodesFile(ws, file, { skipInvalid: true });
    expect(result).toMatchObject({ lines: 5, imported: 2, skipped: 3 });
    expect(result.invalid.map((p) => [p.line, p.field])).toEqual([
      [2, ''],
      [4, 'task.split'],
      [5, 'schema_version'],
      [5, 'episode_id'],
      [5, 'task'],
      [5, 'turns'],
      [5, 'outcome'],
    ]);
    expect(countEpisodes(ws.db)).toBe(2);
  });

  it('attaches the episodes to a run when given one', async () => {
    const ws = await workspace();
    const file = writeEpisodes([completedRecord({ index: 1 })]);
    await importEpisodesFile(ws, file, { runId: 'harness-run-7' });
    expect(listEpisodes(ws.db, { runId: 'harness-run-7' })).toHaveLength(1);
    expect(ws.db.prepare('SELECT id, name FROM eval_runs').all()).toEqual([{ id: 'harness-run-7', name: 'harness-run-7' }]);
  });

  it('links turn images from the files the records name, when their bytes match the hash', async () => {
    const ws = await workspace();
    const dir = tempDir();
    const { record, images } = await completedEpisode();
    const turns = record.turns ?? [];
    mkdirSync(join(dir, 'images'));
    for (const turn of turns) {
      if (!turn.image_sha256) continue;
      turn.image_path = `images/${turn.turn}.img`;
      // Turn 2's file holds other bytes than its hash names: it must not be linked.
      const bytes = turn.turn === 2 ? Buffer.from('other') : (images.get(turn.image_sha256)?.bytes as Buffer);
      writeFileSync(join(dir, turn.image_path), bytes);
    }
    const result = await importEpisodesFile(ws, writeEpisodes([record], dir));
    expect(result.images).toBe(2);
    const linked = ws.db.prepare('SELECT turn, image_sha256 FROM turns ORDER BY turn').all() as { turn: number; image_sha256: string | null }[];
    expect(linked.map((t) => t.image_sha256)).toEqual([turns[0]?.image_sha256, turns[1]?.image_sha256, null, null]);
    expect(readImage(ws, turns[0]?.image_sha256 as string)?.equals(images.get(turns[0]?.image_sha256 as string)?.bytes as Buffer)).toBe(true);
    expect(loadEpisode(ws.db, record.episode_id)).toEqual(record);
  });

  it('refuses a completed record without turns, and keeps a failed one without them', async () => {
    const ws = await workspace();
    const { turns: _turns, ...noTurns } = completedRecord({ index: 1 });
    const file = writeEpisodes([failedRecord({ index: 2 }), noTurns]);
    const error = await importError(ws, file);
    expect(error.where).toEqual({ file, line: 2, field: 'turns' });
    const result = await importEpisodesFile(ws, file, { skipInvalid: true });
    expect(result).toMatchObject({ new: 1, skipped: 1 });
  });

  it('refuses a file it cannot read', async () => {
    const ws = await workspace();
    const missing = join(tempDir(), 'nope.jsonl');
    await expect(importEpisodesFile(ws, missing)).rejects.toThrow(`${missing}: cannot read episode file: ENOENT`);
    await expect(importEpisodesFile(ws, tempDir())).rejects.toThrow(/not a regular file/);
  });

  it('imports 20,000 episodes', async () => {
    const ws = await workspace();
    const lines = Array.from({ length: 20_000 }, (_, i) =>
      i % 10 === 0 ? failedRecord({ id: `e${i}` }) : completedRecord({ id: `e${i}`, index: i % 500, sample: Math.floor(i / 500) }),
    );
    const result = await importEpisodesFile(ws, writeEpisodes(lines));
    expect(result.imported).toBe(20_000);
    expect(countEpisodes(ws.db)).toBe(20_000);
  });
});

describe('image_path files', () => {
  /** A record whose turn 1 names `path` for its image, in a run folder with that record. */
  async function recordNaming(path: string, dir = tempDir()) {
    const { record, images } = await completedEpisode({ index: 1 });
    const turn = record.turns!.find((t) => t.image_sha256)!;
    turn.image_path = path;
    return { record, dir, bytes: images.get(turn.image_sha256!)!.bytes, sha256: turn.image_sha256!, file: writeEpisodes([record], dir) };
  }

  const storedFiles = (ws: Workspace): string[] =>
    existsSync(ws.paths.images) ? readdirSync(ws.paths.images, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => e.name) : [];

  it.each([
    ['a FIFO', (dir: string) => (execFileSync('mkfifo', [join(dir, 'pipe.jpg')]), 'pipe.jpg'), /"pipe\.jpg" is a FIFO, not a regular file/],
    ['a symlink to /dev/zero', (dir: string) => (symlinkSync('/dev/zero', join(dir, 'zero.jpg')), 'zero.jpg'), /"zero\.jpg" leads outside the allowed folders \(to \/dev\/zero\)/],
    ['a path outside the run folder', () => '../elsewhere.jpg', /"\.\.\/elsewhere\.jpg" (is outside|cannot)/],
    ['an absolute path elsewhere', () => '/etc/hostname', /"\/etc\/hostname" is outside the allowed folders/],
    ['a file above the size cap', (dir: string) => (truncateSync((writeFileSync(join(dir, 'big.jpg'), ''), join(dir, 'big.jpg')), MAX_IMAGE_BYTES + 1), 'big.jpg'), /has \d+ bytes, above the cap/],
  ])('refuses %s with file:line and the field, reading nothing', async (_what, make, message) => {
    const ws = await workspace();
    const dir = tempDir();
    writeFileSync(join(dir, '..', 'elsewhere.jpg'), 'not read');
    const { file } = await recordNaming(make(dir), dir);
    const error = await importError(ws, file);
    expect(error.exitCode).toBe(2);
    expect(error.message).toMatch(new RegExp(`^${file}:1, field turns\\[\\d\\]\\.image_path: `));
    expect(error.message).toMatch(message);
    expect(error.message).toContain('--images-dir DIR allows another folder');
    expect(countEpisodes(ws.db)).toBe(0);
    // With --skip-invalid the line is counted and reported.
    const skipped = await importEpisodesFile(ws, file, { skipInvalid: true });
    expect(skipped).toMatchObject({ new: 0, skipped: 1, invalid: [{ line: 1, field: expect.stringMatching(/^turns\[\d\]\.image_path$/) }] });
  });

  it('refuses a device even inside a folder the user names', async () => {
    const ws = await workspace();
    const { file } = await recordNaming('/dev/zero');
    const error = await importEpisodesFile(ws, file, { imagesDir: '/dev' }).then(
      () => undefined,
      (err: unknown) => err as Error,
    );
    expect(error?.message).toMatch(/"\/dev\/zero" is a device, not a regular file/);
  });

  it('reads images from a folder the user names, and through a symlink that stays inside', async () => {
    const ws = await workspace();
    const frames = tempDir();
    const { record, dir, bytes, sha256 } = await recordNaming(join(frames, 'view.jpg'));
    writeFileSync(join(frames, 'view.jpg'), bytes);
    const file = writeEpisodes([record], dir);
    await expect(importError(ws, file)).resolves.toMatchObject({ message: expect.stringMatching(/is outside the allowed folders/) });
    expect(await importEpisodesFile(ws, file, { imagesDir: frames })).toMatchObject({ new: 1, images: 1 });
    expect(readImage(ws, sha256)?.equals(bytes)).toBe(true);

    const other = await workspace();
    const inside = tempDir();
    writeFileSync(join(inside, 'real.jpg'), bytes);
    symlinkSync(join(inside, 'real.jpg'), join(inside, 'link.jpg'));
    const linked = await recordNaming('link.jpg', inside);
    expect(await importEpisodesFile(other, linked.file)).toMatchObject({ new: 1, images: 1 });
  });

  it('leaves no image file behind when the import rolls back', async () => {
    const ws = await workspace();
    const { record, dir, bytes } = await recordNaming('frames/view.jpg');
    mkdirSync(join(dir, 'frames'));
    writeFileSync(join(dir, 'frames', 'view.jpg'), bytes);
    // The second record is refused by the store inside the transaction (turn 3 twice): all is undone.
    const twice = completedRecord({ id: 'twice' });
    twice.turns = [...(twice.turns ?? []), { turn: 3 }];
    const file = writeEpisodes([record, twice], dir);
    const before = storedFiles(ws);
    const error = await importError(ws, file);
    expect(error.where).toMatchObject({ line: 2, field: 'turns[4].turn' });
    expect(countEpisodes(ws.db)).toBe(0);
    expect(storedFiles(ws)).toEqual(before);
  });
});
