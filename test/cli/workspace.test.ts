/** Several geolab processes on one workspace, and workspaces geolab cannot use (docs/reliability.md). */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, geolab, spawnCommand, type CliResult } from '../helpers/cli.js';
import { makeTask, tempDir, writeJsonl } from '../helpers/fixtures.js';

const DEMO_EPISODES = readFileSync(join(import.meta.dirname, '..', '..', 'datasets', 'demo', 'episodes', 'episodes.jsonl'), 'utf8')
  .split('\n')
  .filter((l) => l.trim()).length;

const held: Database.Database[] = [];
afterEach(() => held.splice(0).forEach((db) => db.close()));

/** Another connection holding the workspace's write lock, as a long import in another process would. */
function holdWriteLock(home: string): void {
  const db = new Database(join(home, 'geolab.db'));
  db.exec('BEGIN IMMEDIATE');
  held.push(db);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts `count` real geolab processes that each load, then wait at a barrier (a module preloaded
 * with --import) until all are ready, so they reach the workspace at the same moment.
 */
async function atOnce(count: number, args: string[], home: string): Promise<CliResult[]> {
  const dir = tempDir('geolab-barrier-');
  const go = join(dir, 'go');
  const barrier = join(dir, 'barrier.mjs');
  writeFileSync(
    barrier,
    `import { existsSync, writeFileSync } from 'node:fs';
writeFileSync(${JSON.stringify(join(dir, 'ready-'))} + process.pid, '');
while (!existsSync(${JSON.stringify(go)})) await new Promise((resolve) => setTimeout(resolve, 2));`,
  );
  const runs = Array.from(
    { length: count },
    () => spawnCommand(process.execPath, ['--import', pathToFileURL(barrier).href, BIN, ...args], { NO_COLOR: '1', GEOLAB_HOME: home }).done,
  );
  while (readdirSync(dir).filter((f) => f.startsWith('ready-')).length < count) await sleep(10);
  writeFileSync(go, '');
  return Promise.all(runs);
}

describe('several geolab processes on one new workspace', () => {
  it('six first runs at once all succeed, and exactly one of them seeds the demo', async () => {
    const home = tempDir();
    const results = await atOnce(6, [], home);
    for (const r of results) {
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`episodes +${DEMO_EPISODES}\\n`));
    }
    expect(results.filter((r) => r.stdout.includes('(new, demo tasks loaded)'))).toHaveLength(1);
    const summary = JSON.parse(geolab(['--json'], { home }).stdout) as { task_sets: { name: string }[]; episodes: number };
    expect(summary.task_sets.map((s) => s.name)).toEqual(['demo']);
    expect(summary.episodes).toBe(DEMO_EPISODES);
  });
});

describe('a workspace another process keeps locked', () => {
  const busy = { GEOLAB_BUSY_TIMEOUT: '0.2' };

  it('a new one cannot be set up: one line "workspace is busy", exit 3, and nothing half-made', () => {
    const home = tempDir();
    holdWriteLock(home);
    const r = geolab(['episodes', 'list', '--json'], { home, env: busy });
    expect(r.code).toBe(3);
    expect(r.stderr).toBe(
      `geolab: workspace is busy: another geolab process kept ${home} locked past the 0.2 s wait; ` +
        'try again when it is done (GEOLAB_BUSY_TIMEOUT sets the wait in seconds)\n',
    );
    held.splice(0).forEach((db) => db.close());
    const later = geolab(['--json'], { home });
    expect(later.code, later.stderr).toBe(0);
    expect((JSON.parse(later.stdout) as { episodes: number }).episodes).toBe(DEMO_EPISODES);
  });

  it('an existing one still reads; a write waits, then says busy with exit 3', () => {
    const home = tempDir();
    expect(geolab(['--json'], { home }).code).toBe(0);
    holdWriteLock(home);
    const read = geolab(['episodes', 'list', '--json'], { home, env: busy });
    expect(read.code, read.stderr).toBe(0);
    expect(JSON.parse(read.stdout)).toHaveLength(DEMO_EPISODES);
    const write = geolab(['tasks', 'import', writeJsonl([makeTask(0)]), '--name', 'mine'], { home, env: busy });
    expect(write.code).toBe(3);
    expect(write.stderr).toMatch(/^geolab: workspace is busy: [^\n]+\n$/);
  });

  it('a bad GEOLAB_BUSY_TIMEOUT is bad usage', () => {
    const r = geolab(['episodes', 'list'], { home: tempDir(), env: { GEOLAB_BUSY_TIMEOUT: 'soon' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('geolab: GEOLAB_BUSY_TIMEOUT expects seconds >= 0, got "soon"\n');
  });
});

describe('a workspace path geolab cannot use', () => {
  const hint = 'choose another with --workspace or GEOLAB_HOME';

  it('a folder the system refuses to create (/proc/nope) fails at once with exit 2', () => {
    const r = geolab(['--workspace', '/proc/nope', 'episodes', 'list'], { timeoutMs: 20_000 });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `geolab: /proc/nope: cannot use this as the workspace directory: cannot create /proc/nope: ENOENT (no such file or directory); ${hint}\n`,
    );
    expect(existsSync('/proc/nope')).toBe(false);
  });

  it('env serve refuses it before listening, instead of failing (or spinning) at the first view', () => {
    const r = geolab(['--workspace', '/proc/nope', 'env', 'serve', '--port', '0'], { timeoutMs: 20_000 });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'geolab: /proc/nope: cannot use this as the workspace directory: cannot create /proc/nope: ENOENT (no such file or directory); ' +
        'choose another with --workspace or GEOLAB_HOME\n',
    );
  });

  it('env serve refuses a panorama cache it cannot write, before listening', () => {
    const r = geolab(['env', 'serve', '--port', '0', '--panos', '/proc/nope/panos'], { home: tempDir(), timeoutMs: 20_000 });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'geolab: /proc/nope/panos: cannot use this as the panorama cache: cannot create /proc/nope: ENOENT (no such file or directory); ' +
        'choose another with --panos or --workspace\n',
    );
  });

  it('a path under a read-only file names that file, exit 2', () => {
    const file = join(tempDir(), 'notes.txt');
    writeFileSync(file, 'not a folder', { mode: 0o444 });
    const under = join(file, 'ws', 'deeper');
    const r = geolab(['--workspace', under, '--json'], { timeoutMs: 20_000 });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`geolab: ${under}: cannot use this as the workspace directory: ${file}: not a directory; ${hint}\n`);
  });

  it('a folder of the workspace the file system refuses: one line naming it, exit 2, no stack trace', () => {
    const home = tempDir();
    expect(geolab(['--json'], { home }).code).toBe(0);
    writeFileSync(join(home, 'runs'), 'a file where the runs folder belongs');
    const r = geolab(['agent', '--policy', 'fixed', '--point', '10,10', '--headless', '--split', 'eval', '--task', '0'], { home });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`^geolab: cannot \\w+ ${join(home, 'runs')}\\S*: ENOTDIR: not a directory\n$`));
  });

  it('a database file that is not one: exit 2 naming it, no stack trace', () => {
    const home = tempDir();
    writeFileSync(join(home, 'geolab.db'), 'these bytes are not SQLite, and long enough to be read as a header....');
    const r = geolab(['episodes', 'list'], { home });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`geolab: cannot use the workspace database ${join(home, 'geolab.db')}: file is not a database (SQLITE_NOTADB)\n`);
  });
});
