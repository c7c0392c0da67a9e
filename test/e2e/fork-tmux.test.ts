/**
 * `geolab episodes fork` on a terminal (tmux): the Live screen plays the fork, a model's (a second
 * scripted endpoint) or a person's (`--play`), after the recorded turns before K were replayed; on
 * leaving, the command prints the fork beside the original and the fork is in the workspace.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, spawnGeolab } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { startScriptedOpenAI, toolCall, type ScriptedOpenAI, type ScriptedReply } from '../helpers/scripted-openai.js';
import { TmuxPane } from '../helpers/tmux.js';

const HOME = tempDir('geolab-e2e-fork-');
const panes: TmuxPane[] = [];
const servers: ScriptedOpenAI[] = [];
afterEach(async () => {
  panes.splice(0).forEach((p) => p.kill());
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function endpoint(script: ScriptedReply[]): Promise<ScriptedOpenAI> {
  const server = await startScriptedOpenAI({ script });
  servers.push(server);
  return server;
}

/** The original: look, pin, guess, recorded headless. */
async function original(): Promise<{ id: string; server: ScriptedOpenAI }> {
  const server = await endpoint([
    { toolCalls: [toolCall('look', { heading_deg: 90, fov_deg: 60 })] },
    { toolCalls: [toolCall('pin', { lat: 10, lon: 20 })] },
    { toolCalls: [toolCall('guess', { lat: 40, lon: -3 })] },
  ]);
  const result = await spawnGeolab(['agent', '--headless', '--base-url', server.baseUrl, '--model', 'scripted', '--split', 'eval', '--task', '0'], { home: HOME }).done;
  expect(result.code, result.stderr).toBe(0);
  return { id: /episode (\S+) recorded in/.exec(result.stderr)![1]!, server };
}

/** `geolab episodes fork ARGS` in a pane; the shell prints the exit code after it and keeps the pane. */
function forkIn(args: string[]): TmuxPane {
  const quoted = [process.execPath, BIN, 'episodes', 'fork', ...args].map((a) => `'${a}'`).join(' ');
  const pane = new TmuxPane(['sh', '-c', `${quoted}; echo "[exit $?]"; sleep 120`], { GEOLAB_HOME: HOME, TERM: 'xterm-256color' }, { columns: 200, rows: 60 });
  panes.push(pane);
  return pane;
}

async function forkedFrom(forkId: string): Promise<unknown> {
  const shown = await spawnGeolab(['episodes', 'show', forkId, '--json'], { home: HOME }).done;
  expect(shown.code, shown.stderr).toBe(0);
  return (JSON.parse(shown.stdout) as { forked_from: unknown }).forked_from;
}

describe('geolab episodes fork in a real terminal', () => {
  it('plays the model on from turn K in the Live screen', async () => {
    const { id, server: first } = await original();
    const second = await endpoint([{ toolCalls: [toolCall('guess', { lat: 41, lon: 2 })] }]);
    const pane = forkIn([id, '--turn', '2', '--model', 'scripted', '--base-url', second.baseUrl]);
    await pane.waitFor('Showing the reveal', 40_000);
    expect(second.requests[0]!.body.messages).toEqual(first.requests[1]!.body.messages);
    pane.send(['q']);
    const screen = await pane.waitFor(/\[exit \d+\]/, 20_000);
    expect(screen).toContain('[exit 0]');
    const fork = /fork (\S+) \(run fork-\S+\), from (\S+) at turn 2/.exec(screen);
    expect(fork, screen).not.toBeNull();
    expect(fork![2]).toBe(id);
    expect(screen).toContain(`compare: geolab episodes compare ${id} ${fork![1]}`);
    expect(await forkedFrom(fork![1]!)).toEqual({ episode_id: id, turn: 2 });
  });

  it('lets a person play on from turn K with --play', async () => {
    const { id } = await original();
    const pane = forkIn([id, '--turn', '3', '--play']);
    // Turns 1 and 2 were replayed: the person's first move is turn 3.
    await pane.waitFor('Your move: turn 3.', 40_000);
    pane.send(['g']);
    await pane.waitFor('enter guess');
    pane.send(['43.70, -116.1'], true);
    await pane.waitFor('43.70, -116.1');
    pane.send(['Enter']);
    await pane.waitFor('Showing the reveal', 20_000);
    pane.send(['q']);
    const screen = await pane.waitFor(/\[exit \d+\]/, 20_000);
    expect(screen).toContain('[exit 0]');
    const fork = /fork (\S+) \(run fork-\S+\), from \S+ at turn 3/.exec(screen);
    expect(fork, screen).not.toBeNull();
    expect(await forkedFrom(fork![1]!)).toEqual({ episode_id: id, turn: 3 });
  });
});
