/**
 * `geolab eval run`: a pass@k sweep of one or more models over a split, in the harness's layout, every
 * episode also recorded in the workspace. Resumable (an episode already recorded for its model,
 * prompt version, split, task and sample is skipped), one sweep per output folder, spread over model
 * replicas and environment servers. Draws no TUI.
 *
 * Exit codes: 0 every episode recorded; 1 some episode failed (environment error, leak guard);
 * 2 bad usage, or the folder is another sweep's; 3 a model endpoint or the environment had no
 * replica left: gone, refusing the key, or unusable (no request of an episode got a reply after its
 * retries, as from an endpoint answering HTTP 500 to everything); the episodes are recorded as
 * failed, and a re-run plays them again; 130 interrupted. The summary and sweep.json count per
 * model the retries, provider-error turns, failed and aborted episodes (docs/sweeps.md).
 */
import { setMaxListeners } from 'node:events';
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { apiKeyFrom, maxReplyProblem, DEFAULT_IMAGE_SIZE_PX, DEFAULT_MAX_TURNS, DEFAULT_PROTOCOL, DEFAULT_SPLIT, PROTOCOLS } from '../../agent/agent-settings.js';
import type { Protocol } from '../../agent/policies/model.js';
import type { ToolSet } from '../../agent/protocols/tools.js';
import { isCompleted, type EpisodeRecord, type Turn } from '../../core/episode.js';
import { EXIT, ServiceError, UsageError } from '../../core/errors.js';
import { checkedPanosDir, writeFileAtomic } from '../../files.js';
import { DEFAULT_BACKOFF_MS, EndpointPool } from '../../eval/run/endpoints.js';
import { endpointOfSpec, modelSpecsOf } from '../../agent/endpoint-choice.js';
import type { ModelSpec } from '../../agent/models-file.js';
import { chooseIndices, parseIndices, parseShard, planWork, remainingWork, shardFromEnvironment, shardIndices, type Shard, type WorkItem } from '../../eval/run/plan.js';
import type { SweepArm } from '../../eval/run/sweep.js';
import { WINDOW_MS, type Throttle } from '../../eval/run/throttle.js';
import { lockSweep, previousRunId, readRecorded, runDirFor, StatusWriter } from '../../eval/run/tree.js';
import { shardStatusFile, SWEEP_FILE, type SweepModelProgress, type SweepState } from '../../eval/sweep-status.js';
import type { GlobalOptions } from '../options.js';
import { printJson, printLine, warn, warnSkipped } from '../output.js';

export interface EvalRunOptions extends GlobalOptions {
  model?: string;
  baseUrl?: string;
  provider?: string;
  apiKeyEnv?: string;
  maxTokens?: number;
  models?: string;
  split?: string;
  limit?: number;
  indices?: string;
  passes?: number;
  concurrency?: number;
  maxTurns?: number;
  protocol?: Protocol;
  tools?: ToolSet;
  promptFile?: string;
  env?: string[];
  out?: string;
  runId?: string;
  /** `I/N`, or `auto`: from a Slurm array job or a Kubernetes Indexed Job. */
  shard?: string;
  /** N for `--shard auto` where the scheduler does not say it (Kubernetes). */
  shards?: number;
  retries?: number;
  /** Seconds before the first retry of a model request. */
  retryDelay?: number;
  /** Seconds per model request attempt. */
  timeout?: number;
  /** The largest model reply read, in MiB. */
  maxReplyMb?: number;
  imageSize?: number;
  panos?: string;
}

export const DEFAULT_PASSES = 4;
export const DEFAULT_CONCURRENCY = 8;

export async function evalRunCommand(opts: EvalRunOptions): Promise<void> {
  const specs = modelSpecsOf(opts);
  const passes = opts.passes ?? DEFAULT_PASSES;
  integerIn('--passes', passes, 1, 1000);
  const concurrency = opts.concurrency ?? DEFAULT_CONCURRENCY;
  integerIn('--concurrency', concurrency, 1, 1024);
  const maxTurns = opts.maxTurns ?? DEFAULT_MAX_TURNS;
  integerIn('--max-turns', maxTurns, 1, 200);
  const imageSizePx = opts.imageSize ?? DEFAULT_IMAGE_SIZE_PX;
  integerIn('--image-size', imageSizePx, 32, 4096);
  const retries = opts.retries ?? 2;
  integerIn('--retries', retries, 0, 20);
  if (opts.retryDelay !== undefined && !(opts.retryDelay >= 0)) throw new UsageError(`--retry-delay must be seconds >= 0, got ${opts.retryDelay}`);
  if (opts.timeout !== undefined && !(opts.timeout > 0)) throw new UsageError(`--timeout must be seconds above 0, got ${opts.timeout}`);
  const replyProblem = opts.maxReplyMb === undefined ? null : maxReplyProblem(opts.maxReplyMb);
  if (replyProblem) throw new UsageError(`--max-reply-mb ${replyProblem}`);
  if (opts.limit !== undefined) integerIn('--limit', opts.limit, 1, Number.MAX_SAFE_INTEGER);
  if (opts.limit !== undefined && opts.indices !== undefined) throw new UsageError('--limit and --indices are alternatives: give one');
  const protocol = opts.protocol ?? DEFAULT_PROTOCOL;
  if (!PROTOCOLS.includes(protocol)) throw new UsageError(`--protocol must be ${PROTOCOLS.join(' or ')}, got "${String(protocol)}"`);
  const tools = opts.tools ?? 'trained';
  const indicesAsked = opts.indices === undefined ? undefined : parseIndices(opts.indices);
  const shard = shardOf(opts);
  const split = opts.split ?? DEFAULT_SPLIT;
  const envUrls = (opts.env ?? []).flatMap((u) => u.split(',')).map((u) => u.trim()).filter(Boolean);
  const panos = opts.panos === undefined ? undefined : checkedPanosDir(opts.panos, '--panos');
  const [{ loadPromptTemplate }, { promptVersionOf }] = await Promise.all([import('../../agent/protocols/template.js'), import('../../agent/policies/model.js')]);
  const prompt = opts.promptFile === undefined ? undefined : loadPromptTemplate(opts.promptFile);
  const promptVersion = promptVersionOf(protocol, prompt);
  const arms = await prepareArms(specs, { concurrency, retries, retryDelayS: opts.retryDelay, timeoutS: opts.timeout, maxReplyMb: opts.maxReplyMb, promptVersion });

  const [{ openWorkspace }, { newRunId, createRecorder }, { ensureEvalRun, assertRunId }] = await Promise.all([
    import('../../store/index.js'),
    import('../../agent/recorder.js'),
    import('../../store/eval-runs.js'),
  ]);
  const ws = await openWorkspace(opts.workspace);
  try {
    const givenOut = opts.out === undefined ? undefined : resolve(opts.out);
    const runId = opts.runId ?? (givenOut ? previousRunId(givenOut) : null) ?? schedulerRunId(opts) ?? newRunId();
    assertRunId(runId);
    const out = givenOut ?? join(ws.paths.dir, 'sweeps', runId);
    mkdirSync(out, { recursive: true });
    const lock = lockSweep(out, shard);
    // From here an interrupt ends the sweep through its own finally blocks, which release the lock.
    const controller = new AbortController();
    // Every request and wait of every episode in flight listens to it: many more than Node's default ten.
    setMaxListeners(0, controller.signal);
    const interrupt = () => {
      // A second Ctrl-C does not wait for the episodes in flight; the lock left behind is taken over next time.
      if (controller.signal.aborted) process.exit(EXIT.interrupted);
      controller.abort();
    };
    process.on('SIGINT', interrupt);
    process.on('SIGTERM', interrupt);
    try {
      if (lock.note) warn(`geolab: ${lock.note}`);
      const { remoteEnvironment, embeddedEnvironment } = await import('../../eval/run/environments.js');
      const environment = envUrls.length ? await remoteEnvironment(envUrls, split, backoffMsOf(opts.retryDelay)) : await embeddedEnvironment(ws, split, panos, imageSizePx);
      try {
        for (const line of environment.unreachable) warn(`geolab: environment server taken out: ${line}`);
        const indices = shardIndices(chooseIndices(environment.size, { indices: indicesAsked, limit: opts.limit }, split), shard);
        const planned = planWork({ arms: arms.map((a) => ({ model: a.spec.name, promptVersion })), split, indices, passes });
        const recorded = readRecorded(out, shard);
        recorded.skipped.forEach(warnSkipped);
        for (const note of recorded.notes) warn(`geolab: ${note}`);
        if (recorded.superseded.length > 0) (await import('../../store/episodes.js')).detachFromRun(ws.db, recorded.superseded);
        const work = remainingWork(planned, recorded.done);
        const sweepConfig = {
          sweep: out,
          split,
          indices,
          passes,
          ...(shard ? { shard: `${shard.index}/${shard.count}` } : {}),
          protocol,
          prompt_version: promptVersion,
          max_turns: maxTurns,
          models: specs.map((s) => ({ name: s.name, provider: s.provider, model: s.model, base_url: s.baseUrls })),
          env: envUrls.length ? envUrls : 'embedded',
        };
        ensureEvalRun(ws.db, { id: runId, root: out, config: sweepConfig });
        warn(`geolab: sweep ${runId}: ${arms.length} model${arms.length === 1 ? '' : 's'} x ${indices.length} tasks x ${passes} passes -> ${out}` +
          (planned.length > work.length ? ` (resuming: ${planned.length - work.length} of ${planned.length} already recorded)` : ''));

        const recorders = new Map<string, ReturnType<typeof createRecorder>>();
        const sinkFor = (item: WorkItem) => {
          const dir = runDirFor(out, runId, shard, item.sample);
          let recorder = recorders.get(dir);
          if (!recorder) recorders.set(dir, (recorder = createRecorder(ws, { runId, runDir: dir, config: sweepConfig, ownImages: true })));
          return recorder;
        };
        const { Throttle } = await import('../../eval/run/throttle.js');
        // Without --concurrency, how many are in flight follows the machine (docs/sweeps.md).
        const throttle = new Throttle({ max: arms.reduce((n, a) => n + a.workers, 0), adaptive: opts.concurrency === undefined });
        const progress = new Progress(out, runId, arms, planned, work, throttle, shard);
        let state: SweepState = 'failed';
        let gone: string[] = [];
        const { runSweep } = await import('../../eval/run/sweep.js');
        try {
          ({ gone } = await runSweep({
            arms,
            work,
            environment,
            protocol,
            tools,
            maxTurns,
            imageSizePx,
            prompt,
            sinkFor,
            signal: controller.signal,
            throttle,
            onRecorded: (item, record) => progress.recorded(item, record),
            onPlayed: (item, record, unrecordedRetries) => progress.played(item, record, unrecordedRetries),
            onReplicaOut: (url, error) => progress.note(`${url} taken out for a while: ${error}`),
          }));
          state = controller.signal.aborted ? 'interrupted' : progress.failed() > 0 ? 'failed' : 'done';
        } finally {
          throttle.close();
          progress.finish(state);
          for (const dir of recorders.keys()) finishRunFile(dir, runId, sweepConfig, arms);
        }
        if (opts.json) printJson({ run_id: runId, out, status: state, models: progress.models() });
        else for (const line of progress.summary()) printLine(line);
        warn(`geolab: ${progress.machineSummary()}`);
        for (const message of gone) warn(`geolab: ${message}`);
        process.exitCode = controller.signal.aborted ? EXIT.interrupted : gone.length > 0 ? EXIT.unreachable : state === 'failed' ? EXIT.problemFound : EXIT.ok;
      } finally {
        await environment.close();
      }
    } finally {
      process.off('SIGINT', interrupt);
      process.off('SIGTERM', interrupt);
      lock.release();
    }
  } finally {
    ws.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Shards

/** `--shard I/N`, or `--shard auto` from the scheduler's variables, said once on stderr. */
function shardOf(opts: EvalRunOptions): Shard | undefined {
  if (opts.shards !== undefined && opts.shard?.trim() !== 'auto') throw new UsageError('--shards N goes with --shard auto (a Kubernetes Indexed Job\'s completions); --shard I/N says N itself');
  if (opts.shard === undefined) return undefined;
  if (opts.shard.trim() !== 'auto') return parseShard(opts.shard);
  const { shard, source } = shardFromEnvironment(process.env, opts.shards);
  warn(`geolab: --shard auto: playing shard ${shard.index}/${shard.count} (0-based), from ${source}`);
  return shard;
}

/**
 * Under `--shard auto` in a Slurm array job without --run-id, every task of the array names the run
 * after the array's job id, so the shards starting at once agree on it.
 */
function schedulerRunId(opts: EvalRunOptions): string | null {
  const job = process.env.SLURM_ARRAY_JOB_ID;
  return opts.shard?.trim() === 'auto' && job && /^\d+$/.test(job) ? `slurm-${job}` : null;
}

// ---------------------------------------------------------------------------------------------
// Models

/**
 * Each model's replicas in a pool, checked first: an OpenAI-compatible replica must list the model
 * (a mistyped adapter name is the commonest way to evaluate the wrong thing); one that does not answer
 * starts out of the pool; a model with no replica answering stops the sweep before it starts.
 */
async function prepareArms(
  specs: readonly ModelSpec[],
  settings: { concurrency: number; retries: number; retryDelayS?: number; timeoutS?: number; maxReplyMb?: number; promptVersion: string },
): Promise<SweepArm[]> {
  const { checkModel } = await import('../../agent/openai.js');
  const backoffMs = backoffMsOf(settings.retryDelayS);
  return Promise.all(
    specs.map(async (spec) => {
      const apiKey = apiKeyFrom(spec.apiKeyEnv);
      if (!apiKey && spec.provider === 'anthropic') warn(`geolab: $${spec.apiKeyEnv} is not set: ${spec.name} sends no API key`);
      const pool = new EndpointPool(spec.baseUrls, { capacity: spec.concurrency ?? settings.concurrency, backoffMs });
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
        for (const message of down) warn(`geolab: ${spec.name}: replica taken out: ${message}`);
      }
      return {
        spec,
        promptVersion: settings.promptVersion,
        pool,
        workers: (spec.concurrency ?? settings.concurrency) * spec.baseUrls.length,
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
function backoffMsOf(retryDelayS: number | undefined): number {
  return retryDelayS === undefined ? DEFAULT_BACKOFF_MS : retryDelayS * 1000 * 5;
}

const round2 = (x: number) => Math.round(x * 100) / 100;

function integerIn(flag: string, value: number, min: number, max: number): void {
  if (!Number.isInteger(value) || value < min || value > max) throw new UsageError(`${flag} must be an integer from ${min} to ${max}, got ${value}`);
}

// ---------------------------------------------------------------------------------------------
// Progress: counts per model, sweep.json, and a line on a terminal

interface Counts {
  done: number;
  failed: number;
  aborted: number;
  total: number;
  /** Recorded by this process (for the rate). */
  now: number;
  retries: number;
  providerErrors: number;
}

class Progress {
  private readonly startedMs = performance.now();
  private readonly startedAt = new Date().toISOString();
  private readonly counts = new Map<string, Counts>();
  private readonly status: StatusWriter;
  private readonly tty = Boolean(process.stderr.isTTY);
  /** Between records too: what is in flight and the machine's figures move on their own. */
  private readonly ticker: NodeJS.Timeout;

  constructor(
    out: string,
    private readonly runId: string,
    arms: readonly SweepArm[],
    planned: readonly WorkItem[],
    work: readonly WorkItem[],
    private readonly throttle: Throttle,
    shard: Shard | undefined,
  ) {
    // Shards of one sweep share its folder: each keeps its own status file, read together (docs/sharding.md).
    this.status = new StatusWriter(out, shard ? shardStatusFile(shard.index) : SWEEP_FILE);
    for (const arm of arms) {
      const total = planned.filter((i) => i.model === arm.spec.name).length;
      const left = work.filter((i) => i.model === arm.spec.name).length;
      this.counts.set(arm.spec.name, { done: total - left, failed: 0, aborted: 0, total, now: 0, retries: 0, providerErrors: 0 });
    }
    this.write('running');
    this.ticker = setInterval(() => {
      this.draw();
      this.write('running');
    }, WINDOW_MS);
    this.ticker.unref();
  }

  recorded(item: WorkItem, record: EpisodeRecord): void {
    const c = this.counts.get(item.model)!;
    if (isCompleted(record)) c.done++;
    else if (record.failure === 'aborted') c.aborted++;
    else c.failed++;
    c.now++;
    if (this.tty) this.draw();
    else {
      const what = !isCompleted(record) && record.failure === 'aborted' ? 'aborted' : isCompleted(record) ? (record.outcome.distance_km === null || record.outcome.distance_km === undefined ? 'no guess' : `${record.outcome.distance_km.toFixed(0)} km`) : `failed: ${String(record.error).slice(0, 80)}`;
      warn(`  [${c.done + c.failed + c.aborted}/${c.total}] ${item.model} task ${item.index} sample ${item.sample}: ${what}`);
    }
    this.write('running');
  }

  /** What an episode cost, counted whether its record was kept or it was played again elsewhere. */
  played(item: WorkItem, record: EpisodeRecord, unrecordedRetries = 0): void {
    const c = this.counts.get(item.model)!;
    c.retries += unrecordedRetries;
    // A failed record's turns are loosely typed (its schema keeps whatever the harness wrote).
    const turns = (isCompleted(record) ? record.turns : Array.isArray(record.turns) ? record.turns : []) as Turn[];
    for (const turn of turns) {
      if (turn.turn === 0) continue;
      const attempts = turn.model?.attempts;
      if (typeof attempts === 'number' && attempts > 1) c.retries += attempts - 1;
      if (turn.status === 'provider_error') c.providerErrors++;
    }
  }

  /** A line of its own, off the progress line on a terminal. */
  note(text: string): void {
    if (this.tty) process.stderr.write('\r\x1b[K');
    warn(`geolab: ${text}`);
  }

  failed(): number {
    return [...this.counts.values()].reduce((n, c) => n + c.failed, 0);
  }

  models(): SweepModelProgress[] {
    const minutes = (performance.now() - this.startedMs) / 60_000;
    return [...this.counts].map(([name, c]) => {
      const perMin = minutes > 0 ? c.now / minutes : 0;
      const left = c.total - c.done - c.failed - c.aborted;
      return {
        name,
        done: c.done,
        failed: c.failed,
        aborted: c.aborted,
        total: c.total,
        retries: c.retries,
        provider_errors: c.providerErrors,
        per_min: Number(perMin.toFixed(2)),
        eta_s: perMin > 0 ? Math.round((left / perMin) * 60) : left === 0 ? 0 : null,
      };
    });
  }

  finish(state: SweepState): void {
    clearInterval(this.ticker);
    if (this.tty) process.stderr.write('\n');
    this.write(state);
    this.status.flush();
  }

  summary(): string[] {
    // Every count, zeros included: an endpoint that answered nothing must not read like a clean sweep.
    return this.models().map(
      (m) =>
        `${m.name}: ${m.done}/${m.total} recorded, ${m.failed} failed, ${m.aborted} aborted, ` +
        `${m.retries} ${m.retries === 1 ? 'retry' : 'retries'}, ${m.provider_errors} provider-error turn${m.provider_errors === 1 ? '' : 's'}`,
    );
  }

  /** How many were in flight and whether geolab itself held the sweep back, for the end of the run. */
  machineSummary(): string {
    const t = this.throttle.state();
    const how = t.adaptive ? 'following the machine' : 'fixed by --concurrency';
    const bound = t.windows === 0 ? 'too short to measure the CPU' : `CPU-bound in ${t.boundWindows} of ${t.windows} ${WINDOW_MS / 1000}-second windows`;
    return `episodes in flight: limit ${t.limit} (${how}); ${bound}`;
  }

  private draw(): void {
    if (this.tty) process.stderr.write(`\r\x1b[K${this.line()}`);
  }

  private line(): string {
    const t = this.throttle.state();
    const models = this.models()
      .map((m) => `${m.name} ${m.done + m.failed + (m.aborted ?? 0)}/${m.total} ${m.per_min.toFixed(1)}/min eta ${m.eta_s === null ? '-' : `${Math.ceil(m.eta_s / 60)}m`}`)
      .join(' · ');
    // The CPU-bound warning says more in flight would not help: geolab, not the endpoint, is the bottleneck.
    return `${models} · ${t.inFlight}/${t.limit} in flight${t.cpuBound ? ' · CPU-bound: geolab is the bottleneck' : ''}`;
  }

  private write(status: SweepState): void {
    const t = this.throttle.state();
    this.status.update({
      run_id: this.runId,
      pid: process.pid,
      status,
      started_at: this.startedAt,
      updated_at: new Date().toISOString(),
      models: this.models(),
      machine: { in_flight: t.inFlight, limit: t.limit, adaptive: t.adaptive, cpu: t.cpu === null ? null : round2(t.cpu), event_loop: t.elu === null ? null : round2(t.elu), cpu_bound: t.cpuBound },
    });
  }
}
