/**
 * A recorded pid is the run's only while its start time and command line match launch.json
 * (src/processes.ts, docs/reliability.md). Real foreign processes sit at the recorded pids (a `sleep`,
 * one whose command line says "observer" and "serve"), and `geolab train stop | watch | resume` run
 * through the real binary against hand-written launch.json files: each stranger survives, each bad
 * record is refused with exit 2 naming the file and field. One record that does match a real stand-in
 * trainer (and a stand-in environment server) is stopped.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkProcess, commandMatches, parseProcStat, readCmdline, startTimeOf } from '../../src/processes.js';
import { geolab } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';

const TRAINER = fileURLToPath(new URL('../fixtures/fake-trainer.py', import.meta.url));
const home = tempDir();
const children: ChildProcess[] = [];

/** A real process in a group of its own (so a stray group signal would reach it too). */
async function start(argv: string[], env: Record<string, string> = {}): Promise<number> {
  const child = spawn(argv[0]!, argv.slice(1), { detached: true, stdio: 'ignore', env: { ...process.env, ...env } });
  children.push(child);
  await once(child, 'spawn');
  return child.pid!;
}

/** Whether the process still exists and has not ended (a zombie of ours counts as ended). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = parseProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  return stat !== undefined && stat.state !== 'Z';
}

function ticks(pid: number): number {
  const t = startTimeOf(pid);
  if (t === undefined) throw new Error(`no start time for ${pid}`);
  return t;
}

/** A run folder with a launch.json made of `fields` over a plausible record. */
function runDir(fields: Record<string, unknown>): string {
  const dir = tempDir('geolab-pid-');
  const record = {
    name: 'foreign',
    config_path: join(dir, 'config.json'),
    resolved_config_path: join(dir, 'config.resolved.json'),
    command: ['python3', TRAINER, join(dir, 'config.resolved.json')],
    cwd: dir,
    environment: {},
    pid: 999_999,
    start_time: 1,
    env_server: null,
    log_path: join(dir, 'train.log'),
    started_at: new Date().toISOString(),
    resumed: false,
    ...fields,
  };
  writeFileSync(join(dir, 'launch.json'), JSON.stringify(record, null, 2));
  return dir;
}

function run(args: string[]) {
  return geolab(args, { home, env: { FAKE_STEP_S: '0.05' } });
}

let sleeper: number;
let observer: number;
let pyObserver: number;

beforeAll(async () => {
  sleeper = await start(['sleep', '300']);
  observer = await start(['bash', '-c', 'exec -a observer-serve sleep 300']);
  pyObserver = await start(['python3', '-c', 'import time; time.sleep(300)', 'observer', 'serve', 'config.resolved.json']);
  // bash has exec'd into sleep under its new name once the command line says so.
  for (let i = 0; i < 100 && readCmdline(observer)?.[0] !== 'observer-serve'; i++) await new Promise((r) => setTimeout(r, 20));
});

afterAll(() => {
  for (const child of children) {
    try {
      process.kill(child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

describe('reading a process from /proc', () => {
  it('counts stat fields from after the last ")", whatever the command name holds', () => {
    const rest = Array.from({ length: 50 }, (_, i) => String(i + 3));
    rest[0] = 'S';
    rest[5 - 3] = '4242';
    rest[22 - 3] = '987654';
    for (const comm of ['sleep', 'a b', 'x) S 1 2 (y', ') )', '((']) {
      expect(parseProcStat(`4242 (${comm}) ${rest.join(' ')}\n`)).toEqual({ state: 'S', pgrp: 4242, startTime: 987654 });
    }
    expect(parseProcStat('garbage')).toBeUndefined();
    expect(parseProcStat('1 (x) S 1')).toBeUndefined();
  });

  it("reads a real process's start time and argv; a mismatch in either is someone else's", () => {
    expect(readCmdline(sleeper)).toEqual(['sleep', '300']);
    expect(readCmdline(observer)).toEqual(['observer-serve', '300']);
    expect(checkProcess({ pid: sleeper, start_time: ticks(sleeper), command: ['sleep', '300'] })).toEqual({ state: 'ours' });
    expect(checkProcess({ pid: sleeper, start_time: ticks(sleeper) + 1, command: ['sleep', '300'] })).toMatchObject({ state: 'foreign' });
    expect(checkProcess({ pid: sleeper, start_time: ticks(sleeper), command: ['sleep', '31'] })).toMatchObject({ state: 'foreign' });
    expect(checkProcess({ pid: sleeper, command: ['sleep', '300'] })).toMatchObject({ state: 'unverifiable' });
    for (const pid of [1, 0, -5, -1, 1.5]) expect(checkProcess({ pid, start_time: 0, command: ['init'] })).toMatchObject({ state: 'foreign' });
    expect(checkProcess({ pid: 999_999_999, start_time: 1, command: ['x'] })).toEqual({ state: 'gone' });
  });

  it('a process that execs again and again as it starts (a shim) is ours throughout, however its argv reads mid-exec', async () => {
    // A #! script that execs itself 40 times, as pyenv's shims exec a few times before Python runs;
    // /proc/PID/cmdline reads empty for a moment inside each exec.
    const dir = tempDir('geolab-shim-');
    const shim = join(dir, 'shim');
    writeFileSync(shim, '#!/bin/sh\nif [ "${HOPS:-0}" -lt 40 ]; then HOPS=$((${HOPS:-0} + 1)) exec "$0" "$@"; fi\nsleep 1; true\n', { mode: 0o755 });
    const pid = await start([shim, 'config.json']);
    const start_time = startTimeOf(pid)!;
    const seen = new Map<string, number>();
    const until = Date.now() + 800;
    while (Date.now() < until) {
      const { state } = checkProcess({ pid, start_time, command: [shim, 'config.json'] });
      seen.set(state, (seen.get(state) ?? 0) + 1);
    }
    expect([...seen.keys()]).toEqual(['ours']);
  });

  it('a command line that does not match is read again: a torn read mid-exec is ours, a stranger that stays so is not', () => {
    // A trainer started through a #! wrapper that execs a pyenv shim (the smoke test's venv python)
    // reads, about 2 starts in 100, as a mix of the old and new argv for a moment:
    // "/bin/sh /v/bin/python s.py c.json v/s.py c.json". It was taken for another process, and the
    // smoke run failed "before step 1" with an empty log.
    const command = ['/v/bin/python', 's.py', 'c.json'];
    const recorded = { pid: sleeper, start_time: ticks(sleeper), command };
    const reads = (...argvs: (string[] | undefined)[]) => {
      let i = 0;
      return () => argvs[Math.min(i++, argvs.length - 1)];
    };
    const torn = ['/bin/sh', '/v/bin/python', 's.py', 'c.json', 'v/s.py', 'c.json'];
    expect(checkProcess(recorded, reads(torn, ['python3', 's.py', 'c.json']))).toEqual({ state: 'ours' });
    expect(checkProcess(recorded, reads(torn, torn, []))).toEqual({ state: 'ours' });
    expect(checkProcess(recorded, reads(torn, undefined))).toEqual({ state: 'gone' });
    expect(checkProcess(recorded, reads(['sleep', '300']))).toMatchObject({ state: 'foreign', reason: expect.stringContaining('runs `sleep 300`') as string });
  });

  it('matches the argv started, or its arguments after a re-exec (a #! script, a shim), never a substring', () => {
    expect(commandMatches(['python3', 's.py', 'c.json'], ['python3', 's.py', 'c.json'])).toBe(true);
    // `accelerate launch ...` runs as `python /venv/bin/accelerate launch ...`.
    expect(commandMatches(['/v/bin/python', '/v/bin/accelerate', 'launch', 'c.json'], ['/v/bin/accelerate', 'launch', 'c.json'])).toBe(true);
    expect(commandMatches(['observer-serve', '300'], ['node', 'geolab.js', 'env', 'serve'])).toBe(false);
    expect(commandMatches(['python3', 's.py', 'c.json', '--resume'], ['python3', 's.py', 'c.json'])).toBe(false);
    expect(commandMatches(['python3', 's.py', 'c.json'], [''])).toBe(false);
    expect(commandMatches(['python3', 's.py', 'c.json'], [])).toBe(false);
  });
});

describe('train stop, watch and resume leave foreign processes alone', () => {
  it('a sleep at the trainer pid with another start time: "not running", nothing signalled', () => {
    const dir = runDir({ pid: sleeper, start_time: ticks(sleeper) + 7, command: ['sleep', '300'] });
    const r = run(['train', 'stop', dir, '--grace', '1']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('was not running');
    expect(r.stderr).toContain(`trainer not running: pid ${sleeper} is another process now`);
    expect(r.stderr).not.toContain('SIGINT');
    expect(alive(sleeper)).toBe(true);
  });

  it('an "observer-serve" process with the right start time but another command line: the trainer and server records both miss it', () => {
    const serverCommand = [process.execPath, '/opt/geolab/bin/geolab.js', 'env', 'serve', '--json'];
    const dir = runDir({
      pid: observer,
      start_time: ticks(observer),
      env_server: { pid: pyObserver, start_time: ticks(pyObserver), url: 'http://127.0.0.1:1', command: serverCommand, log_path: '/tmp/env.log' },
    });
    const r = run(['train', 'stop', dir, '--grace', '1', '--json']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { ended_by: string | null; notes: string[] };
    expect(out.ended_by).toBeNull();
    expect(out.notes.join('\n')).toContain(`trainer not running: pid ${observer} runs \`observer-serve 300\``);
    expect(out.notes.join('\n')).toContain(`environment server not running: pid ${pyObserver} runs`);
    expect(alive(observer)).toBe(true);
    expect(alive(pyObserver)).toBe(true);

    // watch says so too (the run has no done line: it ended without one), and signals nothing either.
    const w = run(['train', 'watch', dir, '--once']);
    expect(w.stdout).toContain(`trainer not running: pid ${observer}`);
    expect(w.stdout).toMatch(/· crashed ·/);
    // resume does not take it for the run still running; it goes on to the config (absent here).
    const res = run(['train', 'resume', dir, '--no-preflight']);
    expect(res.stderr).toContain(`trainer not running: pid ${observer}`);
    expect(res.stderr).not.toContain('still running');
    expect(alive(observer)).toBe(true);
    expect(alive(pyObserver)).toBe(true);
  });

  it.each([
    ['an empty config path', { config_path: '' }, 'config_path'],
    ['an empty resolved config path', { resolved_config_path: '' }, 'resolved_config_path'],
    ['pid 1', { pid: 1 }, 'pid'],
    ['pid 0', { pid: 0 }, 'pid'],
    ['pid -5', { pid: -5 }, 'pid'],
    ['a pid as text', { pid: '123' }, 'pid'],
    ['a negative start time', { start_time: -1 }, 'start_time'],
    ['an empty command', { command: [] }, 'command'],
    ['a server pid of -5', { env_server: { pid: -5, start_time: 1, url: 'http://127.0.0.1:1', command: ['x'], log_path: '/tmp/x' } }, 'env_server.pid'],
  ])('a launch.json with %s is refused (exit 2, naming the file and field); the processes live on', (_, fields, field) => {
    const dir = runDir({ pid: sleeper, start_time: ticks(sleeper), command: ['sleep', '300'], ...fields });
    for (const args of [['train', 'stop', dir, '--grace', '1'], ['train', 'watch', dir, '--once'], ['train', 'resume', dir, '--no-preflight']]) {
      const r = run(args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toContain(`${join(dir, 'launch.json')}, field ${field}:`);
      expect(r.stderr).not.toContain('unexpected error');
    }
    expect(alive(sleeper)).toBe(true);
    expect(alive(observer)).toBe(true);
  });

  it('a record without start times (an older geolab): a live pid cannot be verified, so it is refused, never signalled', () => {
    const dir = runDir({ pid: sleeper, start_time: undefined, command: ['sleep', '300'] });
    for (const args of [['train', 'stop', dir, '--grace', '1'], ['train', 'watch', dir, '--once'], ['train', 'resume', dir, '--no-preflight']]) {
      const r = run(args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toContain(`${join(dir, 'launch.json')}, field start_time: trainer pid ${sleeper} runs, and the record has no start time`);
      expect(r.stderr).toContain('cannot be verified');
    }
    const server = runDir({ pid: 999_999, start_time: undefined, env_server: { pid: observer, url: 'http://127.0.0.1:1', command: ['observer-serve', '300'], log_path: '/tmp/x' } });
    const r = run(['train', 'stop', server, '--grace', '1']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('field env_server.start_time');
    expect(alive(sleeper)).toBe(true);
    expect(alive(observer)).toBe(true);
  });
});

describe('a record that matches', () => {
  it("stops the real trainer at its pid (SIGINT, a checkpoint) and the environment server, as launch started them", async () => {
    const dir = tempDir('geolab-pid-own-');
    const out = join(dir, 'out');
    mkdirSync(out);
    const resolved = join(out, 'config.resolved.json');
    writeFileSync(resolved, JSON.stringify({ name: 'own', model: 'm', output_dir: out, env: { split: 'train' }, grpo: { max_steps: 50, save_steps: 100 } }));
    const trainerArgv = ['python3', TRAINER, resolved];
    // The stand-in waits after step 1 until SIGINT, then saves checkpoint-1 and exits.
    const trainer = await start(trainerArgv, { FAKE_HOLD_AT: '1', FAKE_STEP_S: '0.05' });
    const serverArgv = [process.execPath, '-e', 'setInterval(() => {}, 1000)', 'env', 'serve'];
    const server = await start(serverArgv);
    writeFileSync(
      join(out, 'launch.json'),
      JSON.stringify({
        name: 'own',
        config_path: join(dir, 'config.json'),
        resolved_config_path: resolved,
        command: trainerArgv,
        cwd: dir,
        environment: {},
        pid: trainer,
        start_time: ticks(trainer),
        env_server: { pid: server, start_time: ticks(server), url: 'http://127.0.0.1:1', command: serverArgv, log_path: join(out, 'env-server.log') },
        log_path: join(out, 'train.log'),
        started_at: new Date().toISOString(),
        resumed: false,
      }),
    );
    // Wait until the stand-in holds at step 1 (it has written its step line).
    for (let i = 0; i < 200 && !readFileSafe(join(out, 'progress.jsonl')).includes('"step": 1'); i++) await new Promise((r) => setTimeout(r, 50));
    const r = run(['train', 'stop', out, '--grace', '20', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ ended_by: 'SIGINT', notes: [] });
    expect(alive(trainer)).toBe(false);
    expect(alive(server)).toBe(false);
    expect(readFileSafe(join(out, 'progress.jsonl'))).toContain('"checkpoint"');
    expect(alive(sleeper)).toBe(true);
    expect(alive(observer)).toBe(true);
  }, 60_000);
});

function readFileSafe(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
