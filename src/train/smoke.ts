/**
 * `train smoke` (docs/training.md, "Smoke test"): the real stack, briefly, before a long run. The config's
 * recipe with a two-step length (one generation batch serving both optimizer steps, a checkpoint at
 * step 2), launched by launch's own code into `<output_dir>/smoke/`, followed in the foreground; then
 * that checkpoint's adapter served as `train serve` serves it, asked one chat question, and the server
 * stopped. Each stage is reported as it passes; a failure names its stage and the log to read.
 * The user's config file is never written: the smoke's own config is `<output_dir>/smoke/config.json`.
 */
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { chatCompletion, listModels } from '../agent/openai.js';
import { EXIT, GeolabError, UsageError } from '../core/errors.js';
import { signalGroup } from '../processes.js';
import { CONFIG_FILE, writeTrainConfig } from './config-file.js';
import { derive, type TrainConfig } from './config.js';
import { LAUNCH_FILE, readLaunchRecord, spawnDetached, type LaunchRecord } from './launch.js';
import { planServe } from './serve.js';
import { stopRun } from './stop.js';
import { RunFollower, stopOrphanedEnvServer, trainerRunning } from './watch.js';

/** Optimizer steps of a smoke run: the second shows an update applied and the run going on. */
export const SMOKE_STEPS = 2;
/** The smoke run's folder under the config's output_dir (replaced by each smoke run). */
export const SMOKE_DIR = 'smoke';
/** The served adapter's output, beside the trainer's log. */
export const SERVE_LOG_FILE = 'serve.log';
/** vLLM loads the base model again and compiles its graphs before it answers: minutes on an A100. */
const SERVE_START_TIMEOUT_MS = 15 * 60_000;
/** The one question the served adapter is asked. */
export const SMOKE_QUESTION = 'In one short sentence: which country has the most visible roadside bollards?';
const REPLY_TIMEOUT_MS = 5 * 60_000;
const EXIT_WAIT_MS = 15_000;

export type SmokeStage = 'pre-flight' | 'environment' | 'training' | 'checkpoint' | 'serve';

/** A stage that did not pass: exit 1, its stage and the log that says why. */
export class SmokeFailure extends GeolabError {
  constructor(
    readonly stage: SmokeStage,
    message: string,
    readonly log?: string,
  ) {
    super(message, EXIT.problemFound);
  }
}

export type SmokeEvent =
  | { stage: 'environment'; url: string; local: boolean; pid: number | null }
  | { stage: 'trainer'; pid: number; log: string }
  | { stage: 'phase'; phase: 'loading' | 'training' }
  | { stage: 'step'; step: number; max_steps: number; metrics: Record<string, number> }
  | { stage: 'warning'; message: string }
  | { stage: 'checkpoint'; step: number; path: string }
  | { stage: 'serving'; model: string; url: string; pid: number; log: string }
  | { stage: 'reply'; model: string; content: string };

export interface SmokeOptions {
  /** Another base model (an id or a local folder) than the config's. */
  model?: string;
}

/**
 * The config as the smoke runs it: the recipe's every setting but the run's length. Two optimizer
 * steps; a generation batch twice a step's completions, so TRL generates once (its steps_per_generation
 * covers both steps) and the slow part, the rollouts, runs once; a checkpoint at step 2; a log line per step.
 */
export function smokeConfig(config: TrainConfig, options: SmokeOptions = {}): TrainConfig {
  const { completionsPerStep } = derive(config);
  return {
    ...config,
    output_dir: smokeDir(config),
    model: options.model ?? config.model,
    grpo: {
      ...config.grpo,
      max_steps: SMOKE_STEPS,
      save_steps: SMOKE_STEPS,
      generation_batch_size: completionsPerStep * SMOKE_STEPS,
      logging_steps: 1,
    },
  };
}

export function smokeDir(config: TrainConfig): string {
  return join(config.output_dir, SMOKE_DIR);
}

/**
 * Makes the smoke folder fresh and writes the smoke's config into it: a previous smoke run's files are
 * removed (a new run over an old checkpoint-2 would be served the old adapter), a smoke run still
 * running is refused, and a folder there that is not a smoke run's is left alone (exit 2).
 */
export function prepareSmokeDir(config: TrainConfig): string {
  const dir = config.output_dir;
  if (existsSync(dir)) {
    const entries = readdirSync(dir);
    if (entries.length && !entries.includes(LAUNCH_FILE) && !entries.includes(CONFIG_FILE)) {
      throw new UsageError(`${dir} holds files that are not a smoke run's (${entries.slice(0, 3).join(', ')}): move them, the smoke run writes there`);
    }
    const previous = entries.includes(LAUNCH_FILE) ? readLaunchRecord(dir) : undefined;
    if (previous && trainerRunning(previous)) {
      throw new UsageError(`a smoke run is still running in ${dir} (pid ${previous.pid}): \`geolab train stop ${dir}\` first`);
    }
    // A smoke that was killed outright may have left its environment server behind.
    if (previous) stopOrphanedEnvServer(previous);
    rmSync(dir, { recursive: true, force: true });
  }
  const file = join(dir, CONFIG_FILE);
  writeTrainConfig(file, config);
  return file;
}

/** Set by the command's SIGINT handler: each wait looks at it and ends what it started. */
export interface Interrupt {
  requested: boolean;
  /** Aborted with it: a request under way (the chat request) ends at once. */
  signal?: AbortSignal;
}

const interrupted = () => new GeolabError('interrupted: the smoke run was stopped', EXIT.interrupted);

/**
 * Follows a launched smoke run to its end, reporting each step and the checkpoint as the log shows
 * them. Returns the checkpoint to serve; a crash, or an end without a checkpoint, is a SmokeFailure.
 * The local environment server is stopped once the trainer is gone.
 */
export async function followTraining(record: LaunchRecord, onEvent: (event: SmokeEvent) => void, interrupt: Interrupt, pollMs = 200): Promise<{ step: number; path: string }> {
  const follower = new RunFollower(record);
  let phase = '';
  let reported = 0;
  const warned = new Set<string>();
  const checkpoints = new Set<number>();
  try {
    for (;;) {
      const state = follower.poll();
      const s = state.snapshot;
      // Loading the model and vLLM's start take minutes: said as they begin. The steps and the checkpoint say the rest.
      if (s.phase !== phase && (s.phase === 'loading' || s.phase === 'training')) onEvent({ stage: 'phase', phase: s.phase });
      phase = s.phase;
      // A step shows once it is logged (its metrics), or the bar went past it.
      const logged = Math.max(s.metrics.at(-1)?.step ?? 0, (s.step ?? 0) - 1, state.status === 'running' ? 0 : (s.step ?? 0));
      for (let step = reported + 1; step <= Math.min(logged, SMOKE_STEPS); step++) {
        onEvent({ stage: 'step', step, max_steps: s.max_steps ?? SMOKE_STEPS, metrics: s.metrics.find((m) => m.step === step)?.values ?? {} });
        reported = step;
      }
      for (const c of s.checkpoints) {
        if (checkpoints.has(c.step)) continue;
        checkpoints.add(c.step);
        onEvent({ stage: 'checkpoint', step: c.step, path: c.path });
      }
      for (const w of s.warnings) {
        if (warned.has(w.id)) continue;
        warned.add(w.id);
        onEvent({ stage: 'warning', message: w.message });
      }
      if (state.status !== 'running') {
        if (state.status === 'crashed') {
          const last = (s.crashed?.last_lines ?? []).slice(-12);
          const where = reported ? `after step ${reported} of ${SMOKE_STEPS}` : `before step 1 (${s.phase === 'unknown' ? 'starting' : s.phase})`;
          throw new SmokeFailure(
            'training',
            // A process at the trainer's pid that is not the trainer says why it was not counted (notes).
            `the trainer ended ${where}${(state.notes ?? []).map((n) => ` (${n})`).join('')}; the last lines of its log:\n${last.map((l) => `  ${l}`).join('\n')}`,
            record.log_path,
          );
        }
        const saved = s.checkpoints.find((c) => c.step === SMOKE_STEPS) ?? s.checkpoints.at(-1);
        if (!saved) throw new SmokeFailure('checkpoint', `the trainer finished ${SMOKE_STEPS} steps but logged no checkpoint (expected checkpoint-${SMOKE_STEPS} under ${record.cwd})`, record.log_path);
        return saved;
      }
      if (interrupt.requested) {
        await stopRun(record, { graceMs: 0 });
        throw interrupted();
      }
      await sleep(pollMs);
    }
  } finally {
    stopOrphanedEnvServer(record);
  }
}

/**
 * `train serve` of the smoke's checkpoint, for real: its vLLM started on a free loopback port in a
 * process group of its own (output to serve.log), asked once through the OpenAI-compatible endpoint
 * in the trained mode (the models file's chat_template_kwargs), then stopped with its whole group.
 */
export async function serveOnce(
  configFile: string,
  step: number,
  options: { env: NodeJS.ProcessEnv; port?: number; onEvent: (event: SmokeEvent) => void; interrupt: Interrupt; pollMs?: number },
): Promise<string> {
  const port = options.port ?? (await freeLoopbackPort());
  const plan = await planServe(configFile, { checkpoint: step, port }).catch((err: Error) => {
    throw new SmokeFailure('checkpoint', err.message);
  });
  const dir = dirname(configFile);
  const log = join(dir, SERVE_LOG_FILE);
  let pid: number;
  try {
    ({ pid } = await spawnDetached(plan.command, log, options.env, dir, "vLLM of the config's Python environment"));
  } catch (err) {
    throw new SmokeFailure('serve', (err as Error).message, log);
  }
  const adapter = plan.models[0]!;
  options.onEvent({ stage: 'serving', model: plan.name, url: adapter.base_url, pid, log });
  try {
    const deadline = Date.now() + SERVE_START_TIMEOUT_MS;
    for (;;) {
      if (options.interrupt.requested) throw interrupted();
      if (!signalGroup(pid, 0)) throw new SmokeFailure('serve', `the vLLM server exited before it served ${plan.name}`, log);
      const served = await listModels(adapter.base_url, { timeoutMs: 5_000 }).catch(() => undefined);
      if (served) {
        if (served.some((m) => m.id === plan.name)) break;
        throw new SmokeFailure('serve', `the server at ${adapter.base_url} does not list the adapter ${plan.name} (it serves: ${served.map((m) => m.id).join(', ') || 'nothing'})`, log);
      }
      if (Date.now() > deadline) throw new SmokeFailure('serve', `the vLLM server did not answer within ${SERVE_START_TIMEOUT_MS / 60_000} min`, log);
      await sleep(options.pollMs ?? 1_000);
    }
    const call = await chatCompletion(
      { baseUrl: adapter.base_url, model: plan.name, maxTokens: 64, temperature: 0, maxAttempts: 1, timeoutMs: REPLY_TIMEOUT_MS, extraBody: adapter.extra_body },
      { messages: [{ role: 'user', content: SMOKE_QUESTION }] },
      options.interrupt.signal,
    ).catch((err: Error) => {
      throw options.interrupt.requested ? interrupted() : new SmokeFailure('serve', `the chat request to ${plan.name} failed: ${err.message}`, log);
    });
    const content = call.reply?.content.trim() ?? '';
    if (!call.reply) throw new SmokeFailure('serve', `the chat request to ${plan.name} got no reply: ${call.errors.join('; ')}`, log);
    if (!content) throw new SmokeFailure('serve', `${plan.name} replied with no text (finish reason ${call.reply.finishReason ?? 'none'}${call.reply.reasoning ? ', only reasoning: is thinking off?' : ''})`, log);
    options.onEvent({ stage: 'reply', model: plan.name, content });
    return content;
  } finally {
    await stopGroup(pid);
  }
}

/** SIGTERM to a group this process started, SIGKILL when it has not ended in time. */
async function stopGroup(pid: number): Promise<void> {
  for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
    if (!signalGroup(pid, signal)) return;
    const deadline = Date.now() + EXIT_WAIT_MS;
    while (Date.now() < deadline) {
      if (!signalGroup(pid, 0)) return;
      await sleep(100);
    }
  }
}

/** A loopback port free just now (bound, then released) for the served adapter. */
export async function freeLoopbackPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
