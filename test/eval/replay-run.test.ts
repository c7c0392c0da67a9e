/**
 * replayEpisodes (src/eval/replay-run.ts), the job behind `geolab episodes replay`, called as the TUI
 * would: episodes the binary records against the embedded demo environment (the random-land
 * baseline), replayed from their episodes file in the same private workspace, with the progress hook
 * hearing the count, each episode and the end.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { replayEpisodes } from '../../src/eval/replay-run.js';
import { openWorkspace } from '../../src/store/index.js';
import { spawnGeolab } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';

const HOME = tempDir('geolab-replay-run-');
let file: string;

/** The episodes file a run of `geolab agent` recorded. */
async function record(task: number): Promise<string> {
  const result = await spawnGeolab(['agent', '--json', '--split', 'eval', '--task', String(task), '--policy', 'random-land'], { home: HOME }).done;
  expect(result.code, result.stderr).toBe(0);
  const runDir = /recorded in (\S+)/.exec(result.stderr)?.[1];
  expect(runDir, result.stderr).toBeDefined();
  return join(runDir!, 'episodes.jsonl');
}

beforeAll(async () => {
  // Two episodes (tasks 0 and 2) in one file, as a sweep's run would hold them.
  const lines = [readFileSync(await record(0), 'utf8'), readFileSync(await record(2), 'utf8')].map((text) => text.trim());
  file = join(tempDir('geolab-replay-run-file-'), 'episodes.jsonl');
  writeFileSync(file, `${lines.join('\n')}\n`);
}, 120_000);

describe('replayEpisodes', () => {
  it("replays every episode of a file, each image ok at the records' view size, and reports progress", async () => {
    const heard: string[] = [];
    const ws = await openWorkspace(HOME);
    try {
      const run = await replayEpisodes(ws, file, {
        progress: (total) => {
          heard.push(`total ${total}`);
          return { replayed: (done) => heard.push(`replayed ${done}`), end: () => heard.push('end') };
        },
      });
      expect(heard).toEqual(['total 2', 'replayed 1', 'replayed 2', 'end']);
      expect(run.replays.map((r) => r.episode.record.task.index)).toEqual([0, 2]);
      expect(run.viewSizePx).toBe(640);
      expect(run.totals.images).toBeGreaterThan(0);
      expect(run.totals).toEqual({ images: run.totals.images, ok: run.totals.images, changed: 0, cannot_render: 0 });
    } finally {
      ws.close();
    }
  }, 60_000);

  it('draws at the view size asked, where every recorded view then differs', async () => {
    const ws = await openWorkspace(HOME);
    try {
      const run = await replayEpisodes(ws, `${file}:1`, { viewSize: 320 });
      expect(run.viewSizePx).toBe(320);
      expect(run.replays).toHaveLength(1);
      const views = run.replays[0]!.turns.filter((t) => t.kind === 'view');
      expect(views.length).toBeGreaterThan(0);
      expect(views.map((t) => t.status)).toEqual(views.map(() => 'changed'));
      expect(run.totals.changed).toBe(views.length);
    } finally {
      ws.close();
    }
  }, 60_000);
});
