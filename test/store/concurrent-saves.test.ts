/**
 * Several processes saving episodes into one workspace at once, as the shards of a sweep do: each
 * save reads (the task set version played) before it writes, so it must take the write lock first
 * (BEGIN IMMEDIATE). A deferred transaction whose snapshot another process's commit made stale is
 * refused at once with SQLITE_BUSY, without the busy wait (docs/reliability.md, shared workspaces).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { openWorkspace } from '../../src/store/index.js';
import { tempDir } from '../helpers/fixtures.js';

const run = promisify(execFile);
const WRITERS = 5;
const SAVES = 300;

describe('saveEpisode from several processes at once', () => {
  it('every save of every process lands; none is refused as busy', { timeout: 120_000 }, async () => {
    const dir = tempDir('geolab-concurrent-saves-');
    (await openWorkspace(dir, { seedDemo: false })).close();
    const child = join(import.meta.dirname, 'save-child.ts');
    const outputs = await Promise.all(
      Array.from({ length: WRITERS }, (_, w) =>
        run(process.execPath, ['--import', 'tsx', child, dir, String(w), String(SAVES)], { cwd: join(import.meta.dirname, '..', '..') }),
      ),
    );
    expect(outputs.map((o) => o.stdout.trim())).toEqual(Array.from({ length: WRITERS }, () => `saved ${SAVES}`));
    const ws = await openWorkspace(dir, { seedDemo: false });
    try {
      expect(ws.db.prepare('SELECT COUNT(*) FROM episodes').pluck().get()).toBe(WRITERS * SAVES);
    } finally {
      ws.close();
    }
  });
});
