/**
 * The Eval board's port filled from the workspace. Episodes are read into the report's facts once
 * and kept; each read after that takes only the rows added since (a sweep records episodes while the
 * board is open), by rowid (store/episodes.ts episodesAfter). The store and the report core load
 * on the first read, never with Home.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { InputError } from '../../core/errors.js';
import { isRecord } from '../../core/values.js';
import type { Db } from '../../store/db.js';
import type { SweepFlags } from '../../eval/run/options.js';
import type { SweepOutcome } from '../../eval/run/start.js';
import type { EvalBoardService, EvalRunRow, NewSweepStart, SweepRow } from '../services.js';
import { prefillWatch, readWatchSettings } from '../watch/settings.js';
import type { WorkspaceSession } from '../workspace-session.js';
import { NO_RUN, type BoardEpisode } from './board.js';

/** Episodes read at a time (a few ms) before the keys waiting get their turn. */
const PAGE = 200;
/** How often a long read lets the screen draw how far it got. */
const PROGRESS_MS = 100;

/**
 * `watchSettings`: the Watch form's saved settings, where the new-sweep form takes its endpoint and
 * split from (with `env`'s GEOLAB_MODEL, GEOLAB_BASE_URL, GEOLAB_API_KEY_ENV first); absent, the
 * board starts no new sweep.
 */
export function evalBoardService(session: WorkspaceSession, watchSettings?: string, env: NodeJS.ProcessEnv = process.env): EvalBoardService {
  let episodes: readonly BoardEpisode[] = [];
  /** `episodes` less the records a sweep's folder superseded: what the board reports on. */
  let reported: readonly BoardEpisode[] = [];
  let lastRowid = 0;
  // One read at a time: a read the screen gave up on (it left, or asked for a reload) still finishes
  // before the next starts, so the two never both add what they read.
  let reading: Promise<unknown> = Promise.resolve();
  /** The folders of the sweeps this process is running. */
  const resuming = new Set<string>();
  const read: EvalBoardService['read'] = async (onProgress, reload = false) => {
    const [ws, { episodesAfter }, { episodeFacts }, sweeps, { latestPerSweepEpisode, sweepRunIds }] = await Promise.all([
      session.open(),
      import('../../store/episodes.js'),
      import('../../eval/episodes.js'),
      import('../../eval/sweep-status.js'),
      import('../../eval/workspace.js'),
    ]);
    const db = ws.db;
    // Fewer rows up to the last one read than were read: episodes were deleted, so read all again.
    const kept = db.prepare('SELECT COUNT(*) FROM episodes WHERE rowid <= ?').pluck().get(lastRowid) as number;
    const restart = reload || kept !== episodes.length;
    if (restart) {
      episodes = [];
      lastRowid = 0;
    }
    const of = db.prepare('SELECT COUNT(*) FROM episodes WHERE rowid > ?').pluck().get(lastRowid) as number;
    const fresh: BoardEpisode[] = [];
    let shown = performance.now();
    for (let page = episodesAfter(db, lastRowid, PAGE); page.length > 0; page = episodesAfter(db, lastRowid, PAGE)) {
      for (const { rowid, runId, record } of page) {
        fresh.push({ facts: episodeFacts(record), runId: runId ?? NO_RUN });
        lastRowid = rowid;
      }
      // Between pages the keys waiting get their turn, and now and then the count a frame.
      if (performance.now() - shown > PROGRESS_MS) {
        onProgress(fresh.length, Math.max(of, fresh.length));
        shown = performance.now();
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (fresh.length > 0) episodes = [...episodes, ...fresh];
    // As `eval report --workspace` reads them (src/eval/workspace.ts); the same list while nothing is new.
    if (fresh.length > 0 || restart) reported = latestPerSweepEpisode(episodes, (e) => ({ facts: e.facts, runId: e.runId === NO_RUN ? null : e.runId }), sweepRunIds(db));
    const runs = runRows(db);
    return { episodes: reported, runs: runs.rows, sweeps: sweepRows(runs.sweeps, sweeps) };
  };
  return {
    read(onProgress, reload) {
      const next = reading.then(() => read(onProgress, reload));
      reading = next.catch(() => undefined);
      return next;
    },
    resumeSweep: (dir) => resumeSweep(session, dir, resuming),
    ...(watchSettings === undefined
      ? {}
      : {
          async prefillSweep() {
            const [ws, { workspaceSplits }] = await Promise.all([session.open(), import('../../env/task-splits.js')]);
            const { model, baseUrl, apiKeyEnv, split } = prefillWatch(env, readWatchSettings(watchSettings));
            return { prefill: { model, baseUrl, apiKeyEnv, split }, sweepsDir: join(ws.paths.dir, 'sweeps'), splits: [...(await workspaceSplits(ws)).sizes.keys()] };
          },
          newSweep: (flags) => newSweep(session, flags, resuming),
        }),
    async exportCsv(csv) {
      const [ws, { writeFileAtomic }] = await Promise.all([session.open(), import('../../files.js')]);
      // eval-20261202-183001-123.csv: the time, short enough for the status line to show it.
      const file = join(ws.paths.exports, `eval-${new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').replace('.', '-').replace('Z', '')}.csv`);
      writeFileAtomic(file, csv);
      return file;
    },
  };
}

/**
 * `u` on the board: the sweep run again through the same service as `geolab eval run`, with the
 * options its folder keeps (docs/sweeps.md, 'Resuming from the Eval board'). It goes on when the
 * board is left; quitting geolab stops it as a kill would (it then reads as stopped, and resumes again).
 */
async function resumeSweep(session: WorkspaceSession, dir: string, resuming: Set<string>): Promise<SweepOutcome> {
  if (resuming.has(dir)) throw new Error(`the sweep in ${dir} is already running here`);
  resuming.add(dir);
  try {
    const [ws, { readSweepOptions, startSweep, OPTIONS_FILE }] = await Promise.all([session.open(), import('../../eval/run/start.js')]);
    const options = readSweepOptions(dir);
    if (!options) throw new Error(`${dir} keeps no ${OPTIONS_FILE} (a sharded sweep, or one of an older geolab): run its command again`);
    // Its own connection to the workspace: the sweep outlives no screen, but may outlive the board's reads.
    return await startSweep({ ...options, out: dir, workspace: ws.paths.dir });
  } finally {
    resuming.delete(dir);
  }
}

/**
 * `n` on the board: a new sweep through the same reading of its settings (src/eval/run/options.ts)
 * and the same service as `geolab eval run`. Settles once it plays, or with why it did not start; the
 * sweep itself goes on as a resumed one does (docs/sweeps.md, 'Starting a sweep from the Eval board').
 */
async function newSweep(session: WorkspaceSession, flags: SweepFlags, running: Set<string>): Promise<NewSweepStart> {
  const [ws, { sweepOptionsOf, UnknownModelNameError }, { startSweep }, { embeddedTaskProblem }] = await Promise.all([
    session.open(),
    import('../../eval/run/options.js'),
    import('../../eval/run/start.js'),
    import('../../agent/agent-run.js'),
  ]);
  // No shell reads the form: `~/` is expanded here, as the shell does for the command's flags.
  const home = (path: string | undefined) => path?.replace(/^~(?=$|\/)/, homedir());
  flags = { ...flags, models: home(flags.models), out: home(flags.out) };
  let options: ReturnType<typeof sweepOptionsOf>;
  try {
    options = sweepOptionsOf({ ...flags, workspace: ws.paths.dir });
  } catch (err) {
    const message = (err as Error).message;
    // The models file unreadable or malformed, or a name it does not hold: those fields' fault.
    const field = err instanceof InputError && flags.models !== undefined ? 'modelsFile' : err instanceof UnknownModelNameError ? 'names' : null;
    return { ok: false, field, message };
  }
  // The form's sweeps play in the embedded environment: a split it does not serve is the field's fault.
  const problem = await embeddedTaskProblem(ws, options.split, null);
  if (problem) return { ok: false, field: 'split', message: problem.message };
  return new Promise<NewSweepStart>((resolve) => {
    let out: string | null = null;
    const done: Promise<SweepOutcome> = startSweep(options, {
      onStarted: (sweep) => {
        out = sweep.out;
        running.add(sweep.out);
        resolve({ ok: true, runId: sweep.runId, out: sweep.out, done });
      },
    });
    const ended = () => {
      if (out !== null) running.delete(out);
    };
    done.then(ended, (err: Error) => {
      ended();
      // After the start the caller hears of it through `done`; before, nothing started.
      if (out === null) resolve({ ok: false, field: null, message: err.message });
    });
  });
}

function runRows(db: Db): { rows: EvalRunRow[]; sweeps: Map<string, string[]> } {
  const runs = db
    .prepare(
      `SELECT r.id, r.name, r.config_json, (SELECT COUNT(*) FROM episodes e WHERE e.run_id = r.id) AS episodes
       FROM eval_runs r ORDER BY r.created_at, r.id`,
    )
    .all() as { id: string; name: string; config_json: string; episodes: number }[];
  const rows: EvalRunRow[] = runs.map((r) => ({ id: r.id, name: r.name, episodes: r.episodes }));
  const outside = db.prepare('SELECT COUNT(*) FROM episodes WHERE run_id IS NULL').pluck().get() as number;
  if (outside > 0) rows.push({ id: NO_RUN, name: '(recorded outside any run)', episodes: outside });
  const sweeps = new Map<string, string[]>();
  for (const run of runs) {
    const dir = sweepDir(run.config_json);
    if (dir === null) continue;
    const ids = sweeps.get(dir);
    if (ids) ids.push(run.id);
    else sweeps.set(dir, [run.id]);
  }
  return { rows, sweeps };
}

/** The `sweep` folder `geolab eval run` puts in its runs' config; runs of other kinds have none. */
function sweepDir(configJson: string): string | null {
  try {
    const config: unknown = JSON.parse(configJson);
    return isRecord(config) && typeof config.sweep === 'string' && config.sweep !== '' ? config.sweep : null;
  } catch {
    return null;
  }
}

function sweepRows(sweeps: Map<string, string[]>, reader: typeof import('../../eval/sweep-status.js')): SweepRow[] {
  return [...sweeps].map(([dir, runIds]) => {
    try {
      const status = reader.readSweepStatus(dir);
      return { dir, runIds, status, phase: status && reader.sweepPhase(status), error: null };
    } catch (err) {
      return { dir, runIds, status: null, phase: null, error: (err as Error).message };
    }
  });
}
