/**
 * A real workspace for the Eval board's tests: two models over the same six tasks, two samples each,
 * recorded in two runs (run-a holds alpha's, run-b beta's and one failure), a third model with one
 * sample in run-c, and the TUI's real session and Eval board service on it. The report the board
 * must show is computed here by the report core over the same workspace.
 */
import { join } from 'node:path';
import type { CompletedEpisode, EpisodeRecord } from '../../src/core/episode.js';
import { buildReport, groupArms, resolveBaseline, type Breakdown, type Report } from '../../src/eval/report.js';
import { factsFromWorkspace } from '../../src/eval/workspace.js';
import { saveEpisode } from '../../src/store/episodes.js';
import { ensureEvalRun } from '../../src/store/eval-runs.js';
import { openWorkspace } from '../../src/store/index.js';
import type { TuiServices } from '../../src/tui/services.js';
import { completedRecord, failedRecord } from '../helpers/episodes.js';
import { tempDir } from '../helpers/fixtures.js';

const COUNTRIES = ['Austria', 'Chile', 'Japan'];

/** An episode of `model` on task `task`, sample `sample`, with its own distance, cost and country. */
export function evalEpisode(model: string, task: number, sample: number, km: number, cost = 0.03): CompletedEpisode {
  const record = completedRecord({ id: `${model}-t${task}-s${sample}`, model, index: task, sample, distanceKm: km, country: COUNTRIES[task % 3] });
  record.outcome.action_cost = cost;
  record.outcome.country_hit = km < 300;
  return record;
}

export interface Recorded {
  record: EpisodeRecord;
  runId?: string;
}

/** Alpha's and beta's episodes (beta nearer on most tasks, alpha on two; beta failed once), and gamma's. */
export function threeArms(): Recorded[] {
  const out: Recorded[] = [];
  for (let task = 0; task < 6; task++) {
    for (let sample = 0; sample < 2; sample++) {
      out.push({ record: evalEpisode('alpha', task, sample, 400 + 350 * task + 90 * sample), runId: 'run-a' });
      if (task === 5 && sample === 1) out.push({ record: failedRecord({ id: 'beta-t5-s1', model: 'beta', index: 5, sample: 1 }), runId: 'run-b' });
      else out.push({ record: evalEpisode('beta', task, sample, task < 2 ? 2600 + 10 * sample : 60 + 40 * task + 15 * sample), runId: 'run-b' });
    }
    out.push({ record: evalEpisode('gamma', task, 0, 1000 + 100 * task), runId: 'run-c' });
  }
  return out;
}

export interface EvalWorkspace {
  home: string;
  services: Partial<TuiServices>;
  /** Records more episodes while the board is open, as a sweep does. */
  record(episodes: readonly Recorded[]): Promise<void>;
  /** A run whose config points at a sweep's output folder, as `geolab eval run` registers it. */
  addSweepRun(id: string, dir: string): Promise<void>;
  /** The report core's own report over the workspace's episodes (of `runs`, or all). */
  report(options?: { runs?: string[]; baseline?: string; by?: Breakdown }): Promise<Report>;
  close(): Promise<void>;
}

async function withWorkspace<T>(home: string, work: (ws: Awaited<ReturnType<typeof openWorkspace>>) => T): Promise<T> {
  const ws = await openWorkspace(home, { seedDemo: false });
  try {
    return work(ws);
  } finally {
    ws.close();
  }
}

export async function evalWorkspace(episodes: readonly Recorded[]): Promise<EvalWorkspace> {
  const home = join(tempDir(), 'home');
  const record = (list: readonly Recorded[]) =>
    withWorkspace(home, (ws) => {
      for (const { record: r, runId } of list) {
        if (runId) ensureEvalRun(ws.db, { id: runId, root: join(home, 'runs', runId) });
        saveEpisode(ws.db, r, { runId });
      }
    });
  await record(episodes);
  const [{ evalBoardService }, { workspaceSession }] = await Promise.all([import('../../src/tui/eval/service.js'), import('../../src/tui/workspace-session.js')]);
  const session = workspaceSession(home);
  return {
    home,
    services: { openWorkspace: session.view, evalBoard: evalBoardService(session) },
    record,
    addSweepRun: (id, dir) => withWorkspace(home, (ws) => ensureEvalRun(ws.db, { id, root: join(dir, id), config: { sweep: dir, passes: 2 } })),
    report: ({ runs = [], baseline, by } = {}) =>
      withWorkspace(home, (ws) => {
        const arms = groupArms(factsFromWorkspace(ws, runs));
        const base = baseline === undefined ? undefined : resolveBaseline([...arms.keys()], baseline);
        if (typeof base === 'object') throw new Error(base.error);
        return buildReport(arms, base, { by });
      }),
    close: session.close,
  };
}
