import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/core/errors.js';
import { countEpisodes, listEpisodes, loadEpisode } from '../../src/store/episodes.js';
import { importEpisodesFile } from '../../src/store/import-episodes.js';
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
    expect(await importEpisodesFile(ws, file)).toEqual({ file, lines: 3, imported: 2, skipped: 0, invalid: [], images: 0 });
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
