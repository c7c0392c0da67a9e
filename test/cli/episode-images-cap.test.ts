/**
 * Images named in records (`image_path`) read for `episodes compare` only when they are regular
 * files within the cap (docs/reliability.md, "Size caps"): a FIFO and a 40 MiB sparse file are
 * never read, each skipped with a reason said on stderr.
 */
import { execFileSync } from 'node:child_process';
import { truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileImages } from '../../src/cli/commands/episodes-compare.js';
import type { EpisodeRecord } from '../../src/core/episode.js';
import { MAX_IMAGE_BYTES } from '../../src/store/import-episodes.js';
import { tempDir } from '../helpers/fixtures.js';

describe('episodes compare: images a record names', () => {
  it('reads a regular file within the cap, and skips a FIFO and a 40 MiB file with their reasons', async () => {
    const dir = tempDir();
    execFileSync('mkfifo', [join(dir, 'pipe.jpg')]);
    writeFileSync(join(dir, 'big.jpg'), '');
    truncateSync(join(dir, 'big.jpg'), 40 * 1024 * 1024); // sparse: no 40 MiB written
    writeFileSync(join(dir, 'ok.jpg'), 'jpeg bytes');
    const turn = (c: string, path: string) => ({ image_sha256: c.repeat(64), image_path: path });
    const record = { turns: [turn('a', 'pipe.jpg'), turn('b', 'big.jpg'), turn('c', 'ok.jpg'), turn('d', 'missing.jpg')] } as unknown as EpisodeRecord;
    const said: string[] = [];
    const started = performance.now();
    const images = await fileImages({ label: 'run/episodes.jsonl:1', record, fileDir: dir }, (text) => said.push(text));
    expect(performance.now() - started).toBeLessThan(2000);
    expect([...images.keys()]).toEqual(['c'.repeat(64)]);
    expect(images.get('c'.repeat(64))?.toString()).toBe('jpeg bytes');
    expect(MAX_IMAGE_BYTES).toBe(32 * 1024 * 1024);
    expect(said).toEqual([
      'run/episodes.jsonl:1: turns[0].image_path "pipe.jpg" skipped: it is a FIFO, not a regular file',
      `run/episodes.jsonl:1: turns[1].image_path "big.jpg" skipped: it has ${40 * 1024 * 1024} bytes, above the cap of ${MAX_IMAGE_BYTES}`,
    ]);
  });
});
