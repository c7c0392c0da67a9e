/** `geolab train watch RUN` on a terminal: the Train screen on that run; q leaves. */
import { runApp, runTracker } from '../launch.js';
import { workspaceSession } from '../workspace-session.js';
import { trainService } from './service.js';

export async function watchTrainRun(run: string, workspace: string | undefined): Promise<void> {
  const session = workspaceSession(workspace);
  try {
    // The run must exist before the screen opens: a wrong name is a usage error, not an empty screen.
    const [ws, { resolveRun }] = await Promise.all([session.open(), import('../../train/runs.js')]);
    resolveRun(ws.db, run, ws.paths.train);
    await runApp('geolab train watch', {
      initialRoute: { screen: 'train', run },
      services: { openWorkspace: session.view, runEpisode: runTracker().run, train: trainService(session) },
    });
  } finally {
    await session.close();
  }
}
