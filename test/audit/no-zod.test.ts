/**
 * `geolab audit` on prompt, task and episode files, `geolab episodes import`, and the commands that
 * take actions (`geolab eval run`, `geolab env serve`, `geolab episodes compare`) load no zod (some
 * 45 ms: docs/budgets.md, "Memory touched"): the real binary, every module it resolves logged
 * (test/helpers/module-log.mjs) and mapped back to its sources. Task and episode records and actions
 * are checked by hand-written code (src/core/tasks.ts, src/core/episode.ts, src/env/actions.ts), the
 * zod schemas kept as references. The sweep also loads neither form-data nor follow-redirects (axios
 * is bundled without them, scripts/build.mjs).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadedSources } from '../helpers/bundle.js';
import { BIN, spawnCommand } from '../helpers/cli.js';
import { completedRecord } from '../helpers/episodes.js';
import { tempDir } from '../helpers/fixtures.js';
import { startScriptedOpenAI, toolCall, toolSteps } from '../helpers/scripted-openai.js';
import { postJson } from '../env/helpers/live.js';
import { buildAcceptanceCorpus, corpusFiles } from './acceptance/corpus.js';

const MODULE_LOG = fileURLToPath(new URL('../helpers/module-log.mjs', import.meta.url));

/** A fresh module log under `dir`, and the environment of a `geolab` run that writes it. */
function moduleLog(dir: string): { log: string; env: Record<string, string> } {
  const log = join(mkdtempSync(join(dir, 'modules-')), 'log');
  return { log, env: { GEOLAB_HOME: join(dir, 'home'), GEOLAB_MODULE_LOG: log } };
}

const logged = (log: string) => loadedSources(readFileSync(log, 'utf8').split('\n').filter(Boolean));

/** The sources a `geolab ARGS` run loaded, the run ending with one of these statuses. */
function sourcesLoaded(args: string[], dir: string, statuses: number[]): string[] {
  const { log, env } = moduleLog(dir);
  const r = spawnSync(process.execPath, ['--import', MODULE_LOG, BIN, ...args], { encoding: 'utf8', env: { ...process.env, ...env } });
  expect(statuses, r.stderr).toContain(r.status);
  return logged(log);
}

/** `geolab ARGS` as a child process (for runs that talk to a server in this process), with its module log. */
function spawnLogged(args: string[], dir: string) {
  const { log, env } = moduleLog(dir);
  return { log, ...spawnCommand(process.execPath, ['--import', MODULE_LOG, BIN, ...args], env) };
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

describe('what the commands that take actions load', () => {
  it('no zod for a one-episode `eval run` with the embedded environment', async () => {
    const dir = tempDir('geolab-no-zod-eval-');
    const model = await startScriptedOpenAI({ script: toolSteps(toolCall('look', { heading_deg: 90 }), toolCall('pin', { lat: 44, lon: 12 }), toolCall('guess', { lat: 45.5, lon: 9.2 })) });
    try {
      const run = spawnLogged(['--workspace', join(dir, 'ws'), 'eval', 'run', '--model', 'scripted', '--base-url', model.baseUrl, '--split', 'eval', '--limit', '1', '--passes', '1', '--out', join(dir, 'out')], dir);
      const r = await run.done;
      expect(r.code, r.stderr).toBe(0);
      expect(model.requests).toHaveLength(3);
      const sources = logged(run.log);
      expect(loads(sources, '/src/env/actions.ts') && loads(sources, '/src/agent/protocols/tools.ts') && loads(sources, '/src/env/engine.ts')).toBe(true);
      expect(zod(sources)).toEqual([]);
      // axios is bundled without form-data and follow-redirects (scripts/build.mjs): no multipart
      // machinery, no mime table, no redirect wrapper around every request.
      expect(loads(sources, '/node_modules/axios/lib/adapters/http.js')).toBe(true);
      expect(sources.filter((file) => /\/node_modules\/(form-data|mime-db|mime-types|combined-stream|follow-redirects)\//.test(file))).toEqual([]);
    } finally {
      await model.close();
    }
  }, 60_000);

  it('no zod for `env serve` through a reset, a step and a refused step', async () => {
    const dir = tempDir('geolab-no-zod-serve-');
    const serve = spawnLogged(['env', 'serve', '--port', '0', '--json'], dir);
    try {
      const ready = await new Promise<string>((resolve) => createInterface({ input: serve.child.stdout! }).once('line', resolve));
      const url = String((JSON.parse(ready) as { url: string }).url);
      const opened = await postJson(`${url}/sessions`, { split: 'eval', index: 0 });
      const id = opened.json.session_id as string;
      expect((await postJson(`${url}/sessions/${id}/step`, { action: { op: 'zoom', fov_deg: 40 } })).status).toBe(200);
      expect((await postJson(`${url}/sessions/${id}/step`, { action: { op: 'zoom', fov_deg: 400 } })).json.code).toBe('VALIDATION_ERROR');
      expect(((await (await fetch(`${url}/schema`)).json()) as { action: { oneOf: unknown[] } }).action.oneOf).toHaveLength(11);
    } finally {
      serve.child.kill('SIGTERM');
      await serve.done;
    }
    const sources = logged(serve.log);
    expect(loads(sources, '/src/env/actions.ts') && loads(sources, '/src/env/mcp.ts')).toBe(true);
    expect(zod(sources)).toEqual([]);
  }, 60_000);

  it('no zod to compare two episodes', () => {
    const dir = tempDir('geolab-no-zod-compare-');
    const file = join(dir, 'episodes.jsonl');
    writeFileSync(file, [completedRecord({ id: 'a1', index: 4 }), completedRecord({ id: 'b2', index: 4, model: 'other' })].map((r) => JSON.stringify(r)).join('\n') + '\n');
    const sources = sourcesLoaded(['episodes', 'compare', '--json', `${file}:1`, `${file}:2`], dir, [0]);
    expect(loads(sources, '/src/eval/compare.ts') && loads(sources, '/src/env/actions.ts')).toBe(true);
    expect(zod(sources)).toEqual([]);
  }, 60_000);
});
