/**
 * What the TUI needs from the rest of geolab, as narrow ports: the workspace (summary, episodes,
 * images) and the agent runner. The entry points fill them with the real store and runner, loaded
 * after the first frame; tests fill them with fixtures.
 */
import type { LastAudit } from '../audit/last-run.js';
import type { AuditSummary } from '../audit/report.js';
import type { Finding } from '../audit/types.js';
import type { CompletedEpisode, FailedEpisode } from '../core/episode.js';
import type { SplitOptions, SplitResult } from '../splits/build.js';
import type { SplitPool, WrittenSplits } from '../splits/write.js';
import type { EpisodeSort } from '../store/episode-sort.js';
import type { SavedSplit } from '../store/saved-splits.js';
import type { TraceRollout } from '../train/rollouts.js';
import type { RunLine } from '../train/run-line.js';
import type { RunState } from '../train/watch.js';
import type { RunKinds } from '../store/eval-runs.js';
import type { SweepPhase, SweepStatus } from '../eval/sweep-status.js';
import type { SweepFlags } from '../eval/run/options.js';
import type { SweepOutcome } from '../eval/run/start.js';
import type { BoardEpisode } from './eval/board.js';
import type { LiveSource, RunEpisode } from './live/types.js';
import type { DecisionKind, DecisionPreparation, DecisionRequest, DecisionField, SampleSummary, SampleView } from './state/decision.js';
import type { EpisodeFilter } from './state/episode-filter.js';
import type { SweepField, SweepFormPrefill } from './state/sweep-form.js';
import type { FormError, WatchRequest, WatchSettings } from './state/watch-form.js';

/** One row of the Episodes list. */
export interface EpisodeRow {
  episodeId: string;
  recordedAt: string;
  modelName: string | null;
  split: string;
  index: number;
  sample: number;
  country: string | null;
  verdict: string | null;
  distanceKm: number | null;
  reward: number | null;
  turnsUsed: number | null;
  error: string | null;
}

/** The Home screen's workspace summary. */
export interface HomeSummary {
  dir: string;
  taskSets: { name: string; tasks: number }[];
  /** The splits saved in the workspace (`splits build`, the Splits screen), by name. */
  splits: SavedSplit[];
  episodes: number;
  lastEpisode: EpisodeRow | null;
  /** Runs by what made them. */
  runs: RunKinds;
  /** The last audit of the workspace's episodes (null: none ran yet). */
  audit?: LastAudit | null;
  /** Training runs, newest first, each as derived when the summary was read. */
  trainRuns?: TrainRunLine[];
}

export type TrainRunLine = RunLine;

/** What the Episodes list shows: the episodes matching `filter`, in `sort` order. */
export interface EpisodeListQuery {
  filter: EpisodeFilter;
  sort: EpisodeSort;
  /** Which way `sort` runs (each sort's useful end first by default: store/episode-sort). */
  descending: boolean;
}

export interface WorkspaceView {
  summary(): HomeSummary;
  /** All episodes, or those matching the filter. */
  countEpisodes(filter?: EpisodeFilter): number;
  /** Only the rows asked for, so a list of 100k episodes stays instant. */
  listEpisodes(query: EpisodeListQuery, offset: number, limit: number): EpisodeRow[];
  loadEpisode(episodeId: string): CompletedEpisode | FailedEpisode | undefined;
  /** An image a recorded turn showed, by sha256. */
  loadImage(sha256: string): Buffer | undefined;
}

export interface TuiServices {
  /** Opens the workspace after the first frame; absent when a Live screen runs on its own. */
  openWorkspace?: () => Promise<WorkspaceView>;
  runEpisode: RunEpisode;
  /** "Play" on Home: a fresh episode for a person on the workspace's environment. */
  newPlay?: () => LiveSource;
  /** "Watch a model" on Home: a form, then a model's episode on the workspace's environment. */
  watch?: WatchService;
  /** "Splits" on Home: a pool, its per-country table, and the write. */
  splits?: SplitsService;
  /** "Audit" on Home: the workspace's episodes through the audit core, against its baseline. */
  audit?: AuditService;
  /** "Eval board" on Home: the workspace's episodes as a report, and the sweeps recording them. */
  evalBoard?: EvalBoardService;
  /** "Train" on Home and `geolab train watch`: the workspace's training runs as they go. */
  train?: TrainService;
  /** The Player's `R` (retry a turn) and `F` (fork the episode at a turn into Live). */
  decision?: DecisionService;
}

/**
 * Debugging one decision of a workspace episode (src/agent/retry.ts, src/agent/fork.ts). Every
 * rejection's message is one line a user can act on (missing images, the endpoint down).
 */
export interface DecisionService {
  /**
   * The form's first values (the record's model and endpoint, else the last "Watch a model"
   * settings) and, for a retry, the request rebuilt from the record with its hash check.
   */
  prepare(kind: DecisionKind, episodeId: string, turn: number): Promise<DecisionPreparation>;
  /** Whether the variable holds a key; its value never leaves the service. */
  isSet(name: string): boolean;
  /** Sends the turn's request `request.samples` times; `onSample` gets each as it comes back. */
  retry(
    episodeId: string,
    turn: number,
    request: DecisionRequest,
    onSample: (index: number, sample: SampleView) => void,
    signal: AbortSignal,
  ): Promise<{ samples: SampleView[]; summary: SampleSummary }>;
  /**
   * Checks the endpoint (not for a person) and gives the Live screen's source: a new episode that
   * replays the turns before `turn`, then the model or the person plays on; recorded in the workspace.
   */
  fork(
    episodeId: string,
    turn: number,
    who: DecisionRequest | 'person',
  ): Promise<{ ok: true; source: LiveSource } | { ok: false; field: DecisionField | null; message: string }>;
}

export interface TrainService {
  runs(): Promise<TrainRunLine[]>;
  /** The run as it is now (each call reads what its log gained) and its newest rollouts, newest first. */
  view(name: string): Promise<{ state: RunState; rollouts: TraceRollout[] }>;
  /** Stops the run as `geolab train stop` does; says how it ended. */
  stop(name: string): Promise<string>;
}

export interface SplitsService {
  /** The workspace's task sets, to choose the pool from. */
  taskSets(): Promise<{ name: string; tasks: number }[]>;
  /** A task set by name, or a task file (a relative path starts where geolab was started). */
  load(source: { taskSet: string } | { file: string }): Promise<{ label: string; pool: SplitPool }>;
  /**
   * Writes and imports as `geolab splits build` does; throws (nothing written) on a failed self-check,
   * or on a split already there unless `replace` (docs/splits.md, Replacing a split).
   */
  write(pool: SplitPool, result: SplitResult, options: SplitOptions, target: { outDir: string; name: string; replace?: boolean }): Promise<WrittenSplits>;
  /** What a write to the target would replace, in words (split files; task sets with their tasks and episodes); empty: nothing. */
  taken?(target: { outDir: string; name: string }): Promise<string[]>;
}

/** The audit of the workspace's episodes, as `geolab audit --workspace` runs it (src/audit/run.ts). */
export interface AuditService {
  /** Where accepted findings are written. */
  baselineFile: string;
  /** Runs the audit and records its counts for Home; `onProgress` gets the prompts audited so far. */
  run(onProgress: (prompts: number) => void): Promise<{ summary: AuditSummary; findings: Finding[] }>;
  /** Accepts findings with one reason in the baseline (one atomic write) and updates Home's open count. */
  accept(findings: readonly Finding[], reason: string): Promise<void>;
  /** Writes the last run's findings (as accepted since) to a new file in the workspace, atomically; returns its path. */
  export(format: 'json' | 'sarif'): Promise<string>;
}

export interface WatchService {
  /** The form's first values (GEOLAB_* variables, else the workspace's last watch, else defaults). */
  prefill(): Promise<WatchSettings>;
  /** Whether the variable holds a key; its value never leaves the service. */
  isSet(name: string): boolean;
  /** The splits the embedded environment serves: the demo's and every task set of the workspace. */
  splits?(): Promise<string[]>;
  /**
   * Checks that the endpoint serves the model and the task exists, saves the settings for next
   * time, and gives the Live screen's source; or says what is wrong, for the form to show.
   */
  start(request: WatchRequest): Promise<{ ok: true; source: LiveSource; notice?: string } | ({ ok: false } & FormError)>;
}

/** A run of the workspace, for the Eval board's run filter. */
export interface EvalRunRow {
  /** NO_RUN (src/tui/eval/board.ts) for the episodes recorded outside any run. */
  id: string;
  name: string;
  episodes: number;
}

/** A sweep found through its runs' config (`sweep`: its output folder), with what its sweep.json says. */
export interface SweepRow {
  dir: string;
  runIds: string[];
  /** null: no sweep.json yet (or it could not be read: `error`). */
  status: SweepStatus | null;
  phase: SweepPhase | null;
  error: string | null;
}

export interface EvalBoardSnapshot {
  /** The same array as the last read's while no episode was added. */
  episodes: readonly BoardEpisode[];
  runs: EvalRunRow[];
  sweeps: SweepRow[];
}

export interface EvalBoardService {
  /**
   * The workspace's episodes, runs and sweeps. Episodes are read once and kept: a read adds those
   * recorded since the last (all of them on the first read or with `reload`), a slice at a time
   * with keys handled in between; `onProgress` gets how many of the new ones are read.
   */
  read(onProgress: (read: number, of: number) => void, reload?: boolean): Promise<EvalBoardSnapshot>;
  /** Writes a table (CSV text) to a new file in the workspace's exports folder, atomically; returns its path. */
  exportCsv(csv: string): Promise<string>;
  /**
   * Runs the sweep in `dir` again in this process with the options it keeps there (same folder, same
   * run id): it resumes, and its sweep.json shows it running. Settles when it ends: its summary and
   * exit status; rejects when it cannot start (no options kept, a model gone, already running here).
   */
  resumeSweep(dir: string): Promise<SweepOutcome>;
  /** What the new-sweep form opens with; absent: the board starts no sweep. */
  prefillSweep?(): Promise<NewSweepPrefill>;
  /**
   * Starts a new sweep in this process through the same service as `geolab eval run`, with the
   * settings as its flags. Settles once the sweep is planned and playing (`done` settles when it
   * ends), or with why it could not start (nothing started): a field's fault or nobody's.
   */
  newSweep?(flags: SweepFlags): Promise<NewSweepStart>;
}

export interface NewSweepPrefill {
  prefill: SweepFormPrefill;
  /** Where a sweep goes without an output folder: <workspace>/sweeps (then its run id). */
  sweepsDir: string;
  /** The splits the embedded environment serves; a hint beside the field. */
  splits: string[];
}

export type NewSweepStart = { ok: true; runId: string; out: string; done: Promise<SweepOutcome> } | { ok: false; field: SweepField | null; message: string };
