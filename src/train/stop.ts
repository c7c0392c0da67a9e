/**
 * `train stop` (docs/training.md, "Stop means checkpoint"): SIGINT to the trainer's process group. The
 * trainer finishes the step it is in, saves checkpoint-N, logs "geolab: checkpoint saved at step N:
 * PATH" and exits 0. Stop waits for that line in the run's log (up to the grace period), then for the
 * process to end; SIGTERM when it has not ended, SIGKILL as the last resort; then the local environment
 * server. Each signal goes to a whole group, so no worker is left holding the GPU.
 * Every signal is preceded by a fresh check that the pid is still the process launch recorded (its
 * start time and command line, docs/reliability.md): a stranger at a reused pid is left alone.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import type { LaunchRecord } from './launch.js';
import { envServerRunning, signalEnvServer, signalTrainer, trainerRunning } from './watch.js';

/**
 * Seconds between SIGINT and SIGTERM. A step of the recipe on one A100 takes minutes (generation of a
 * whole batch of multi-turn rollouts, then the update), and the checkpoint is written when it ends.
 */
export const DEFAULT_GRACE_S = 600;
/** After the checkpoint line, or after SIGTERM: how long the process may take to exit. */
const EXIT_WAIT_MS = 10_000;
const POLL_MS = 100;

/** The trainer's line after the checkpoint of a stop (geolab_trainer.py CHECKPOINT_SAVED). */
const CHECKPOINT_SAVED = /^geolab: checkpoint saved at step (\d+): (.+)$/m;

export interface StopResult {
  /** The signal the trainer ended on; null when it was not running. */
  endedBy: 'SIGINT' | 'SIGTERM' | 'SIGKILL' | null;
  /** The checkpoint the trainer said it saved after the SIGINT; null when it said none. */
  checkpoint: { step: number; path: string } | null;
  envServerStopped: boolean;
  /** Processes at recorded pids that were not the run's, and were left alone. */
  notes: string[];
}


export async function stopRun(launch: LaunchRecord, options: { graceMs: number; onSignal?: (signal: NodeJS.Signals) => void; onCheckpoint?: (step: number, path: string) => void }): Promise<StopResult> {
  const notes: string[] = [];
  const note = (text: string) => notes.includes(text) || notes.push(text);
  let endedBy: StopResult['endedBy'] = null;
  let checkpoint: StopResult['checkpoint'] = null;
  const running = () => trainerRunning(launch, note);
  if (running()) {
    // Only what the trainer writes after the signal counts: an earlier stop's line is in the log too.
    const log = new LogTail(launch.log_path);
    options.onSignal?.('SIGINT');
    signalTrainer(launch, 'SIGINT');
    const saved = () => {
      const m = CHECKPOINT_SAVED.exec(log.read());
      if (m && !checkpoint) {
        checkpoint = { step: Number(m[1]), path: (m[2] as string).trim() };
        options.onCheckpoint?.(checkpoint.step, checkpoint.path);
      }
      return checkpoint !== null;
    };
    if (await until(() => !running() || saved(), options.graceMs)) {
      if (!running() || (await until(() => !running(), EXIT_WAIT_MS))) endedBy = 'SIGINT';
    }
    saved(); // a line written just before the process ended
    for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
      if (endedBy) break;
      options.onSignal?.(signal);
      signalTrainer(launch, signal);
      if (await until(() => !running(), EXIT_WAIT_MS)) endedBy = signal;
    }
  }
  let envServerStopped = false;
  if (envServerRunning(launch, note)) {
    signalEnvServer(launch, 'SIGTERM');
    envServerStopped = await until(() => !envServerRunning(launch, note), EXIT_WAIT_MS);
  }
  return { endedBy, checkpoint, envServerStopped, notes };
}

/** True once `done()` holds, false when `waitMs` passed first. */
async function until(done: () => boolean, waitMs: number): Promise<boolean> {
  const deadline = Date.now() + waitMs;
  while (!done()) {
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  return true;
}

/** The text a log gained since this was made (the log may not exist yet). */
class LogTail {
  private offset: number;
  private text = '';

  constructor(private readonly path: string) {
    this.offset = sizeOf(path);
  }

  read(): string {
    const size = sizeOf(this.path);
    if (size < this.offset) this.offset = 0; // replaced: read it again
    if (size > this.offset) {
      const fd = openSync(this.path, 'r');
      try {
        const buffer = Buffer.alloc(size - this.offset);
        const n = readSync(fd, buffer, 0, buffer.length, this.offset);
        this.offset += n;
        // tqdm redraws with \r: a line may follow one.
        this.text += buffer.subarray(0, n).toString('utf8').replace(/\r/g, '\n');
      } finally {
        closeSync(fd);
      }
    }
    return this.text;
  }
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}
