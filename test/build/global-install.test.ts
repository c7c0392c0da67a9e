/**
 * What a user installing from npm gets (docs/architecture.md, "Installing"): the package
 * is packed as published, installed globally into a fresh prefix the way the README says (with
 * better-sqlite3's native build and geolab's own install script allowed), and the installed binary
 * opens the TUI on Home with the patched Ink and axios inside its bundle. npm reads the dependencies
 * from its cache when it can (`--prefer-offline`), else from the registry; better-sqlite3 is built
 * from source here (its prebuilt download is out of reach), which is most of this test's minute.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../src/paths.js';
import { TmuxPane } from '../helpers/tmux.js';

const root = mkdtempSync(join(tmpdir(), 'geolab-global-'));
const prefix = join(root, 'prefix');
const installed = join(prefix, 'lib', 'node_modules', 'geolab');
let pane: TmuxPane | undefined;

function run(command: string, args: string[], cwd: string): string {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_loglevel: 'warn' } });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${result.status}:\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

beforeAll(() => {
  // dist/ is built by the test run's global setup; packing must not rebuild it under other tests.
  const packed = JSON.parse(run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', root], PACKAGE_ROOT)) as { filename: string }[];
  run('npm', ['install', '--global', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund',
    '--allow-scripts=geolab,better-sqlite3', join(root, packed[0]!.filename)], root);
}, 600_000);

afterAll(() => {
  pane?.kill();
  rmSync(root, { recursive: true, force: true });
});

describe('a global install from the packed package', () => {
  it('carries the patched Ink and axios in its bundle, importing neither at run time', () => {
    const bundle = join(installed, 'dist', 'bundle');
    const code = readdirSync(bundle).filter((f) => f.endsWith('.js')).map((f) => readFileSync(join(bundle, f), 'utf8'));
    expect(code.some((c) => c.includes('MAX_CACHED_LINES') && c.includes('sharedCaches'))).toBe(true);
    const axios = code.filter((c) => c.includes('isAxiosError'));
    expect(axios.length).toBeGreaterThan(0);
    for (const c of axios) expect(c).not.toContain('FormDataCtor');
    const bare = code.flatMap((c) => [...c.matchAll(/^import\s[^'"]*from\s*["']([^./"'][^"']*)["']/gm)].map((m) => m[1]!));
    expect(bare.filter((name) => /^(ink|axios)(\/|$)/.test(name))).toEqual([]);
  });

  it('runs a query through its own better-sqlite3 build', () => {
    const home = mkdtempSync(join(root, 'home-'));
    const out = spawnSync(join(prefix, 'bin', 'geolab'), ['--json'], { encoding: 'utf8', env: { ...process.env, GEOLAB_HOME: home } });
    expect(out.status, out.stderr).toBe(0);
    expect((JSON.parse(out.stdout) as { tasks: number }).tasks).toBeGreaterThan(0);
  });

  it('opens the TUI on Home in a real terminal', { timeout: 60_000 }, async () => {
    const home = mkdtempSync(join(root, 'home-'));
    pane = new TmuxPane([join(prefix, 'bin', 'geolab')], { GEOLAB_HOME: home });
    // Home's menu, and its summary read from the new workspace's SQLite file.
    const screen = await pane.waitFor(/Tasks\s+\d+ in 1 set/, 30_000);
    expect(screen).toContain('Eval board');
  });
});
