import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRecorder, newRunId } from '../../src/agent/recorder.js';
import { parseEpisodeRecord, type Turn } from '../../src/core/episode.js';
import { UsageError } from '../../src/core/errors.js';
import { listEpisodes, loadEpisode } from '../../src/store/episodes.js';
import { type Workspace } from '../../src/store/index.js';
import { completedEpisode, failedRecord, makeJpeg, sha256 } from '../helpers/episodes.js';
import { tempWorkspaces } from '../helpers/workspaces.js';

const workspace = tempWorkspaces();

function jsonlLines(file: string): string[] {
  return readFileSync(file, 'utf8').split('\n').filter(Boolean);
}

const count = (ws: Workspace, table: string) => ws.db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get() as number;

describe('createRecorder', () => {
  it('names runs by UTC time and a random suffix', () => {
    expect(newRunId(new Date('2026-11-30T03:40:12.345Z'))).toMatch(/^2026-11-30T03-40-12-[0-9a-f]{6}$/);
    expect(newRunId()).not.toBe(newRunId());
  });

  it('records an episode in the store, with its run, and as one schema-v2 JSONL line', async () => {
    const ws = await workspace();
    const recorder = createRecorder(ws, { runName: 'baseline', config: { max_turns: 12 } });
    expect(recorder.runId).toMatch(/^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-[0-9a-f]{6}$/);
    expect(recorder.runDir).toBe(join(ws.paths.runs, recorder.runId));
    const { record, images } = await completedEpisode({ index: 5 });
    await recorder.write(record, images);

    const lines = jsonlLines(join(recorder.runDir, 'episodes.jsonl'));
    expect(lines).toHaveLength(1);
    const written = JSON.parse(lines[0] as string) as Record<string, unknown>;
    const parsed = parseEpisodeRecord(written);
    expect(parsed.ok && parsed.kind).toBe('completed');
    expect(written).toMatchObject({ schema_version: 2, episode_id: record.episode_id, outcome: record.outcome, task: record.task });

    expect(loadEpisode(ws.db, record.episode_id)).toEqual(written);
    expect(ws.db.prepare('SELECT run_id FROM episodes').pluck().get()).toBe(recorder.runId);
    expect(ws.db.prepare('SELECT id, name, root, config_json FROM eval_runs').all()).toEqual([
      { id: recorder.runId, name: 'baseline', root: recorder.runDir, config_json: '{"max_turns":12}' },
    ]);
    const run = JSON.parse(readFileSync(join(recorder.runDir, 'run.json'), 'utf8')) as Record<string, unknown>;
    expect(run).toMatchObject({ run_id: recorder.runId, name: 'baseline', model_name: 'qwen3.5-4b', config: { max_turns: 12 } });
    expect(run.model).toMatchObject({ provider: 'openai', model: 'qwen3.5-4b' });
    expect(typeof run.created_at).toBe('string');
  });

  it('references images by hash and by a path to the stored file, never inline', async () => {
    const ws = await workspace();
    const recorder = createRecorder(ws);
    const { record, images } = await completedEpisode();
    await recorder.write(record, images);
    const line = jsonlLines(join(recorder.runDir, 'episodes.jsonl'))[0] as string;
    expect(line).not.toMatch(/base64|data:image|[A-Za-z0-9+/]{200,}/);

    const turns = (JSON.parse(line) as { turns: Turn[] }).turns;
    const withImages = turns.filter((t) => t.image_sha256);
    expect(withImages).toHaveLength(3);
    for (const turn of withImages) {
      const file = resolve(recorder.runDir, turn.image_path as string);
      expect(sha256(readFileSync(file))).toBe(turn.image_sha256);
      expect(turn.image_path).toMatch(/^\.\.\/\.\.\/images\/[0-9a-f]{2}\/[0-9a-f]{64}\.(jpg|png)$/);
    }
    expect(turns.find((t) => t.image_kind === 'none')).not.toHaveProperty('image_path');
  });

  it('stores an image two episodes share once', async () => {
    const ws = await workspace();
    const recorder = createRecorder(ws);
    const a = await completedEpisode({ id: 'a' }, 1);
    const b = await completedEpisode({ id: 'b' }, 1); // the same three images
    await recorder.write(a.record, a.images);
    await recorder.write(b.record, b.images);
    expect(count(ws, 'images')).toBe(3);
    const files = readdirSync(ws.paths.images, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
    expect(files).toHaveLength(3);
    expect(listEpisodes(ws.db).map((e) => e.episode_id).sort()).toEqual(['a', 'b']);
  });

  it('appends to the run, writing run.json and the run row once', async () => {
    const ws = await workspace();
    const recorder = createRecorder(ws, { runId: 'my-run', config: { k: 1 } });
    const a = await completedEpisode({ id: 'a' });
    await recorder.write(a.record, a.images);
    const again = createRecorder(ws, { runId: 'my-run', config: { k: 2 } });
    await again.write(failedRecord({ id: 'b' }), new Map());
    const lines = jsonlLines(join(ws.paths.runs, 'my-run', 'episodes.jsonl'));
    expect(lines.map((l) => (JSON.parse(l) as { episode_id: string }).episode_id)).toEqual(['a', 'b']);
    expect(JSON.parse(readFileSync(join(ws.paths.runs, 'my-run', 'run.json'), 'utf8'))).toMatchObject({ config: { k: 1 } });
    expect(count(ws, 'eval_runs')).toBe(1);
    expect(listEpisodes(ws.db, { runId: 'my-run' })).toHaveLength(2);
  });

  it('records a failed episode', async () => {
    const ws = await workspace();
    const recorder = createRecorder(ws);
    const record = failedRecord({ index: 4 });
    await recorder.write(record, new Map());
    expect(JSON.parse(jsonlLines(join(recorder.runDir, 'episodes.jsonl'))[0] as string)).toEqual(record);
    expect(listEpisodes(ws.db)[0]).toMatchObject({ episode_id: record.episode_id, error: record.error });
  });

  it('writes nothing of an episode whose turn names an image it was not given', async () => {
    const ws = await workspace();
    const recorder = createRecorder(ws);
    const { record, images } = await completedEpisode();
    const [firstKey] = images.keys();
    images.delete(firstKey as string);
    await expect(recorder.write(record, images)).rejects.toThrow(/turns\[0\]\.image_sha256.*not in the image store/);
    expect(count(ws, 'episodes')).toBe(0);
    expect(existsSync(join(recorder.runDir, 'episodes.jsonl'))).toBe(false);
  });

  it('refuses images that are not JPEG or PNG, or not keyed by their hash', async () => {
    const ws = await workspace();
    const recorder = createRecorder(ws);
    const { record } = await completedEpisode();
    const gif = Buffer.from('GIF89a....');
    await expect(recorder.write(record, new Map([[sha256(gif), { bytes: gif, mime: 'image/gif' }]]))).rejects.toThrow(/neither JPEG nor PNG/);
    const jpeg = await makeJpeg(9);
    await expect(recorder.write(record, new Map([['0'.repeat(64), { bytes: jpeg, mime: 'image/jpeg' }]]))).rejects.toThrow(/has sha256/);
  });

  it('refuses records that are not schema v2 and run ids that are not names', async () => {
    const ws = await workspace();
    const { record, images } = await completedEpisode();
    await expect(createRecorder(ws).write({ ...record, task: { ...record.task, index: -1 } }, images)).rejects.toThrow(/task\.index/);
    expect(() => createRecorder(ws, { runId: '../escape' })).toThrow(UsageError);
  });
});
