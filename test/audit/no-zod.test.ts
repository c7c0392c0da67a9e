/**
 * `geolab audit` on prompt, task and episode files, and `geolab episodes import`, load no zod (some
 * 45 ms: docs/budgets.md, "Memory touched"): the real binary, every module it resolves logged
 * (test/helpers/module-log.mjs) and mapped back to its sources. Task and episode records are checked
 * by hand-written code (src/core/tasks.ts, src/core/episode.ts), the zod schemas kept as references.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadedSources } from '../helpers/bundle.js';
import { BIN } from '../helpers/cli.js';
import { completedRecord } from '../helpers/episodes.js';
import { tempDir } from '../helpers/fixtures.js';
import { buildAcceptanceCorpus, corpusFiles } from './acceptance/corpus.js';

const MODULE_LOG = fileURLToPath(new URL('../helpers/module-log.mjs', import.meta.url));

/** The sources a `geolab ARGS` run loaded, the run ending with one of these statuses. */
function sourcesLoaded(args: string[], dir: string, statuses: number[]): string[] {
  const log = join(mkdtempSync(join(dir, 'modules-')), 'log');
  const r = spawnSync(process.execPath, ['--import', MODULE_LOG, BIN, ...args], {
    encoding: 'utf8',
    env: { ...process.env, GEOLAB_HOME: join(dir, 'home'), GEOLAB_MODULE_LOG: log },
  });
  expect(statuses, r.stderr).toContain(r.status);
  return loadedSources(readFileSync(log, 'utf8').split('\n').filter(Boolean));
}

/** The sources a `geolab audit ARGS` run loaded: 0 or 1 (the corpus plants leaks), the audit ran to its report. */
const auditLoaded = (args: string[], dir: string) => sourcesLoaded(['audit', ...args, '--json'], dir, [0, 1]);

const zod = (sources: string[]) => sources.filter((file) => file.includes('/node_modules/zod/'));

const loads = (sources: string[], file: string) => sources.some((source) => source.endsWith(file));

describe('what geolab audit and geolab episodes import load', () => {
  it('no zod for prompt, task and episode files', async () => {
    const dir = tempDir('geolab-no-zod-');
    const files = corpusFiles(await buildAcceptanceCorpus({ perKind: 1, perLookalike: 1, plain: 10 }));
    writeFileSync(join(dir, 'prompts.jsonl'), files.prompts);
    writeFileSync(join(dir, 'tasks.jsonl'), files.tasks);
    const prompts = auditLoaded(['--prompts', join(dir, 'prompts.jsonl'), '--tasks', join(dir, 'tasks.jsonl')], dir);
    expect(loads(prompts, '/src/core/tasks.ts')).toBe(true);
    expect(zod(prompts)).toEqual([]);

    writeFileSync(join(dir, 'episodes.jsonl'), JSON.stringify(completedRecord()) + '\n');
    const episodes = auditLoaded(['--episodes', join(dir, 'episodes.jsonl')], dir);
    expect(loads(episodes, '/src/audit/sources/episodes.ts') && loads(episodes, '/src/core/episode.ts')).toBe(true);
    expect(zod(episodes)).toEqual([]);
  }, 60_000);

  it('no zod to import an episode file', () => {
    const dir = tempDir('geolab-no-zod-import-');
    writeFileSync(join(dir, 'episodes.jsonl'), JSON.stringify(completedRecord()) + '\n');
    const imported = sourcesLoaded(['--workspace', join(dir, 'ws'), 'episodes', 'import', join(dir, 'episodes.jsonl')], dir, [0]);
    expect(loads(imported, '/src/store/import-episodes.ts') && loads(imported, '/src/core/episode.ts')).toBe(true);
    expect(zod(imported)).toEqual([]);
  }, 60_000);
});
