/**
 * A launched run as it is now: is its trainer still running, and what does its log say. The status
 * is derived, never trusted from the last writer: a live trainer is running; a gone one is stopped
 * (when `train stop` said so), done (it logged the done phase) or crashed (it ended without one, and
 * its last log lines say why). A pid is only the run's while its start time and command line still
 * match what launch recorded (src/processes.ts, docs/reliability.md): pids are reused. A process at a
 * recorded pid that is someone else's is "not running" and is never signalled; one the record cannot
 * tell (no start time, from an older geolab) is refused with exit 2, naming launch.json and the field.
 */
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { InputError } from '../core/errors.js';
import { isRecord } from '../core/values.js';
import type { TrainRunStatus } from '../store/train-runs.js';
import { launchFileOf, type LaunchRecord } from './launch.js';
import { RunLogParser, type RunSnapshot } from './log.js';
import { checkProcess, signalRecorded, type RecordedProcess } from '../processes.js';

/** One of a run's processes as launch.json records it, and the field its start time is in. */
interface RunProcess {
  role: 'trainer' | 'environment server';
  recorded: RecordedProcess;
  field: string;
}

function trainerOf(launch: LaunchRecord): RunProcess {
  return { role: 'trainer', recorded: { pid: launch.pid, start_time: launch.start_time, command: launch.command }, field: 'start_time' };
}

function envServerOf(launch: LaunchRecord): RunProcess | undefined {
  const s = launch.env_server;
  return s ? { role: 'environment server', recorded: { pid: s.pid, start_time: s.start_time, command: s.command }, field: 'env_server.start_time' } : undefined;
}

/**
 * Whether the run's process still runs: true only for the recorded process itself. A foreign process
 * at its pid is not running (`onForeign` hears why); one that cannot be verified throws (exit 2).
 */
function running(launch: LaunchRecord, proc: RunProcess | undefined, onForeign?: (note: string) => void): boolean {
  if (!proc) return false;
  const check = checkProcess(proc.recorded);
  if (check.state === 'unverifiable') {
    throw new InputError(`${proc.role} ${check.reason}: it cannot be verified, so it is not signalled or counted as the run's (stop it yourself if it is)`, {
      file: launchFileOf(launch),
      field: proc.field,
    });
  }
  if (check.state === 'foreign') onForeign?.(`${proc.role} not running: ${check.reason}; left alone`);
  return check.state === 'ours';
}

export function trainerRunning(launch: LaunchRecord, onForeign?: (note: string) => void): boolean {
  return running(launch, trainerOf(launch), onForeign);
}

export function envServerRunning(launch: LaunchRecord, onForeign?: (note: string) => void): boolean {
  return running(launch, envServerOf(launch), onForeign);
}

/** Signals the trainer's group, verified again right before; false when it is not the run's process any more. */
export function signalTrainer(launch: LaunchRecord, signal: NodeJS.Signals): boolean {
  return signalRecorded(trainerOf(launch).recorded, signal);
}

export function signalEnvServer(launch: LaunchRecord, signal: NodeJS.Signals): boolean {
  const proc = envServerOf(launch);
  return proc !== undefined && signalRecorded(proc.recorded, signal);
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
  /** Why a process at a recorded pid was not counted as the run's (it is someone else's now). */
  notes?: string[];
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
    const notes: string[] = [];
    const running = trainerRunning(this.launch, (note) => notes.push(note));
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
    return {
      name: this.launch.name,
      status,
      snapshot,
      pid: this.launch.pid,
      env_url: this.launch.env_server?.url ?? null,
      log_path: this.launch.log_path,
      ...(notes.length ? { notes } : {}),
    };
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
  if (envServerRunning(launch)) signalEnvServer(launch, 'SIGTERM');
}
