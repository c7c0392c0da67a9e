/**
 * `train stop`: SIGINT to the trainer's process group (the trainer saves a checkpoint and exits, as
 * on Ctrl-C), SIGTERM when it has not ended after the grace period, SIGKILL as the last resort; then
 * the local environment server. Each signal goes to a whole group, so no worker is left holding the GPU.
 */
import type { LaunchRecord } from './launch.js';
import { signalGroup } from './launch.js';
import { envServerRunning, trainerRunning } from './watch.js';

export const DEFAULT_GRACE_S = 30;
/** After SIGTERM, before SIGKILL. */
const TERM_WAIT_MS = 10_000;
const POLL_MS = 100;

export interface StopResult {
  /** The signal the trainer ended on; null when it was not running. */
  endedBy: 'SIGINT' | 'SIGTERM' | 'SIGKILL' | null;
  envServerStopped: boolean;
}

export async function stopRun(launch: LaunchRecord, options: { graceMs: number; onSignal?: (signal: NodeJS.Signals) => void }): Promise<StopResult> {
  let endedBy: StopResult['endedBy'] = null;
  if (trainerRunning(launch)) {
    for (const [signal, waitMs] of [
      ['SIGINT', options.graceMs],
      ['SIGTERM', TERM_WAIT_MS],
      ['SIGKILL', TERM_WAIT_MS],
    ] as const) {
      options.onSignal?.(signal);
      signalGroup(launch.pid, signal);
      if (await ended(() => trainerRunning(launch), waitMs)) {
        endedBy = signal;
        break;
      }
    }
  }
  let envServerStopped = false;
  if (envServerRunning(launch)) {
    signalGroup(launch.env_server!.pid, 'SIGTERM');
    envServerStopped = await ended(() => envServerRunning(launch), TERM_WAIT_MS);
  }
  return { endedBy, envServerStopped };
}

async function ended(running: () => boolean, waitMs: number): Promise<boolean> {
  const deadline = Date.now() + waitMs;
  while (running()) {
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  return true;
}
