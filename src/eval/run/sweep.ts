/**
 * The sweep's scheduler: every arm plays its work list with its own workers (the arm's concurrency
 * per replica), each episode once the machine's throttle lets it start (throttle.ts), on the least
 * busy replica of the model and of the environment. An episode that a replica fails (the model
 * endpoint or the environment server is gone) takes that replica out and is played again on
 * another, rather than recorded failed; when no replica is left the episode is recorded as a
 * failure naming them. A model endpoint counts as failed both when it is
 * gone and when it answers nothing usable (no request of an episode got a reply after retries). On
 * interrupt no new episode starts, and those in flight end as aborted.
 */
import { harnessConfig } from '../../agent/agent-run.js';
import { modelSettings } from '../../agent/agent-settings.js';
import { EndpointGoneError, type Endpoint } from '../../agent/openai.js';
import { createModelPolicy, type Protocol } from '../../agent/policies/model.js';
import type { PromptTemplate } from '../../agent/protocols/template.js';
import type { ToolSet } from '../../agent/protocols/tools.js';
import { runEpisode } from '../../agent/runner.js';
import type { GuardKnowledge } from '../../agent/leak-guard.js';
import type { EpisodeSink, Policy } from '../../agent/types.js';
import { EPISODE_SCHEMA_VERSION, isCompleted, type EpisodeRecord, type FailedEpisode } from '../../core/episode.js';
import { ServiceError } from '../../core/errors.js';
import type { EnvClient } from '../../env/client/types.js';
import { randomUUID } from 'node:crypto';
import type { EndpointPool } from './endpoints.js';
import type { ModelSpec } from '../../agent/models-file.js';
import type { WorkItem } from './plan.js';
import type { Throttle } from './throttle.js';

export interface SweepArm {
  spec: ModelSpec;
  promptVersion: string;
  /** The model endpoint less its URL (a replica's): key, token cap, retries, timeouts. */
  endpoint: Omit<Endpoint, 'baseUrl'>;
  pool: EndpointPool;
  /** Episodes of this arm in flight at once, at most (the sweep's throttle may allow fewer). */
  workers: number;
}

/** An environment opened at one task: the client, what the leak guard may know, the record's task fields. */
export interface OpenedTask {
  client: EnvClient;
  guard: GuardKnowledge;
  task: Record<string, unknown>;
  close(): Promise<void>;
}

export interface SweepEnvironment {
  /** Environment servers; null for the embedded environment, which cannot be gone. */
  pool: EndpointPool | null;
  /** The side of the views the embedded environment draws, kept in each record's config as `view_size` (replay draws them again at it). */
  viewSizePx?: number;
  /** The longer side of the maps it draws as the model gets them, kept as `map_size` (replay draws them so again). */
  mapSizePx?: number;
  open(url: string | null, split: string, index: number): Promise<OpenedTask>;
}

export interface SweepInput {
  arms: readonly SweepArm[];
  work: readonly WorkItem[];
  environment: SweepEnvironment;
  protocol: Protocol;
  tools: ToolSet;
  maxTurns: number;
  imageSizePx: number;
  prompt?: PromptTemplate;
  /** Where an episode's record goes (its run folder's recorder). */
  sinkFor(item: WorkItem): EpisodeSink;
  signal: AbortSignal;
  /** The machine's limit on episodes in flight across the arms (none: each arm's workers). */
  throttle?: Pick<Throttle, 'acquire' | 'release'>;
  /** After each record is written. */
  onRecorded?(item: WorkItem, record: EpisodeRecord): void;
  /**
   * Every episode played, its record kept or not (one a replica failed, played again elsewhere): what
   * it cost in retries and provider errors happened either way. `unrecordedRetries`: those of the
   * request that failed the episode (an endpoint gone), which no turn of the record holds.
   */
  onPlayed?(item: WorkItem, record: EpisodeRecord, unrecordedRetries: number): void;
  /** A replica failed and is out for a while (its episode is played again elsewhere when it can be). */
  onReplicaOut?(url: string, error: string): void;
}

export interface SweepResult {
  /** Services with no replica left, each named once with its error (exit 3). */
  gone: string[];
}

/** Messages of the services an episode was recorded failed for, one per replica or pool. */
type Gone = Map<string, string>;

export async function runSweep(input: SweepInput): Promise<SweepResult> {
  const gone: Gone = new Map();
  await Promise.all(
    input.arms.map((arm) => {
      const queue = input.work.filter((item) => item.model === arm.spec.name);
      const worker = async () => {
        for (let item = queue.shift(); item && !input.signal.aborted; item = queue.shift()) {
          try {
            await input.throttle?.acquire(input.signal);
          } catch {
            return; // interrupted while waiting: never started
          }
          try {
            await playItem(input, arm, item, gone);
          } finally {
            input.throttle?.release();
          }
        }
      };
      return Promise.all(Array.from({ length: Math.max(1, Math.min(arm.workers, queue.length)) }, worker));
    }),
  );
  return { gone: [...gone.values()] };
}

/** A record to write (with the replica it names as gone, if any), or an episode to play again elsewhere. */
type Attempt = { record: EpisodeRecord; images: ReadonlyMap<string, { bytes: Buffer; mime: string }>; gone?: { url: string; of: string } } | { retry: true };

/** Episodes played again on another replica at most this many times past the replicas there are. */
const EXTRA_ATTEMPTS = 2;

async function playItem(input: SweepInput, arm: SweepArm, item: WorkItem, gone: Gone): Promise<void> {
  const envPool = input.environment.pool;
  const maxAttempts = arm.pool.urls.length + (envPool?.urls.length ?? 1) + EXTRA_ATTEMPTS;
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    let modelUrl: string | null;
    try {
      modelUrl = await arm.pool.acquire(input.signal);
    } catch {
      return; // interrupted while waiting: never started
    }
    if (modelUrl === null) return write(input, item, goneRecord(arm, item, `the model endpoint${plural(arm.pool.urls)} of ${arm.spec.name}`, arm.pool, gone, `model:${arm.spec.name}`));
    let envUrl: string | null = null;
    try {
      if (envPool) {
        try {
          envUrl = await envPool.acquire(input.signal);
        } catch {
          return;
        }
        if (envUrl === null) return write(input, item, goneRecord(arm, item, `the environment server${plural(envPool.urls)}`, envPool, gone, 'environment'));
      }
      const result = await attemptItem(input, arm, item, modelUrl, envUrl, attempt === maxAttempts);
      if ('retry' in result) continue;
      const record = result.record;
      if (!isCompleted(record) && record.failure === 'unreachable') {
        // Once per replica, whichever of its episodes failed first; the model's name on a model endpoint.
        const key = result.gone?.url ?? String(record.error);
        if (!gone.has(key)) gone.set(key, `${result.gone?.of ?? ''}${String(record.error)}`);
      }
      return write(input, item, result.record, result.images);
    } finally {
      arm.pool.release(modelUrl);
      if (envUrl !== null) envPool?.release(envUrl);
    }
  }
}

async function attemptItem(input: SweepInput, arm: SweepArm, item: WorkItem, modelUrl: string, envUrl: string | null, last: boolean): Promise<Attempt> {
  const envPool = input.environment.pool;
  let envGone: string | null = null;
  let modelGone: string | null = null;
  let unrecordedRetries = 0;
  let opened: OpenedTask;
  try {
    opened = await input.environment.open(envUrl, item.split, item.index);
  } catch (err) {
    if (!(err instanceof ServiceError) || envUrl === null) throw err;
    envPool?.failed(envUrl, err.message);
    input.onReplicaOut?.(envUrl, err.message);
    if (!last && envPool?.alive()) return { retry: true };
    return { record: failedRecord(arm, item, err.message, 'unreachable', { base_url: envUrl }), images: new Map(), gone: { url: envUrl, of: '' } };
  }
  try {
    const endpoint: Endpoint = { ...arm.endpoint, baseUrl: modelUrl };
    const settings = { ...modelSettings(endpoint, { protocol: input.protocol, split: item.split, index: item.index }), tools: input.tools, maxTurns: input.maxTurns, imageSizePx: input.imageSizePx, prompt: input.prompt };
    const policy = createModelPolicy({
      endpoint,
      protocol: input.protocol,
      tools: input.tools,
      imageSizePx: input.imageSizePx,
      guard: opened.guard,
      prompt: input.prompt,
      name: arm.spec.name,
      ...(arm.spec.thinking !== undefined ? { identity: { thinking: arm.spec.thinking } } : {}),
    });
    let images: ReadonlyMap<string, { bytes: Buffer; mime: string }> = new Map();
    const record = await runEpisode({
      client: watchedClient(opened.client, (message) => (envGone = message)),
      policy: watchedPolicy(policy, (err) => {
        modelGone = err.message;
        unrecordedRetries += Math.max(0, err.attempts - 1);
      }),
      split: item.split,
      index: item.index,
      sample: item.sample,
      task: opened.task,
      maxTurns: input.maxTurns,
      config: { ...harnessConfig(settings, opened.client.location), ...drawnSizes(input.environment) },
      signal: input.signal,
      sink: { write: async (_record, kept) => void (images = kept) },
    });
    input.onPlayed?.(item, record, unrecordedRetries);
    if (isCompleted(record)) {
      arm.pool.succeeded(modelUrl);
      if (envUrl !== null) envPool?.succeeded(envUrl);
    } else if (!input.signal.aborted && (modelGone !== null || envGone !== null)) {
      const pool = modelGone !== null ? arm.pool : envPool;
      const url = modelGone !== null ? modelUrl : envUrl;
      if (pool && url !== null) {
        pool.failed(url, (modelGone ?? envGone)!);
        input.onReplicaOut?.(url, (modelGone ?? envGone)!);
        if (!last && pool.alive()) return { retry: true };
        return { record, images, gone: { url, of: modelGone !== null ? `${arm.spec.name}: ` : '' } };
      }
    }
    return { record, images };
  } finally {
    await opened.close();
  }
}

async function write(input: SweepInput, item: WorkItem, record: EpisodeRecord, images: ReadonlyMap<string, { bytes: Buffer; mime: string }> = new Map()): Promise<void> {
  await input.sinkFor(item).write(record, images);
  input.onRecorded?.(item, record);
}

/** The failed record of an episode no replica was left to play; its error names every replica. */
function goneRecord(arm: SweepArm, item: WorkItem, what: string, pool: EndpointPool, gone: Gone, key: string): FailedEpisode {
  const replicas = pool.gone().map((r) => `${r.url} (${r.error})`);
  const error = `${what} ${pool.urls.length === 1 ? 'is' : 'are'} gone: ${replicas.join('; ') || pool.urls.join(', ')}`;
  // Said once: by this pool's name, unless each of its replicas was already named by its own failure.
  if (!gone.has(key) && !pool.urls.every((url) => gone.has(url))) gone.set(key, error);
  return failedRecord(arm, item, error, 'unreachable');
}

function failedRecord(arm: SweepArm, item: WorkItem, error: string, failure: FailedEpisode['failure'], config: Record<string, unknown> = {}): FailedEpisode {
  return {
    schema_version: EPISODE_SCHEMA_VERSION,
    episode_id: randomUUID(),
    recorded_at: new Date().toISOString(),
    model_name: arm.spec.name,
    model: { provider: arm.spec.provider === 'anthropic' ? 'anthropic' : 'openai-compatible', model: arm.spec.model },
    task: { split: item.split, index: item.index, sample: item.sample },
    config: { mode: 'agentic', prompt_version: arm.promptVersion, ...config },
    error,
    failure,
    traceback: null,
  };
}

function plural(urls: readonly string[]): string {
  return urls.length === 1 ? '' : 's';
}

/** The policy as it is, telling when its model endpoint is gone. */
function watchedPolicy(policy: Policy, onGone: (err: EndpointGoneError) => void): Policy {
  return {
    name: policy.name,
    identity: policy.identity,
    begin: policy.begin?.bind(policy),
    observe: policy.observe?.bind(policy),
    async decide(context) {
      try {
        return await policy.decide(context);
      } catch (err) {
        if (err instanceof EndpointGoneError) onGone(err);
        throw err;
      }
    },
  };
}

/** The client as it is, telling when its server is gone (a remote one's connection). */
function watchedClient(client: EnvClient, onGone: (message: string) => void): EnvClient {
  const watch = async <T>(call: Promise<T>): Promise<T> => {
    try {
      return await call;
    } catch (err) {
      if (err instanceof ServiceError) onGone(err.message);
      throw err;
    }
  };
  return {
    kind: client.kind,
    location: client.location,
    reset: (request) => watch(client.reset(request)),
    step: (action) => watch(client.step(action)),
    state: () => client.state(),
    mcp: (request) => client.mcp(request),
    splits: () => client.splits(),
    close: () => client.close(),
  };
}

/** The sizes the embedded environment drew its images at, for the record's config (replay draws them again so). */
function drawnSizes({ viewSizePx, mapSizePx }: SweepEnvironment): { view_size?: number; map_size?: number } {
  return { ...(viewSizePx ? { view_size: viewSizePx } : {}), ...(mapSizePx ? { map_size: mapSizePx } : {}) };
}
