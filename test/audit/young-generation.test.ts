/**
 * `geolab audit` keeps V8's young generation at its start-up size (src/heap.ts, docs/budgets.md,
 * "Memory touched"): the real binary over 150 prompts of the acceptance corpus, its heap read by a
 * probe as it exits. Left to V8 the young generation of the same run grows to 32 MiB.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { buildAcceptanceCorpus, corpusFiles } from './acceptance/corpus.js';

/**
 * Loaded with --import: prints the young generation's size (MiB) on stderr as the process exits.
 * With `ignoreFlags`, V8 flags set at run time are dropped first, so geolab's setting is not made
 * and the same run shows what V8 alone does.
 */
function probe(ignoreFlags: boolean): string {
  const drop = "import { syncBuiltinESMExports } from 'node:module'; v8.setFlagsFromString = () => {}; syncBuiltinESMExports();";
  const report = "process.on('exit', () => { const s = v8.getHeapSpaceStatistics().find((x) => x.space_name === 'new_space'); process.stderr.write('\\nnew-space-mib ' + s.space_size / 2 ** 20 + '\\n'); });";
  return `data:text/javascript,${encodeURIComponent(`import v8 from 'node:v8'; ${ignoreFlags ? drop : ''} ${report}`)}`;
}

function newSpaceMib(args: string[], home: string, ignoreFlags = false): number {
  const r = spawnSync(process.execPath, ['--import', probe(ignoreFlags), BIN, ...args], { encoding: 'utf8', env: { ...process.env, GEOLAB_HOME: home }, maxBuffer: 1 << 28 });
  const m = /^new-space-mib (\S+)$/m.exec(r.stderr);
  expect(m, r.stderr.slice(-500)).not.toBeNull();
  return Number(m![1]);
}

describe('the young generation of geolab audit', () => {
  it('stays at its start-up size over 150 prompts; the same run left to V8 grows it', async () => {
    const dir = tempDir('geolab-young-');
    const files = corpusFiles(await buildAcceptanceCorpus({ perKind: 1, perLookalike: 1, plain: 100, viewPx: 64 }));
    writeFileSync(join(dir, 'prompts.jsonl'), files.prompts);
    writeFileSync(join(dir, 'tasks.jsonl'), files.tasks);
    const args = ['audit', '--prompts', join(dir, 'prompts.jsonl'), '--tasks', join(dir, 'tasks.jsonl'), '--json'];
    const home = tempDir('geolab-young-home-');
    expect(newSpaceMib(args, home)).toBeLessThanOrEqual(2);
    // What the setting holds back: the same run without it.
    expect(newSpaceMib(args, home, true)).toBeGreaterThanOrEqual(8);
  }, 120_000);
});
