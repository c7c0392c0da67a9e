/**
 * Process identity (docs/reliability.md, "A process geolab did not start is never signalled"): the one
 * place that decides whether a pid read from a file is still the process that was started under it.
 * A pid alone proves nothing, since pids are reused. A process is the recorded one only while its
 * start time (`/proc/PID/stat`, field 22, clock ticks since boot) and its command line
 * (`/proc/PID/cmdline`) both still match what was recorded when it was started. Nothing here ever
 * signals pid 0, 1 or a negative pid taken from a record, so a bad record cannot turn into a
 * `kill(-1)` or a process-group signal to a stranger.
 */
import { readFileSync } from 'node:fs';

/** Whether a process with this id exists (EPERM: it does, under another user). */
export function processAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A pid that may be signalled at all: a whole number above 1 (never 0, init, or a negative group id). */
export function isSignallablePid(pid: unknown): pid is number {
  return typeof pid === 'number' && Number.isSafeInteger(pid) && pid > 1;
}

/** What `/proc/PID/stat` says about one process. */
export interface ProcStat {
  /** Field 3: R, S, D, Z (zombie), X (dead), ... */
  state: string;
  /** Field 5: the process group. */
  pgrp: number;
  /** Field 22: when it started, in clock ticks since boot. */
  startTime: number;
}

/**
 * Parses a `/proc/PID/stat` line. Field 2 (`comm`) is in parentheses and may itself hold spaces and
 * parentheses, so the fields are counted from after the last ")": field 3 is the first there.
 */
export function parseProcStat(text: string): ProcStat | undefined {
  const close = text.lastIndexOf(')');
  if (close < 0) return undefined;
  const fields = text.slice(close + 1).trim().split(/\s+/);
  // fields[0] is field 3, so field N is fields[N - 3].
  const state = fields[0];
  const pgrp = Number(fields[5 - 3]);
  const startTime = Number(fields[22 - 3]);
  if (!state || !Number.isSafeInteger(pgrp) || !Number.isSafeInteger(startTime) || startTime < 0) return undefined;
  return { state, pgrp, startTime };
}

/** The process's stat, or undefined when it does not exist (or there is no /proc). */
export function readProcStat(pid: number): ProcStat | undefined {
  if (!isSignallablePid(pid)) return undefined;
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return undefined;
  }
}

/** The process's argv from `/proc/PID/cmdline` (NUL-separated); empty for a zombie or a kernel thread. */
export function readCmdline(pid: number): string[] | undefined {
  if (!isSignallablePid(pid)) return undefined;
  try {
    const text = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    const args = text.split('\0');
    if (args.at(-1) === '') args.pop();
    return args;
  } catch {
    return undefined;
  }
}

/** Whether this system has /proc to tell processes apart (Linux); elsewhere nothing can be verified. */
export function canVerifyProcesses(): boolean {
  return readProcStat(process.pid) !== undefined;
}

/** What a launcher records about a process it started, to know it again later. */
export interface RecordedProcess {
  pid: number;
  /** Clock ticks since boot (`/proc/PID/stat` field 22); absent in records from before it was kept. */
  start_time?: number;
  /** The argv it was started with. */
  command: readonly string[];
}

export type ProcessCheck =
  /** The recorded process, still running. */
  | { state: 'ours' }
  /** No process at that pid (or only its zombie): nothing of ours runs there. */
  | { state: 'gone' }
  /** A process runs at that pid, but not the recorded one. */
  | { state: 'foreign'; reason: string }
  /** A process runs at that pid and the record holds too little to tell whose it is. */
  | { state: 'unverifiable'; reason: string };

/** The start time of a process just started (read at once, while it certainly exists). */
export function startTimeOf(pid: number): number | undefined {
  return readProcStat(pid)?.startTime;
}

/**
 * The command line matches the recorded argv when it is that argv, or when it ends with the recorded
 * arguments after the program: a `#!` script (`accelerate`) runs as `python /path/accelerate ARGS`, and
 * a shim (pyenv's `python3`) execs the real interpreter with the same arguments.
 */
export function commandMatches(cmdline: readonly string[], recorded: readonly string[]): boolean {
  if (recorded.length === 0 || recorded[0] === '') return false;
  if (cmdline.length === recorded.length && cmdline.every((arg, i) => arg === recorded[i])) return true;
  const args = recorded.slice(1);
  if (args.length === 0 || cmdline.length <= args.length) return false;
  const tail = cmdline.slice(cmdline.length - args.length);
  return tail.every((arg, i) => arg === args[i]);
}

/**
 * Whether the process at `recorded.pid` is the one that was recorded (see the module comment).
 * `readArgv` reads its command line (a test gives the reads an exec under way would show).
 */
export function checkProcess(recorded: RecordedProcess, readArgv: (pid: number) => string[] | undefined = readCmdline): ProcessCheck {
  const { pid } = recorded;
  if (!isSignallablePid(pid)) return { state: 'foreign', reason: `pid ${String(pid)} is never one of ours` };
  if (!processAlive(pid)) return { state: 'gone' };
  const stat = readProcStat(pid);
  if (!stat) {
    if (!canVerifyProcesses()) return { state: 'unverifiable', reason: `pid ${pid} runs, and this system has no /proc to tell whose process it is` };
    // Ended between the two reads.
    return { state: 'gone' };
  }
  // A finished process whose parent has not reaped it yet: it has ended.
  if (stat.state === 'Z' || stat.state === 'X') return { state: 'gone' };
  if (recorded.start_time === undefined) {
    return { state: 'unverifiable', reason: `pid ${pid} runs, and the record has no start time to tell whether it is the process launched then` };
  }
  if (stat.startTime !== recorded.start_time) {
    return { state: 'foreign', reason: `pid ${pid} is another process now (started at tick ${stat.startTime}, the recorded one at tick ${recorded.start_time})` };
  }
  // A trainer started through a shebang or a pyenv shim execs several times as it starts, and an exec
  // under way shows for a moment no arguments, or a torn mix of the old program's and the new one's
  // (`bash pyenv exec python3 s.py c.json mp/s.py c.json`). The pid and its start time are already the
  // recorded process's, which the command only confirms: it is another program only when it says so
  // read after read.
  let cmdline: string[] | undefined;
  for (let read = 0; read < COMMAND_READS; read++) {
    if (read > 0) Atomics.wait(PAUSE, 0, 0, COMMAND_REREAD_MS);
    cmdline = readArgv(pid);
    if (cmdline === undefined) return { state: 'gone' };
    if (cmdline.length === 0 || commandMatches(cmdline, recorded.command)) return { state: 'ours' };
  }
  return { state: 'foreign', reason: `pid ${pid} runs \`${clip(cmdline!.join(' '))}\`, not the recorded \`${clip(recorded.command.join(' '))}\`` };
}

/** How often a command line that does not match is read before it counts, and the pause between reads. */
const COMMAND_READS = 3;
const COMMAND_REREAD_MS = 5;
const PAUSE = new Int32Array(new SharedArrayBuffer(4));

/**
 * Signals a recorded process's group, checked again right before the signal: only when the process at
 * the pid is still the recorded one, and only ever a pid above 1. A leader that is no longer its
 * group's leader gets the signal alone. False when nothing was signalled (it is gone, or not ours).
 */
export function signalRecorded(recorded: RecordedProcess, signal: NodeJS.Signals): boolean {
  if (checkProcess(recorded).state !== 'ours') return false;
  const leads = readProcStat(recorded.pid)?.pgrp === recorded.pid;
  return leads ? signalGroup(recorded.pid, signal) : signalPid(recorded.pid, signal);
}

/**
 * Sends a signal to the process group led by `pid`, a process this process has just started (its own
 * child, known by the pid spawn returned, never by a pid read from a file); false when the group is gone.
 */
export function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  if (!isSignallablePid(pid)) throw new Error(`refusing to signal the process group of pid ${String(pid)}`);
  return deliver(-pid, signal);
}

function signalPid(pid: number, signal: NodeJS.Signals): boolean {
  if (!isSignallablePid(pid)) throw new Error(`refusing to signal pid ${String(pid)}`);
  return deliver(pid, signal);
}

function deliver(target: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(target, signal);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw err;
  }
}

function clip(text: string): string {
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}
