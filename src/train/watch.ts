/**
 * A launched run as it is now: is its trainer still running, and what does its log say. The status
 * is derived, never trusted from the last writer: a live trainer is running; a gone one is stopped
 * (when `train stop` said so), done (it logged the done phase) or crashed (it ended without one, and
 * its last log lines say why). A pid is only the run's while its command line still names the run's
 * resolved config: pids are reused, and a finished trainer's zombie has no command line.
 */
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { isRecord } from '../core/values.js';
import type { TrainRunStatus } from '../store/train-runs.js';
import { type LaunchRecord, signalGroup } from './launch.js';
import { RunLogParser, type RunSnapshot } from './log.js';
import { processAlive } from '../processes.js';

/** Whether `pid` runs and is the process launch started (its argv holds `marker`). */
export function ownsProcess(pid: number, marker: string): boolean {
  if (!processAlive(pid)) return false;
  const cmdline = `/proc/${pid}/cmdline`;
  // Without /proc (not Linux) the pid's existence is all there is to go on.
  if (!existsSync('/proc/self/cmdline')) return true;
  try {
    return readFileSync(cmdline, 'utf8').split('\0').some((arg) => arg.includes(marker));
  } catch {
    return false;
  }
}

export function trainerRunning(launch: LaunchRecord): boolean {
  return ownsProcess(launch.pid, launch.resolved_config_path);
}

export function envServerRunning(launch: LaunchRecord): boolean {
  return launch.env_server !== null && ownsProcess(launch.env_server.pid, 'serve');
}

export function deriveStatus(running: boolean, recorded: TrainRunStatus | undefined, snapshot: RunSnapshot): TrainRunStatus {
  if (running) return 'running';
  if (recorded === 'stopped') return 'stopped';
  return snapshot.phase === 'done' ? 'done' : 'crashed';
}

/** The run's length as its resolved config says, so the parser knows the training bar. */
export function maxStepsOf(launch: LaunchRecord): number | undefined {
  try {
    const config = JSON.parse(readFileSync(launch.resolved_config_path, 'utf8')) as unknown;
    const steps = isRecord(config) && isRecord(config.grpo) ? config.grpo.max_steps : undefined;
    return typeof steps === 'number' ? steps : undefined;
  } catch {
    return undefined;
  }
}

export interface RunState {
  name: string;
  status: TrainRunStatus;
  snapshot: RunSnapshot;
  pid: number;
  env_url: string | null;
  log_path: string;
}

/** Reads a run's log as it grows: each poll parses only what was appended since the last. */
export class RunFollower {
  private readonly parser: RunLogParser;
  private offset = 0;
  private lastOutputMs: number | undefined;

  constructor(
    readonly launch: LaunchRecord,
    private readonly recorded: () => TrainRunStatus | undefined = () => undefined,
  ) {
    this.parser = new RunLogParser({ maxSteps: maxStepsOf(launch) });
  }

  poll(nowMs = Date.now()): RunState {
    // Liveness first: a trainer that ends between the two reads has all its lines read below.
    const running = trainerRunning(this.launch);
    this.readNew();
    const plain = this.parser.snapshot();
    const status = deriveStatus(running, this.recorded(), plain);
    const snapshot = this.parser.snapshot({
      nowMs,
      lastOutputMs: this.lastOutputMs,
      ...(status === 'crashed' ? { exited: { code: null } } : status === 'running' ? {} : { exited: { code: 0 } }),
    });
    // A stopped run is no crash: the phase it reached stays as it was.
    if (status === 'stopped') {
      delete snapshot.crashed;
      snapshot.phase = plain.phase;
    }
    return { name: this.launch.name, status, snapshot, pid: this.launch.pid, env_url: this.launch.env_server?.url ?? null, log_path: this.launch.log_path };
  }

  private readNew(): void {
    if (!existsSync(this.launch.log_path)) return;
    const { size, mtimeMs } = statSync(this.launch.log_path);
    this.lastOutputMs = mtimeMs;
    if (size <= this.offset) return;
    const fd = openSync(this.launch.log_path, 'r');
    try {
      const chunk = Buffer.alloc(Math.min(size - this.offset, 1 << 20));
      while (this.offset < size) {
        const read = readSync(fd, chunk, 0, Math.min(chunk.length, size - this.offset), this.offset);
        if (read === 0) break;
        this.offset += read;
        this.parser.feed(chunk.subarray(0, read));
      }
    } finally {
      closeSync(fd);
    }
  }
}

/** A run that ended leaves no environment server behind. */
export function stopOrphanedEnvServer(launch: LaunchRecord): void {
  if (envServerRunning(launch)) signalGroup(launch.env_server!.pid, 'SIGTERM');
}
