/**
 * `geolab play` in a real terminal (tmux): a start-up problem is one line and an exit code (2 usage,
 * 3 unreachable) before the TUI draws anything, with the embedded environment and with --env.
 */
import { createServer } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, geolab } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { TmuxPane } from '../helpers/tmux.js';
import { startLive, type Live } from '../env/helpers/live.js';

const HOME = tempDir('geolab-play-startup-');
const panes: TmuxPane[] = [];
let live: Live;
let closedPort: number;

beforeAll(async () => {
  expect(geolab(['--json'], { home: HOME }).code).toBe(0);
  live = await startLive();
  // A port that was just free: nothing listens there.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  closedPort = (probe.address() as { port: number }).port;
  await new Promise((resolve) => probe.close(resolve));
});
afterAll(() => live.close());
afterEach(() => panes.splice(0).forEach((p) => p.kill()));

/** Runs `geolab play ARGS` in a pane; the shell prints the exit code after it and keeps the pane. */
async function playIn(args: string[]): Promise<string> {
  const quoted = [process.execPath, BIN, 'play', ...args].map((a) => `'${a}'`).join(' ');
  const pane = new TmuxPane(['sh', '-c', `${quoted}; echo "[exit $?]"; sleep 120`], { GEOLAB_HOME: HOME, TERM: 'xterm-256color' });
  panes.push(pane);
  const screen = await pane.waitFor(/\[exit \d+\]/);
  return screen.split('\n').filter((line) => line.trim() !== '').join('\n');
}

describe('geolab play start-up errors, in a real terminal', () => {
  it.each([
    [['--split', 'nope'], 'geolab: split "nope" is not served: the embedded environment serves train, eval, demo', 2],
    [['--split', 'eval', '--task', '999'], 'geolab: task 999 is out of range: split eval has tasks 0 to 14', 2],
  ])('embedded, %j: one line and exit 2', async (args, line, code) => {
    expect(await playIn(args)).toBe(`${line}\n[exit ${code}]`);
  });

  it('--env that nothing answers: one line and exit 3, no TUI', async () => {
    const screen = await playIn(['--env', `http://127.0.0.1:${closedPort}`]);
    expect(screen).toMatch(new RegExp(`^geolab: cannot reach the environment at http://127\\.0\\.0\\.1:${closedPort}: .+\\n\\[exit 3\\]$`));
  });

  it('--env with a split it does not serve or a task out of range: one line and exit 2, no TUI', async () => {
    const unknown = await playIn(['--env', live.server.url, '--split', 'nope']);
    expect(unknown).toMatch(/^geolab: split "nope" is not served: .+\n\[exit 2\]$/);
    const outOfRange = await playIn(['--env', live.server.url, '--split', 'eval', '--task', '999']);
    expect(outOfRange).toMatch(/^geolab: task 999 is out of range: split eval has tasks 0 to 14\n\[exit 2\]$/);
  });
});
