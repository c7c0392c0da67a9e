/** A workspace: its directory, its database, and the demo task set seeded on first use. */
import { DEMO_EPISODES_FILE, DEMO_TASKS_FILE } from '../paths.js';
import { connect, migrateAndSeed, type Db } from './db.js';
import { runKinds, type RunKinds } from './eval-runs.js';
import { MIGRATIONS } from './migrations.js';
import { savedSplits } from './saved-splits.js';
import { importTaskFile, listTaskSets } from './task-sets.js';
import { workspaceDir, workspaceError, workspacePaths } from './workspace.js';

export const DEMO_SET = 'demo';

export interface Workspace {
  dir: string;
  paths: ReturnType<typeof workspacePaths>;
  db: Db;
  /** True when this call created the schema (and seeded the demo, unless asked not to). */
  created: boolean;
  close(): void;
}

/**
 * Opens (creating when needed) the workspace; a new one gets the demo tasks and episodes, once, in the
 * transaction that creates its schema: of several processes opening a new workspace at once, one
 * seeds it and the others wait for it, then see it seeded.
 */
export async function openWorkspace(explicitDir?: string, options: { seedDemo?: boolean } = {}): Promise<Workspace> {
  const dir = workspaceDir(explicitDir);
  const paths = workspacePaths(dir);
  let db: Db | undefined;
  try {
    const open = (db = connect(paths.database));
    const ws: Workspace = { dir, paths, db: open, created: false, close: () => open.close() };
    ws.created = await migrateAndSeed(open, MIGRATIONS, async () => {
      if (!(options.seedDemo ?? true)) return;
      await importTaskFile(open, DEMO_TASKS_FILE, DEMO_SET);
      // Recorded by datasets/demo/record-episodes.ts, so the Player has something to show at once.
      const { importEpisodesFile } = await import('./import-episodes.js');
      await importEpisodesFile(ws, DEMO_EPISODES_FILE, { runId: DEMO_SET });
    });
    return ws;
  } catch (err) {
    db?.close();
    throw workspaceError(err, dir) ?? err;
  }
}

export interface WorkspaceSummary {
  dir: string;
  schema_version: number;
  task_sets: { name: string; tasks: number; frames: number }[];
  tasks: number;
  /** Splits saved in the workspace: names with both task sets NAME-eval and NAME-train (saved-splits.ts). */
  splits: number;
  episodes: number;
  /** Runs by kind; training runs and audit findings join the summary when those screens exist. */
  runs: RunKinds;
}

export function summarize(ws: Workspace): WorkspaceSummary {
  const count = (sql: string) => (ws.db.prepare(sql).get() as { n: number }).n;
  const sets = listTaskSets(ws.db);
  return {
    dir: ws.dir,
    schema_version: ws.db.pragma('user_version', { simple: true }) as number,
    task_sets: sets.map((s) => ({ name: s.name, tasks: s.n_tasks, frames: s.n_frames })),
    tasks: sets.reduce((sum, s) => sum + s.n_tasks, 0),
    splits: savedSplits(ws.db).length,
    episodes: count('SELECT COUNT(*) AS n FROM episodes'),
    runs: runKinds(ws.db, ws.paths.runs),
  };
}
