/**
 * `train stop`: SIGINT to the trainer's process group (the trainer saves a checkpoint and exits, as
 * on Ctrl-C), SIGTERM when it has not ended after the grace period, SIGKILL as the last resort; then
 * the local environment server. Each signal goes to a whole group, so no worker is left holding the GPU.
 * Every signal is preceded by a fresh check that the pid is still the process launch recorded (its
 * start time and command line, docs/reliability.md): a stranger at a reused pid is left alone.
 */
import type { LaunchRecord } from './launch.js';
import { envServerRunning, signalEnvServer, signalTrainer, trainerRunning } from './watch.js';

export const DEFAULT_GRACE_S = 30;
/** After SIGTERM, before SIGKILL. */
const TERM_WAIT_MS = 10_000;
const POLL_MS = 100;

export interface StopResult {
  /** The signal the trainer ended on; null when it was not running. */
  endedBy: 'SIGINT' | 'SIGTERM' | 'SIGKILL' | null;
  envServerStopped: boolean;
  /** Processes at recorded pids that were not the run's, and were left alone. */
  notes: string[];
}

export async function stopRun(launch: LaunchRecord, options: { graceMs: number; onSignal?: (signal: NodeJS.Signals) => void }): Promise<StopResult> {
  const notes: string[] = [];
  const note = (text: string) => notes.includes(text) || notes.push(text);
  let endedBy: StopResult['endedBy'] = null;
  if (trainerRunning(launch, note)) {
    for (const [signal, waitMs] of [
      ['SIGINT', options.graceMs],
      ['SIGTERM', TERM_WAIT_MS],
      ['SIGKILL', TERM_WAIT_MS],
    ] as const) {
      options.onSignal?.(signal);
      signalTrainer(launch, signal);
      if (await ended(() => trainerRunning(launch, note), waitMs)) {
        endedBy = signal;
        break;
      }
    }
  }
  let envServerStopped = false;
  if (envServerRunning(launch, note)) {
    signalEnvServer(launch, 'SIGTERM');
    envServerStopped = await ended(() => envServerRunning(launch, note), TERM_WAIT_MS);
  }
  return { endedBy, envServerStopped, notes };
}

async function ended(running: () => boolean, waitMs: number): Promise<boolean> {
  const deadline = Date.now() + waitMs;
  while (running()) {
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  return true;
}
