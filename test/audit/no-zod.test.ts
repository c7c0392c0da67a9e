/**
 * `geolab audit` on prompt files loads no zod (some 45 ms: docs/budgets.md, "Memory touched"): the
 * real binary, every module it resolves logged (test/helpers/module-log.mjs) and mapped back to
 * its sources. An episode file, whose record schema is zod's, does load it.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadedSources } from '../helpers/bundle.js';
import { BIN } from '../helpers/cli.js';
import { completedRecord } from '../helpers/episodes.js';
import { tempDir } from '../helpers/fixtures.js';
import { buildAcceptanceCorpus, corpusFiles } from './acceptance/corpus.js';

const MODULE_LOG = fileURLToPath(new URL('../helpers/module-log.mjs', import.meta.url));

/** The sources a `geolab audit ARGS` run loaded. */
function sourcesLoaded(args: string[], dir: string): string[] {
  const log = join(dir, `modules-${args[0]}.log`);
  const r = spawnSync(process.execPath, ['--import', MODULE_LOG, BIN, 'audit', ...args, '--json'], {
    encoding: 'utf8',
    env: { ...process.env, GEOLAB_HOME: join(dir, 'home'), GEOLAB_MODULE_LOG: log },
  });
  // 0 or 1 (the corpus plants leaks): the audit ran to its report.
  expect([0, 1], r.stderr).toContain(r.status);
  return loadedSources(readFileSync(log, 'utf8').split('\n').filter(Boolean));
}

const zod = (sources: string[]) => sources.filter((file) => file.includes('/node_modules/zod/'));

describe('what geolab audit loads', () => {
  it('no zod for prompt and task files; an episode file brings it in', async () => {
    const dir = tempDir('geolab-no-zod-');
    const files = corpusFiles(await buildAcceptanceCorpus({ perKind: 1, perLookalike: 1, plain: 10 }));
    writeFileSync(join(dir, 'prompts.jsonl'), files.prompts);
    writeFileSync(join(dir, 'tasks.jsonl'), files.tasks);
    const prompts = sourcesLoaded(['--prompts', join(dir, 'prompts.jsonl'), '--tasks', join(dir, 'tasks.jsonl')], dir);
    expect(prompts.some((file) => file.endsWith('/src/core/tasks.ts'))).toBe(true);
    expect(zod(prompts)).toEqual([]);

    writeFileSync(join(dir, 'episodes.jsonl'), JSON.stringify(completedRecord()) + '\n');
    expect(zod(sourcesLoaded(['--episodes', join(dir, 'episodes.jsonl')], dir)).length).toBeGreaterThan(0);
  }, 60_000);
});
