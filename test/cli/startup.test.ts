import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadedSources } from '../helpers/bundle.js';
import { BIN, geolab } from '../helpers/cli.js';
import { completedRecord } from '../helpers/episodes.js';
import { makeTask, tempDir, writeJsonl } from '../helpers/fixtures.js';

/** Runs the binary with a module hook that logs every module URL it loads; answers the source modules they hold. */
function loadedModules(args: string[]): string[] {
  const dir = tempDir();
  const log = join(dir, 'modules.log');
  const hooks = join(dir, 'hooks.mjs');
  writeFileSync(
    hooks,
    `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) { appendFileSync(${JSON.stringify(log)}, url + '\\n'); return next(url, context); }`,
  );
  const register = join(dir, 'register.mjs');
  // Node 20's module hooks see only ESM loads; what `require` loaded (src/vendor/commonjs.ts) is in
  // the CommonJS cache, logged as the process exits.
  writeFileSync(
    register,
    `import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { pathToFileURL } from 'node:url';
register(${JSON.stringify(pathToFileURL(hooks).href)});
const cache = createRequire(import.meta.url).cache;
process.on('exit', () => appendFileSync(${JSON.stringify(log)}, Object.keys(cache).map((file) => pathToFileURL(file).href + '\\n').join('')));`,
  );
  const r = spawnSync(process.execPath, ['--import', pathToFileURL(register).href, BIN, ...args], {
    encoding: 'utf8',
    env: { ...process.env, GEOLAB_HOME: dir },
  });
  expect(r.status, r.stderr).toBe(0);
  return loadedSources(readFileSync(log, 'utf8').split('\n').filter(Boolean));
}

describe('CLI start-up', () => {
  it('prints its version and help', () => {
    const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as { version: string };
    expect(geolab(['--version']).stdout.trim()).toBe(pkg.version);
    const help = geolab(['--help']);
    expect(help.code).toBe(0);
    for (const cmd of ['geo', 'score', 'tasks']) expect(help.stdout).toContain(cmd);
  });

  it('an unknown command or option is bad usage (exit 2)', () => {
    expect(geolab(['frobnicate']).code).toBe(2);
    expect(geolab(['score', '--bogus']).code).toBe(2);
  });

  it('`geolab help` and `geolab foo` say "unknown command" with the list of commands, and exit 2', () => {
    for (const word of ['help', 'foo']) {
      const r = geolab([word]);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(
        `geolab: unknown command "${word}"; the commands are geo, score, env, tasks, splits, config, panos, episodes, audit, play, agent, eval, train (\`geolab --help\` for more)\n`,
      );
    }
    // A subcommand still refuses a stray argument of its own.
    expect(geolab(['score', 'extra']).stderr).toContain('too many arguments');
  });

  it('commands that draw no TUI never load ink, React or SQLite they do not need', () => {
    const file = writeJsonl([makeTask(0)]);
    const prompts = join(tempDir(), 'prompts.jsonl');
    writeFileSync(prompts, JSON.stringify({ id: 'p', task_id: 'fx-00000', messages: [{ role: 'user', content: 'Where is this?' }] }) + '\n');
    const trainConfig = join(tempDir(), 'train.json');
    writeFileSync(trainConfig, JSON.stringify({ version: 1, name: 'r', output_dir: 'out' }));
    for (const args of [
      ['geo', 'locate', '-33.92', '18.42'],
      ['score', '--distance-km', '5'],
      ['tasks', 'validate', file],
      ['audit', '--prompts', prompts, '--tasks', file],
      ['train', 'launch', trainConfig, '--dry-run', '--no-preflight'],
    ]) {
      const modules = loadedModules(args);
      expect(modules.some((m) => m.endsWith('/src/cli/main.ts'))).toBe(true);
      expect(modules.filter((m) => /node_modules\/(ink|react|better-sqlite3|sharp)\//.test(m))).toEqual([]);
    }
  });

  it('train commands draw no TUI: never ink or React; serving an adapter needs no SQLite either', () => {
    const run = tempDir();
    mkdirSync(join(run, 'out', 'checkpoint-25'), { recursive: true });
    writeFileSync(join(run, 'out', 'checkpoint-25', 'adapter_config.json'), '{}');
    writeFileSync(join(run, 'config.json'), JSON.stringify({ version: 1, name: 'r', output_dir: 'out' }));
    const serve = loadedModules(['train', 'serve', run]);
    expect(serve.some((m) => m.endsWith('/src/cli/commands/train.ts'))).toBe(true);
    expect(serve.filter((m) => /node_modules\/(ink|react|better-sqlite3|sharp)\//.test(m))).toEqual([]);
    const init = loadedModules(['train', 'init', '--yes', '--out', join(run, 'again')]);
    expect(init.some((m) => m.endsWith('/src/train/init.ts'))).toBe(true);
    expect(init.filter((m) => /node_modules\/(ink|react|@inkjs)\//.test(m))).toEqual([]);
  });

  it('`episodes compare` of two files loads no ink, React, SQLite or sharp without a terminal', () => {
    const file = join(tempDir(), 'episodes.jsonl');
    writeFileSync(file, [completedRecord({ id: 'a1', index: 4 }), completedRecord({ id: 'b2', index: 4, model: 'other' })].map((r) => JSON.stringify(r)).join('\n') + '\n');
    const modules = loadedModules(['episodes', 'compare', '--json', `${file}:1`, `${file}:2`]);
    expect(modules.some((m) => m.endsWith('/src/eval/compare.ts'))).toBe(true);
    expect(modules.filter((m) => /node_modules\/(ink|react|better-sqlite3|sharp)\//.test(m))).toEqual([]);
  });
});
