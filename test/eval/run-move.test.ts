/**
 * A sweep's output folder can be moved: its records point at images inside it (`<run>/images/`,
 * hard links into the workspace's store), never into the workspace. The real binary plays a small
 * sweep against a scripted loopback endpoint; the folder is then moved elsewhere and the workspace's
 * image store deleted, and the report, the replay and an import of the moved folder still work.
 */
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import { geolab, spawnGeolab } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { startScriptedOpenAI, toolCall, toolSteps } from '../helpers/scripted-openai.js';

const SWEEP_TIMEOUT_MS = 240_000;
const CHILD_TIMEOUT_MS = 200_000;
const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** Look, pin, then guess: a view and a map image per episode. */
const turn = toolSteps(toolCall('look', { heading_deg: 90 }), toolCall('pin', { lat: 44, lon: 12 }), toolCall('guess', { lat: 45.5, lon: 9.2 }));

type Turn = { image_sha256?: string; image_path?: string; image_kind?: string };
type Row = { episode_id: string; config?: { view_size?: number; map_size?: number }; turns?: Turn[] };

function episodeFiles(out: string): string[] {
  return (readdirSync(out, { recursive: true }) as string[]).filter((f) => f.endsWith('episodes.jsonl')).map((f) => join(out, f));
}

function records(file: string): Row[] {
  return readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as Row);
}

/** Every image a file's records name, resolved from the file's folder: [path, recorded sha256]. */
function imagesOf(file: string): [string, string][] {
  return records(file).flatMap((r) => (r.turns ?? []).filter((t) => t.image_path).map((t): [string, string] => [resolve(dirname(file), t.image_path!), t.image_sha256!]));
}

describe('a sweep folder moved elsewhere', () => {
  it('keeps its images inside: report, replay and import read the moved folder with the workspace images gone', async () => {
    const home = tempDir('geolab-move-home-');
    const dir = tempDir('geolab-move-');
    const out = join(dir, 'board');
    const server = await startScriptedOpenAI({ script: turn, models: [{ id: 'qwen-vl' }] });
    servers.push(server);
    const models = join(dir, 'models.json');
    writeFileSync(models, JSON.stringify([{ name: 'qwen', provider: 'vllm', model: 'qwen-vl', base_url: server.baseUrl, concurrency: 1, max_tokens: 512 }]));

    const args = ['eval', 'run', '--models', models, '--limit', '2', '--passes', '2', '--out', out, '--run-id', 'board-1', '--retry-delay', '0.02'];
    const sweep = await spawnGeolab(args, { home, timeoutMs: CHILD_TIMEOUT_MS }).done;
    expect(sweep.code, sweep.stderr).toBe(0);
    const before = geolab(['eval', 'report', out, '--json'], { home });
    expect(before.code, before.stderr).toBe(0);

    const files = episodeFiles(out);
    expect(files).toEqual([join(out, 'board-1', 'episodes.jsonl')]);
    const images = imagesOf(files[0]!);
    expect(images.length).toBeGreaterThanOrEqual(4 * 2);
    let maps = 0;
    for (const row of records(files[0]!)) {
      // The embedded environment drew views and maps at the model's size (448), maps as JPEG too, and says so.
      expect(row.config).toMatchObject({ view_size: 448, map_size: 448 });
      for (const t of row.turns ?? []) {
        if (!t.image_sha256) continue;
        expect(t.image_path, row.episode_id).toMatch(/^images\/[0-9a-f]{64}\.jpg$/);
        if (t.image_kind !== 'map') continue;
        maps++;
        const { format, width, height } = await sharp(join(dirname(files[0]!), t.image_path!)).metadata();
        expect({ format, width, height }).toEqual({ format: 'jpeg', width: 448, height: 224 });
      }
    }
    expect(maps).toBeGreaterThanOrEqual(4);
    // Hard links into the workspace's store (same filesystem here): no second copy of the bytes.
    for (const [file] of images) expect(statSync(file).nlink, file).toBeGreaterThanOrEqual(2);

    // Moved away, and the workspace's image store gone: nothing may still point there.
    const elsewhere = tempDir('geolab-moved-');
    const moved = join(elsewhere, 'kept-board');
    renameSync(out, moved);
    rmSync(join(home, 'images'), { recursive: true, force: true });
    expect(existsSync(join(home, 'images'))).toBe(false);

    const movedFile = join(moved, 'board-1', 'episodes.jsonl');
    const root = realpathSync(moved) + sep;
    for (const [file, sha256] of imagesOf(movedFile)) {
      expect(realpathSync(file).startsWith(root), file).toBe(true);
      expect(createHash('sha256').update(readFileSync(file)).digest('hex'), file).toBe(sha256);
    }

    // The same numbers from the moved folder.
    const after = geolab(['eval', 'report', moved, '--json'], { home });
    expect(after.code, after.stderr).toBe(0);
    expect(JSON.parse(after.stdout)).toEqual(JSON.parse(before.stdout));

    // Replay of a moved record draws and checks every image it names.
    const replay = geolab(['episodes', 'replay', `${movedFile}:1`, '--json'], { home });
    expect(replay.code, replay.stderr).toBe(0);
    const replayed = JSON.parse(replay.stdout) as { images: number; ok: number; changed: number; cannot_render: number };
    expect(replayed.images).toBeGreaterThan(0);
    expect(replayed).toMatchObject({ ok: replayed.images, changed: 0, cannot_render: 0 });

    // A fresh workspace imports the moved folder with its images, reading only inside it.
    const fresh = tempDir('geolab-move-fresh-');
    const imported = geolab(['episodes', 'import', moved, '--json'], { home: fresh });
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).not.toContain('outside');
    const shown = new Set(imagesOf(movedFile).map(([, sha256]) => sha256));
    const storedNames = (readdirSync(join(fresh, 'images'), { recursive: true }) as string[]).map((f) => f.replace(/^.*\//, '').replace(/\.\w+$/, ''));
    for (const sha256 of shown) expect(storedNames, sha256).toContain(sha256);
  }, SWEEP_TIMEOUT_MS);

  const shm = otherFilesystem();
  it.skipIf(shm === null)('a sharded sweep written to another filesystem copies its images beside each shard, and is copied away whole', async () => {
    const home = tempDir('geolab-move-home-');
    const out = join(shm!, 'board');
    try {
      const server = await startScriptedOpenAI({ script: turn, models: [{ id: 'qwen-vl' }] });
      servers.push(server);
      const models = join(home, 'models.json');
      writeFileSync(models, JSON.stringify([{ name: 'qwen', provider: 'vllm', model: 'qwen-vl', base_url: server.baseUrl, concurrency: 1, max_tokens: 512 }]));
      for (const shard of ['0/2', '1/2']) {
        const args = ['eval', 'run', '--models', models, '--limit', '2', '--passes', '2', '--out', out, '--run-id', 'board-1', '--shard', shard, '--retry-delay', '0.02'];
        const sweep = await spawnGeolab(args, { home, timeoutMs: CHILD_TIMEOUT_MS }).done;
        expect(sweep.code, sweep.stderr).toBe(0);
      }
      const before = geolab(['eval', 'report', out, '--json'], { home });
      expect(before.code, before.stderr).toBe(0);
      const files = episodeFiles(out).sort();
      expect(files.map((f) => f.slice(out.length + 1))).toEqual(['pass-0/shard-0/episodes.jsonl', 'pass-0/shard-1/episodes.jsonl', 'pass-1/shard-0/episodes.jsonl', 'pass-1/shard-1/episodes.jsonl']);
      for (const file of files) {
        const images = imagesOf(file);
        expect(images.length, file).toBeGreaterThan(0);
        // Copies (no link across filesystems), in the shard's own images/ folder.
        for (const [image] of images) {
          expect(dirname(image)).toBe(join(dirname(file), 'images'));
          expect(statSync(image).nlink, image).toBe(1);
        }
      }

      const moved = join(tempDir('geolab-moved-'), 'board');
      cpSync(out, moved, { recursive: true });
      rmSync(out, { recursive: true, force: true });
      rmSync(join(home, 'images'), { recursive: true, force: true });
      const root = realpathSync(moved) + sep;
      for (const file of episodeFiles(moved)) {
        for (const [image, sha256] of imagesOf(file)) {
          expect(realpathSync(image).startsWith(root), image).toBe(true);
          expect(createHash('sha256').update(readFileSync(image)).digest('hex'), image).toBe(sha256);
        }
      }
      const after = geolab(['eval', 'report', moved, '--json'], { home });
      expect(after.code, after.stderr).toBe(0);
      expect(JSON.parse(after.stdout)).toEqual(JSON.parse(before.stdout));
    } finally {
      rmSync(shm!, { recursive: true, force: true });
    }
  }, SWEEP_TIMEOUT_MS);
});

/** A folder on another filesystem than the temp dir's, when the machine has one (tmpfs /dev/shm). */
function otherFilesystem(): string | null {
  try {
    if (statSync('/dev/shm').dev === statSync(tempDir()).dev) return null;
    return mkdtempSync('/dev/shm/geolab-move-');
  } catch {
    return null;
  }
}
