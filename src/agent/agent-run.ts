/**
 * Settings into a run: the environment (embedded over the demo splits, or a remote server), the
 * policy, and the workspace recorder with the harness config. The one place `geolab agent` and the
 * TUI's "Watch a model" both build an episode from, so a watched episode is recorded exactly like
 * one run from the command line.
 */
import { UsageError } from '../core/errors.js';
import type { LatLon } from '../core/geodesy.js';
import { truthOf, type Task } from '../core/tasks.js';
import type { EnvClient } from '../env/client/types.js';
import { EnvError } from '../env/types.js';
import type { Workspace } from '../store/index.js';
import { hashString } from '../core/random.js';
import type { AgentSettings } from './agent-settings.js';
import { taskProblem } from '../env/task-splits.js';
import { knowledgeFromSpec, knowledgeFromTask, type GuardKnowledge } from './leak-guard.js';
import { DEFAULT_MAX_ATTEMPTS, type ServedModel } from './openai.js';
import { fixedPolicy, priorPolicy, randomLandPolicy } from './policies/baselines.js';
import { createModelPolicy, promptVersionOf } from './policies/model.js';
import { createRecorder, type Recorder } from './recorder.js';
import type { Policy, RunOptions } from './types.js';

export interface AgentRun {
  /** The episode for the runner, less the callbacks its caller owns (events, abort). */
  run: RunOptions & { sink: Recorder };
  /** Frees the environment; call once the runner has let go of it. */
  close(): Promise<void>;
}

/**
 * Opens the environment and builds the policy and the recorder. `served` is the endpoint's entry for
 * the model when the caller checked it (checked first: a wrong model should fail in a second).
 */
export async function openAgentRun(settings: AgentSettings, context: { workspace: Workspace; served?: ServedModel }): Promise<AgentRun> {
  const environment = await openEnvironment(settings, context.workspace);
  try {
    const policy = buildPolicy(settings, environment, context.served);
    const config = harnessConfig(settings, environment.client.location);
    return {
      run: {
        client: environment.client,
        policy,
        split: environment.split,
        index: environment.index,
        task: environment.task,
        maxTurns: settings.maxTurns,
        config,
        sink: createRecorder(context.workspace, { config }),
      },
      close: () => environment.close(),
    };
  } catch (err) {
    await environment.close();
    throw err;
  }
}

/** Checks a split and task against the workspace's embedded environment, without starting it. */
export async function embeddedTaskProblem(workspace: Workspace, split: string, index: number | null) {
  const { workspaceSplits, EMBEDDED } = await import('../env/task-splits.js');
  return taskProblem((await workspaceSplits(workspace)).sizes, EMBEDDED, split, index);
}

/**
 * The harness's config, on every record and in the run's run.json: `base_url` is the environment's
 * (the model's endpoint is in the record's `model` block), and geolab's protocol is a key of its own
 * beside the harness's `mode`.
 */
export function harnessConfig(settings: AgentSettings, environmentUrl: string): Record<string, unknown> {
  const { endpoint } = settings;
  return {
    mode: 'agentic',
    ...(endpoint ? { protocol: settings.protocol, prompt_version: promptVersionOf(settings.protocol, settings.prompt) } : {}),
    policy: settings.policy,
    base_url: environmentUrl,
    retries: endpoint ? (endpoint.maxAttempts ?? DEFAULT_MAX_ATTEMPTS) - 1 : 0,
    ...(endpoint && settings.protocol === 'tools' ? { tools: settings.tools } : {}),
    ...(endpoint ? { image_size: settings.imageSizePx } : {}),
  };
}

/** Where an episode is played: a remote server or the embedded one, which split, which task. */
export interface EnvironmentChoice {
  /** A remote environment server; default: the embedded one over the workspace's splits. */
  envUrl?: string;
  /** The embedded environment's panorama cache, over any task set's or the workspace's. */
  panos?: string;
  /** Fetch missing panoramas from Mapillary (the embedded environment; needs a token). */
  fetch?: boolean;
  /** Null: the environment's default split. */
  split: string | null;
  /** Null: a random task of the split. */
  index: number | null;
}

export interface OpenedEnvironment {
  client: EnvClient;
  /** The split played: the one asked for, or the environment's default. */
  split: string;
  /** The task played: the one asked for, or the random pick. */
  index: number;
  /** What the leak guard may know: the whole task when embedded, the Task API's spec when remote. */
  guard: GuardKnowledge;
  /** Task fields for the record beyond what the environment reports. */
  task: Record<string, unknown>;
  /** Start points of the tasks the `prior` baseline averages over (embedded only). */
  priorPoints: { source: string; points: LatLon[] } | null;
  close(): Promise<void>;
}

/**
 * The environment for one episode, with the task chosen and checked (a split it does not serve or
 * an index out of range is a UsageError). Used by agents and by a person playing (`geolab play`).
 */
export async function openEnvironment(choice: EnvironmentChoice, workspace: Workspace): Promise<OpenedEnvironment> {
  if (choice.envUrl) {
    const { RemoteEnvClient } = await import('../env/client/remote.js');
    const client = new RemoteEnvClient(choice.envUrl);
    try {
      const { split, size } = await remoteSplit(client, choice.split, choice.index);
      const index = choice.index ?? randomIndex(size);
      let spec: Record<string, unknown>;
      try {
        spec = await client.task(split, index);
      } catch (err) {
        if (err instanceof EnvError) throw new UsageError(`split ${split}, task ${index}: ${err.message}`);
        throw err;
      }
      return {
        client,
        split,
        index,
        guard: knowledgeFromSpec(spec),
        task: { task_id: spec.task_id ?? null, sequence_id: spec.sequence_id ?? null },
        priorPoints: null,
        close: () => client.close(),
      };
    } catch (err) {
      await client.close();
      throw err;
    }
  }
  const [chosen, { createEnvironment }, { EmbeddedEnvClient }] = await Promise.all([
    import('../env/task-splits.js').then(({ chooseEmbeddedTask }) => chooseEmbeddedTask(choice, workspace)),
    import('../env/environment.js'),
    import('../env/client/embedded.js'),
  ]);
  const { split, index, fetcher } = chosen;
  const priorSplit = chosen.sizes.has('train') ? 'train' : split;
  const { splits, panoramas, demo } = chosen.load([split, priorSplit]);
  const task = splits.get(split)![index]!;
  // One episode at a time: rendering on this thread beats starting worker threads.
  const env = createEnvironment({ splits, panoramasDir: workspace.paths.panoramas, splitPanoramas: panoramas, demo, fetcher, workers: 0 });
  return {
    client: new EmbeddedEnvClient(env),
    split,
    index,
    guard: knowledgeFromTask(task),
    task: recordedTask(task),
    priorPoints: { source: `${priorSplit} split`, points: (splits.get(priorSplit) ?? []).map(truthOf) },
    close: () => env.close(),
  };
}

/**
 * The split asked for (null: the server's default) and its size, or a UsageError naming what the
 * server serves or, for an index asked for, the tasks the split has.
 */
async function remoteSplit(client: EnvClient, asked: string | null, index: number | null): Promise<{ split: string; size: number }> {
  const infos = await client.splits();
  const chosen = asked ?? (infos.find((s) => s.default) ?? infos[0])?.name ?? '';
  const sizes = new Map(infos.map((s) => [s.name, s.num_tasks]));
  const problem = taskProblem(sizes, client.location, chosen, index);
  if (problem) throw new UsageError(problem.message);
  return { split: chosen, size: sizes.get(chosen)! };
}

function randomIndex(size: number): number {
  return Math.floor(Math.random() * size);
}

/** The task fields a record keeps beyond what the environment reports. */
export function recordedTask(task: Task): Record<string, unknown> {
  return { task_id: task.task_id, country: task.country ?? null, sequence_id: task.sequence_id ?? null, attribution: task.attribution ?? null };
}

function buildPolicy(settings: AgentSettings, environment: OpenedEnvironment, served: ServedModel | undefined): Policy {
  if (settings.endpoint) {
    return createModelPolicy({
      endpoint: settings.endpoint,
      protocol: settings.protocol,
      tools: settings.tools,
      imageSizePx: settings.imageSizePx,
      guard: environment.guard,
      served,
      prompt: settings.prompt,
    });
  }
  switch (settings.policy) {
    case 'fixed':
      if (!settings.point) throw new UsageError('the fixed baseline needs a point (LAT,LON)');
      return fixedPolicy(settings.point);
    case 'prior':
      if (!environment.priorPoints) throw new UsageError('the prior baseline needs the task files: run it against the embedded environment');
      return priorPolicy(environment.priorPoints.points, environment.priorPoints.source);
    default:
      return randomLandPolicy(settings.seed ?? hashString(`${settings.split}:${environment.index}`));
  }
}
