/**
 * The TUI's entry points, imported by the CLI on demand so that commands drawing no TUI never load
 * Ink or React. Each draws until the app exits, restores the terminal, and throws NoTerminalError
 * without a TTY (the CLI then falls back to plain text). The workspace, the environment and the
 * runner are loaded after the first frame.
 */
import type { OpenedEnvironment } from '../agent/agent-run.js';
import { HumanPolicy } from '../agent/policies/human.js';
import { PLAY_RUN_ID } from '../store/eval-runs.js';
import { workspaceDir, workspacePaths } from '../store/workspace.js';
import { runApp, runTracker } from './launch.js';
import type { LiveSource } from './live/types.js';
import type { CompareSide } from './state/navigation.js';
import { splitsService } from './splits/service.js';
import { auditService } from './audit/service.js';
import { decisionService } from './decision/service.js';
import { evalBoardService } from './eval/service.js';
import { watchService } from './watch/service.js';
import { trainService } from './train/service.js';
import { workspaceSession, type WorkspaceSession } from './workspace-session.js';

export { NoTerminalError } from './errors.js';

/** A person gets every step the environment's default budget allows (docs/protocol.md: 24). */
const PERSON_MAX_TURNS = 24;
/** People's episodes are recorded as one run of the workspace, appended to on every play. */

export interface OpenHomeOptions {
  workspace?: string;
}

export interface OpenPlayerOptions {
  workspace?: string;
  /** The episode's id, or the start of it. */
  episodeId: string;
}

export interface OpenPlayOptions {
  workspace?: string;
  /** A remote environment server; default: the embedded one over the workspace's splits. */
  envUrl?: string;
  /** Default: the environment's default split. */
  split?: string;
  /** Task index; default: a random task of the split. */
  task?: number;
  /** The embedded environment's panorama cache (--panos). */
  panos?: string;
  /** Fetch missing panoramas from Mapillary (--fetch). */
  fetch?: boolean;
}

/** Home: the workspace summary and the menu (Episodes, Play, Watch a model, ...). */
export async function openHome(options: OpenHomeOptions = {}): Promise<void> {
  const session = workspaceSession(options.workspace);
  const runs = runTracker();
  const watchSettings = workspacePaths(workspaceDir(options.workspace)).watchSettings;
  try {
    await runApp('geolab', {
      initialRoute: { screen: 'home' },
      services: {
        openWorkspace: session.view,
        runEpisode: runs.run,
        newPlay: () => playSource(session, {}),
        watch: watchService(session, watchSettings),
        decision: decisionService(session, watchSettings, runs.track),
        splits: splitsService(session),
        audit: auditService(session, workspaceDir(options.workspace)),
        evalBoard: evalBoardService(session, watchSettings),
        train: trainService(session),
      },
    });
  } finally {
    await runs.settled();
    await session.close();
  }
}

/** The Player on one recorded episode (with its retry and fork); q leaves the app. */
export async function openPlayer(options: OpenPlayerOptions): Promise<void> {
  const session = workspaceSession(options.workspace);
  const runs = runTracker();
  const watchSettings = workspacePaths(workspaceDir(options.workspace)).watchSettings;
  try {
    await runApp('geolab episodes show', {
      initialRoute: { screen: 'player', episodeId: options.episodeId },
      services: { openWorkspace: session.view, runEpisode: runs.run, decision: decisionService(session, watchSettings, runs.track) },
    });
  } finally {
    await runs.settled();
    await session.close();
  }
}

export interface OpenCompareOptions {
  workspace?: string;
  a: CompareSide;
  b: CompareSide;
}

/** The Compare screen on two episodes of one task; q leaves the app. */
export async function openCompare(options: OpenCompareOptions): Promise<void> {
  const session = workspaceSession(options.workspace);
  try {
    await runApp('geolab episodes compare', {
      initialRoute: { screen: 'compare', a: options.a, b: options.b },
      services: { openWorkspace: session.view, runEpisode: runTracker().run },
    });
  } finally {
    await session.close();
  }
}

/** A person plays one task in the Live screen; the episode is recorded in the workspace. */
export async function openPlay(options: OpenPlayOptions = {}): Promise<void> {
  const session = workspaceSession(options.workspace);
  const source = playSource(session, options);
  const runs = runTracker();
  try {
    await runApp('geolab play', { initialRoute: { screen: 'live', source }, services: { runEpisode: runs.run } });
  } finally {
    await runs.settled();
    await source.dispose?.();
    await session.close();
  }
}

function playSource(session: WorkspaceSession, options: Omit<OpenPlayOptions, 'workspace'>): LiveSource {
  let environment: OpenedEnvironment | undefined;
  let disposed: Promise<void> | undefined;
  return {
    driver: 'person',
    who: 'you',
    async prepare() {
      const [ws, { openEnvironment }, { createRecorder }] = await Promise.all([
        session.open(),
        import('../agent/agent-run.js'),
        import('../agent/recorder.js'),
      ]);
      const choice = { envUrl: options.envUrl, split: options.split ?? null, index: options.task ?? null, panos: options.panos, fetch: options.fetch };
      environment = await openEnvironment(choice, ws);
      return {
        client: environment.client,
        policy: new HumanPolicy(),
        split: environment.split,
        index: environment.index,
        task: environment.task,
        maxTurns: PERSON_MAX_TURNS,
        sink: createRecorder(ws, { runId: PLAY_RUN_ID, runName: 'human play' }),
        config: { mode: 'human' },
      };
    },
    dispose() {
      disposed ??= environment?.close() ?? Promise.resolve();
      return disposed;
    },
  };
}
