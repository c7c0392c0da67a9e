/**
 * The Train screen's port filled with the workspace's runs: each look at a run reads only what its
 * log gained since the last (one follower per run for the session) and records the derived status.
 * Loaded with the screen or by `geolab train watch`, never by Home's first frame.
 */
import { join } from 'node:path';
import type { ResolvedRun } from '../../train/runs.js';
import type { RunFollower } from '../../train/watch.js';
import type { TrainService } from '../services.js';
import type { WorkspaceSession } from '../workspace-session.js';

/** Rollouts the screen lists. */
const RECENT_ROLLOUTS = 12;

export function trainService(session: WorkspaceSession): TrainService {
  const followed = new Map<string, { run: ResolvedRun; follower: RunFollower }>();
  const modules = () => Promise.all([session.open(), import('../../train/runs.js'), import('../../train/rollouts.js'), import('../../train/launch.js')]);
  return {
    async runs() {
      const [ws, { runLines }] = await modules();
      return runLines(ws.db);
    },
    async view(name) {
      const [ws, { followRun, recordState, resolveRun }, { recentRollouts }, { TRACES_FILE }] = await modules();
      let entry = followed.get(name);
      // A relaunch (resume) starts a new process and a new log position: follow it afresh.
      if (entry && entry.run.row && resolveRun(ws.db, name).launch.pid !== entry.run.launch.pid) entry = undefined;
      if (!entry) {
        const run = resolveRun(ws.db, name);
        entry = { run, follower: followRun(ws.db, run) };
        followed.set(name, entry);
      }
      const state = entry.follower.poll();
      recordState(ws.db, entry.run, state);
      return { state, rollouts: recentRollouts(join(entry.run.outputDir, TRACES_FILE), RECENT_ROLLOUTS) };
    },
    async stop(name) {
      const [ws, { resolveRun, stopTrainRun }, { DEFAULT_GRACE_S }] = await Promise.all([session.open(), import('../../train/runs.js'), import('../../train/stop.js')]);
      const { endedBy, checkpoint, state, notes } = await stopTrainRun(ws.db, resolveRun(ws.db, name), { graceMs: DEFAULT_GRACE_S * 1000 });
      if (endedBy && checkpoint) return `${name} stopped (${endedBy}) after saving checkpoint-${checkpoint.step}`;
      return endedBy ? `${name} stopped (${endedBy}) at step ${state.snapshot.step ?? '-'}, no checkpoint saved on stop` : `${name} was not running (${state.status})${notes.length ? `: ${notes.join('; ')}` : ''}`;
    },
  };
}
