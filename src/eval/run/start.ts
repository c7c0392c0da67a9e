/**
 * A sweep from start to end, as a service: `geolab eval run`, the Eval board's resume and its
 * new-sweep form all call `startSweep` (the first and the form turn what they were given into its
 * options with options.ts). It checks the models' replicas, opens the workspace and the environment, takes the
 * output folder's lock, plans the work less what the folder already holds (resuming), plays it
 * (sweep.ts), keeps sweep.json and run.json, and returns the counts and the exit status they imply
 * (docs/sweeps.md, 'Exit codes'). It prints nothing: what a caller shows comes through the hooks.
 * The options it ran with are kept in the folder (sweep-options.json) so the board can resume it.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { apiKeyFrom } from '../../agent/agent-settings.js';
import { endpointOfSpec } from '../../agent/endpoint-choice.js';
import type { ModelSpec } from '../../agent/models-file.js';
import type { Protocol } from '../../agent/policies/model.js';
import type { ToolSet } from '../../agent/protocols/tools.js';
import type { EpisodeRecord } from '../../core/episode.js';
import { EXIT, InputError, ServiceError } from '../../core/errors.js';
import { isRecord } from '../../core/values.js';
import { readTextIfPresent, writeFileAtomic, type SkippedEntry } from '../../files.js';
import type { Workspace } from '../../store/index.js';
import type { SweepModelProgress, SweepState } from '../sweep-status.js';
import { DEFAULT_BACKOFF_MS, EndpointPool } from './endpoints.js';
import { chooseIndices, planWork, remainingWork, shardIndices, type Shard, type WorkItem } from './plan.js';
import { SweepProgress } from './progress.js';
import type { SweepArm } from './sweep.js';
import { lockSweep, previousRunId, readRecorded, runDirFor, type SweepLock } from './tree.js';

/** Everything a sweep is run with, checked (the command turns its flags into this). */
export interface SweepOptions {
  models: ModelSpec[];
  split: string;
  /** The first N tasks of the split; or `indices`; neither: every task. */
  limit?: number;
  indices?: number[];
  passes: number;
  /** Episodes in flight per replica (a model's own `concurrency` wins). */
  concurrency: number;
  /** The limit on episodes in flight follows the machine (no --concurrency given: docs/sweeps.md). */
  adaptive: boolean;
  maxTurns: number;
  imageSizePx: number;
  retries: number;
  retryDelayS?: number;
  timeoutS?: number;
  maxReplyMb?: number;
  protocol: Protocol;
  tools: ToolSet;
  promptFile?: string;
  /** Environment servers; none: the embedded environment. */
  env: string[];
  panos?: string;
  /** The output folder; default: the workspace's sweeps/<run-id>. */
  out?: string;
  runId?: string;
  /** The run id when neither `runId` nor the folder's last sweep names one (a scheduler's). */
  fallbackRunId?: string;
  shard?: Shard;
  /** The workspace folder; default: the usual one (docs/architecture.md, 'Workspace'). */
  workspace?: string;
}

export interface SweepHooks {
  /** Aborting it interrupts the sweep: no episode starts, those in flight end as aborted. */
  signal?: AbortSignal;
  /** Once the folder's lock is held: from here an interrupt ends the sweep cleanly. */
  onLocked?(): void;
  /**
   * Once the sweep is planned and its run recorded, just before the first episode: from here it plays
   * (what goes wrong before this rejects `startSweep` instead).
   */
  onStarted?(sweep: { runId: string; out: string }): void;
  /** A line for the user (a replica out, the plan, a tidied file), without the `geolab: ` prefix. */
  onNote?(text: string): void;
  /** A file or folder the walk of the output folder passed over. */
  onSkipped?(entry: SkippedEntry): void;
  /** After each record: its line (`  [3/8] alpha task 2 sample 1: 412 km`). */
  onEpisode?(line: string, item: WorkItem, record: EpisodeRecord): void;
  /** About once a second and after each record: the live line a terminal redraws. */
  onProgress?(line: string): void;
}

export interface SweepOutcome {
  runId: string;
  out: string;
  status: SweepState;
  models: SweepModelProgress[];
  /** One line per model: recorded, failed, aborted, retries, provider-error turns. */
  summary: string[];
  /** Episodes in flight and whether the sweep was CPU-bound. */
  machine: string;
  /** Services with no replica left, each named once. */
  gone: string[];
  /** 0 all recorded, 1 some failed, 3 a service gone, 130 interrupted (docs/sweeps.md). */
  exitCode: number;
}

/** The options a sweep keeps in its folder, read by the board's resume. */
export const OPTIONS_FILE = 'sweep-options.json';

const noop = () => {};

export async function startSweep(options: SweepOptions, hooks: SweepHooks = {}): Promise<SweepOutcome> {
  const signal = hooks.signal ?? new AbortController().signal;
  const [{ loadPromptTemplate }, { promptVersionOf }] = await Promise.all([import('../../agent/protocols/template.js'), import('../../agent/policies/model.js')]);
  const prompt = options.promptFile === undefined ? undefined : loadPromptTemplate(options.promptFile);
  const promptVersion = promptVersionOf(options.protocol, prompt);
  const arms = await prepareArms(options, promptVersion, hooks.onNote ?? noop);
  const [{ openWorkspace }, { newRunId }, { assertRunId }] = await Promise.all([import('../../store/index.js'), import('../../agent/recorder.js'), import('../../store/eval-runs.js')]);
  const ws = await openWorkspace(options.workspace);
  try {
    const givenOut = options.out === undefined ? undefined : resolve(options.out);
    const runId = options.runId ?? (givenOut ? previousRunId(givenOut) : null) ?? options.fallbackRunId ?? newRunId();
    assertRunId(runId);
    const out = givenOut ?? join(ws.paths.dir, 'sweeps', runId);
    mkdirSync(out, { recursive: true });
    const lock = lockSweep(out, options.shard);
    try {
      hooks.onLocked?.();
      return await sweepLocked({ options, hooks, signal, ws, arms, prompt, promptVersion, runId, out, lock });
    } finally {
      lock.release();
    }
  } finally {
    ws.close();
  }
}

interface Locked {
  options: SweepOptions;
  hooks: SweepHooks;
  signal: AbortSignal;
  ws: Workspace;
  arms: SweepArm[];
  prompt: import('../../agent/protocols/template.js').PromptTemplate | undefined;
  promptVersion: string;
  runId: string;
  out: string;
  lock: SweepLock;
}

/** The sweep once its folder is its own: the environment, the plan less what is recorded, the play. */
async function sweepLocked(s: Locked): Promise<SweepOutcome> {
  const { options, hooks, out, runId, arms, ws } = s;
  const note = hooks.onNote ?? noop;
  if (s.lock.note) note(s.lock.note);
  const { remoteEnvironment, embeddedEnvironment } = await import('./environments.js');
  const environment = options.env.length
    ? await remoteEnvironment(options.env, options.split, backoffMsOf(options.retryDelayS))
    : await embeddedEnvironment(ws, options.split, options.panos, options.imageSizePx);
  try {
    for (const line of environment.unreachable) note(`environment server taken out: ${line}`);
    const chosen = chooseIndices(environment.size, { indices: options.indices, limit: options.limit }, options.split);
    const indices = shardIndices(chosen, options.shard);
    const planned = planWork({ arms: arms.map((a) => ({ model: a.spec.name, promptVersion: s.promptVersion })), split: options.split, indices, passes: options.passes });
    const recorded = readRecorded(out, options.shard);
    recorded.skipped.forEach((entry) => hooks.onSkipped?.(entry));
    for (const text of recorded.notes) note(text);
    if (recorded.superseded.length > 0) (await import('../../store/episodes.js')).detachFromRun(ws.db, recorded.superseded);
    const work = remainingWork(planned, recorded.done);
    const config = sweepConfig(options, out, indices, s.promptVersion);
    (await import('../../store/eval-runs.js')).ensureEvalRun(ws.db, { id: runId, root: out, config });
    if (!options.shard) writeOptions(out, { ...options, indices: chosen, limit: undefined, runId, out });
    note(`sweep ${runId}: ${arms.length} model${arms.length === 1 ? '' : 's'} x ${indices.length} tasks x ${options.passes} passes -> ${out}` +
      (planned.length > work.length ? ` (resuming: ${planned.length - work.length} of ${planned.length} already recorded)` : ''));
    hooks.onStarted?.({ runId, out });
    return await play(s, { environment, planned, work, config });
  } finally {
    await environment.close();
  }
}

/** What the runs of the sweep record as their config (eval_runs, run.json). */
function sweepConfig(options: SweepOptions, out: string, indices: number[], promptVersion: string): Record<string, unknown> {
  return {
    sweep: out,
    split: options.split,
    indices,
    passes: options.passes,
    ...(options.shard ? { shard: `${options.shard.index}/${options.shard.count}` } : {}),
    protocol: options.protocol,
    prompt_version: promptVersion,
    max_turns: options.maxTurns,
    models: options.models.map((m) => ({ name: m.name, provider: m.provider, model: m.model, base_url: m.baseUrls })),
    env: options.env.length ? options.env : 'embedded',
  };
}

type Environment = Awaited<ReturnType<typeof import('./environments.js').embeddedEnvironment>>;

async function play(
  s: Locked,
  plan: { environment: Environment; planned: WorkItem[]; work: WorkItem[]; config: Record<string, unknown> },
): Promise<SweepOutcome> {
  const { options, hooks, out, runId, arms, signal } = s;
  const { createRecorder } = await import('../../agent/recorder.js');
  const recorders = new Map<string, ReturnType<typeof createRecorder>>();
  const sinkFor = (item: WorkItem) => {
    const dir = runDirFor(out, runId, options.shard, item.sample);
    let recorder = recorders.get(dir);
    if (!recorder) recorders.set(dir, (recorder = createRecorder(s.ws, { runId, runDir: dir, config: plan.config, ownImages: true })));
    return recorder;
  };
  const [{ Throttle }, { runSweep }] = await Promise.all([import('./throttle.js'), import('./sweep.js')]);
  const throttle = new Throttle({ max: arms.reduce((n, a) => n + a.workers, 0), adaptive: options.adaptive });
  const progress = new SweepProgress(out, runId, arms, plan.planned, plan.work, throttle, options.shard, hooks.onProgress);
  let state: SweepState = 'failed';
  let gone: string[];
  try {
    ({ gone } = await runSweep({
      arms,
      work: plan.work,
      environment: plan.environment,
      protocol: options.protocol,
      tools: options.tools,
      maxTurns: options.maxTurns,
      imageSizePx: options.imageSizePx,
      prompt: s.prompt,
      sinkFor,
      signal,
      throttle,
      onRecorded: (item, record) => {
        const line = progress.recorded(item, record);
        hooks.onEpisode?.(line, item, record);
      },
      onPlayed: (item, record, unrecordedRetries) => progress.played(item, record, unrecordedRetries),
      onReplicaOut: (url, error) => hooks.onNote?.(`${url} taken out for a while: ${error}`),
    }));
    state = signal.aborted ? 'interrupted' : progress.failed() > 0 ? 'failed' : 'done';
  } finally {
    throttle.close();
    progress.finish(state);
    for (const dir of recorders.keys()) finishRunFile(dir, runId, plan.config, arms);
  }
  const exitCode = signal.aborted ? EXIT.interrupted : gone.length > 0 ? EXIT.unreachable : state === 'failed' ? EXIT.problemFound : EXIT.ok;
  return { runId, out, status: state, models: progress.models(), summary: progress.summary(), machine: progress.machineSummary(), gone, exitCode };
}

/**
 * Each model's replicas in a pool, checked first: an OpenAI-compatible replica must list the model
 * (a mistyped adapter name is the commonest way to evaluate the wrong thing); one that does not answer
 * starts out of the pool; a model with no replica answering stops the sweep before it starts.
 */
async function prepareArms(options: SweepOptions, promptVersion: string, note: (text: string) => void): Promise<SweepArm[]> {
  const { checkModel } = await import('../../agent/openai.js');
  const backoffMs = backoffMsOf(options.retryDelayS);
  const settings = { concurrency: options.concurrency, retries: options.retries, retryDelayS: options.retryDelayS, timeoutS: options.timeoutS, maxReplyMb: options.maxReplyMb };
  return Promise.all(
    options.models.map(async (spec) => {
      const apiKey = apiKeyFrom(spec.apiKeyEnv);
      if (!apiKey && spec.provider === 'anthropic') note(`$${spec.apiKeyEnv} is not set: ${spec.name} sends no API key`);
      const pool = new EndpointPool(spec.baseUrls, { capacity: spec.concurrency ?? options.concurrency, backoffMs });
      if (spec.provider === 'openai') {
        const down: string[] = [];
        for (const url of spec.baseUrls) {
          try {
            await checkModel(url, spec.model, { apiKey, apiKeyEnv: spec.apiKeyEnv });
          } catch (err) {
            if (!(err instanceof ServiceError)) throw err;
            pool.failed(url, err.message);
            down.push(err.message);
          }
        }
        if (down.length === spec.baseUrls.length) throw new ServiceError(`${spec.name}: ${down.join('; ')}`);
        for (const message of down) note(`${spec.name}: replica taken out: ${message}`);
      }
      return {
        spec,
        promptVersion,
        pool,
        workers: (spec.concurrency ?? options.concurrency) * spec.baseUrls.length,
        // The pool gives each episode its replica's URL.
        endpoint: endpointOfSpec(spec, spec.baseUrls[0]!, settings, apiKey),
      };
    }),
  );
}

/** run.json in the harness's keys (its report reads only episodes.jsonl; people read this). */
function finishRunFile(dir: string, runId: string, config: Record<string, unknown>, arms: readonly SweepArm[]): void {
  const file = join(dir, 'run.json');
  let existing: Record<string, unknown>;
  try {
    existing = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch {
    existing = {};
  }
  const run = {
    ...existing,
    run_id: runId,
    schema_version: 2,
    finished_at: new Date().toISOString(),
    split: config.split,
    indices: config.indices,
    config,
    models: arms.map((a) => ({ name: a.spec.name, provider: a.spec.provider, model: a.spec.model, base_url: a.spec.baseUrls, max_tokens: a.spec.maxTokens })),
  };
  writeFileAtomic(file, JSON.stringify(run, null, 2) + '\n');
}

/** A replica that failed stays out five first retry delays, doubling (the pool's default without --retry-delay). */
export function backoffMsOf(retryDelayS: number | undefined): number {
  return retryDelayS === undefined ? DEFAULT_BACKOFF_MS : retryDelayS * 1000 * 5;
}

// ---------------------------------------------------------------------------------------------
// The options kept in the folder, for the board's resume

function writeOptions(out: string, options: SweepOptions): void {
  // The workspace is where the resume runs, not where this one did; no key is in the options (only the variables' names).
  const { workspace: _workspace, shard: _shard, fallbackRunId: _fallback, ...kept } = options;
  // Paths whole: the board resumes from wherever the app was started.
  const paths = { promptFile: kept.promptFile === undefined ? undefined : resolve(kept.promptFile), panos: kept.panos === undefined ? undefined : resolve(kept.panos) };
  writeFileAtomic(join(out, OPTIONS_FILE), JSON.stringify({ ...kept, ...paths }, null, 2) + '\n');
}

/**
 * The options a sweep in `dir` ran with, to run it again in the same folder under the same run id
 * (it resumes: docs/sweeps.md, 'Resuming from the Eval board'). Null when the folder has none (a
 * sweep of an older geolab, or a sharded one, which its scheduler resumes).
 */
export function readSweepOptions(dir: string): SweepOptions | null {
  const file = join(dir, OPTIONS_FILE);
  const text = readTextIfPresent(file);
  if (text === null) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new InputError(`not valid JSON: ${(err as Error).message}`, { file });
  }
  if (!isRecord(value) || !Array.isArray(value.models) || typeof value.split !== 'string' || typeof value.runId !== 'string') {
    throw new InputError('expected the options of a sweep: models, split, runId', { file });
  }
  return { ...(value as unknown as SweepOptions), out: dir };
}
