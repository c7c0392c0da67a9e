import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { demoPanoramaPath, ensureAllDemoPanoramas, ensureDemoPanorama } from '../../src/demo/cache.js';
import { readDemoTasks } from './pixels.js';

const tasks = readDemoTasks();
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'geolab-demo-cache-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('demo panorama cache', () => {
  it('names files <cacheDir>/<image_id>.jpg and refuses ids that could escape the cache', () => {
    expect(demoPanoramaPath('/cache', 'demo-0001-f2')).toBe(join('/cache', 'demo-0001-f2.jpg'));
    for (const bad of ['../etc/passwd', 'a/b', '', 'x.jpg', 'a b']) expect(() => demoPanoramaPath('/cache', bad)).toThrow(/path-safe/);
  });

  it('renders a missing panorama on first use into a nested cache dir, leaving no temp file', async () => {
    const task = tasks[0]!;
    const cacheDir = join(dir, 'nested', 'panoramas');
    const path = await ensureDemoPanorama(cacheDir, task, 1);
    expect(path).toBe(join(cacheDir, `${task.frames[1]!.image_id}.jpg`));
    expect(await readdir(cacheDir)).toEqual([`${task.frames[1]!.image_id}.jpg`]);
    const meta = await sharp(await readFile(path)).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 2048, 1024]);
  });

  it('leaves an existing file alone', async () => {
    const task = tasks[1]!;
    const path = demoPanoramaPath(dir, task.frames[0]!.image_id);
    await writeFile(path, 'already here');
    expect(await ensureDemoPanorama(dir, task, 0)).toBe(path);
    expect(await readFile(path, 'utf8')).toBe('already here');
  });

  it('survives two racing writers of the same panorama', async () => {
    const task = tasks[2]!;
    const [a, b] = await Promise.all([ensureDemoPanorama(dir, task, 0), ensureDemoPanorama(dir, task, 0)]);
    expect(a).toBe(b);
    expect(await readdir(dir)).toEqual([`${task.frames[0]!.image_id}.jpg`]);
  });

  it('makes every frame of several tasks with bounded concurrency, in task and frame order', async () => {
    const some = tasks.slice(3, 5);
    const progress: number[] = [];
    const paths = await ensureAllDemoPanoramas(dir, some, { concurrency: 3, onProgress: (done) => progress.push(done) });
    const ids = some.flatMap((t) => t.frames.map((f) => f.image_id));
    expect(paths).toEqual(ids.map((id) => join(dir, `${id}.jpg`)));
    expect((await readdir(dir)).sort()).toEqual(ids.map((id) => `${id}.jpg`).sort());
    expect(progress).toEqual(ids.map((_, k) => k + 1));
  });

  it('rejects a frame index out of range without writing anything', async () => {
    await expect(ensureDemoPanorama(dir, tasks[0]!, 99)).rejects.toThrow(RangeError);
    expect(await readdir(dir)).toEqual([]);
  });
});
