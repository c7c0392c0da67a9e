/**
 * A fork made ready to play (docs/episodes.md#fork-an-episode): the episode named and planned, the
 * environment it was recorded on opened at its task, the policy that plays on from turn K (a model
 * asked the way the original asked, or a person), and the recorder of a fresh `fork-<time>` run.
 * `geolab episodes fork` calls it and then plays the fork headless or on the Live screen; a caller
 * that opens the environment on its own terms can use src/agent/fork.ts directly.
 */
import type { Workspace } from '../store/index.js';
import { oneEpisode } from '../store/episode-refs.js';
import { openEnvironment, type OpenedEnvironment } from './agent-run.js';
import { forkConfig, planFork, recordedSettings, type ForkPlan } from './fork.js';
import type { Endpoint, ServedModel } from './openai.js';
import { HumanPolicy } from './policies/human.js';
import { createModelPolicy } from './policies/model.js';
import { createRecorder, newRunId, type Recorder } from './recorder.js';
import type { Policy } from './types.js';

/** The model that plays on, its endpoint already checked. */
export interface ForkModel {
  endpoint: Endpoint;
  served?: ServedModel;
  /** model_name of the fork's record. */
  name?: string;
  /** A models file's thinking setting, kept in the record's model block. */
  thinking?: unknown;
}

export interface ForkSessionOptions {
  /** The episode: a workspace id or FILE[:LINE]. */
  ref: string;
  /** The first turn played live. */
  turn: number;
  /** A remote environment server; default: the embedded one over the workspace's splits. */
  envUrl?: string;
  /** Null: a person plays on (HumanPolicy). */
  model: ForkModel | null;
}

export interface ForkSession {
  plan: ForkPlan;
  environment: OpenedEnvironment;
  /** The policy that plays from turn K. */
  next: Policy;
  /** The person's policy when a person plays on (the Live screen takes its keys). */
  human?: HumanPolicy;
  /** The fork's harness config, as recorded. */
  config: Record<string, unknown>;
  sink: Recorder;
}

/** The fork ready to play; the caller closes `environment` when done (it is closed here if preparing fails). */
export async function openForkSession(ws: Workspace, options: ForkSessionOptions): Promise<ForkSession> {
  return prepareFork(ws, planFork(await oneEpisode(ws, options.ref), options.turn), options);
}

/** openForkSession for a fork already planned (the Player's `F`). */
export async function prepareFork(ws: Workspace, plan: ForkPlan, options: Pick<ForkSessionOptions, 'envUrl' | 'model'>): Promise<ForkSession> {
  const environment = await openEnvironment({ envUrl: options.envUrl, split: plan.record.task.split, index: plan.record.task.index }, ws);
  try {
    const settings = recordedSettings(plan.record);
    const { model } = options;
    const human = model ? undefined : new HumanPolicy();
    const next =
      human ??
      createModelPolicy({
        ...settings,
        endpoint: model!.endpoint,
        served: model!.served,
        guard: environment.guard,
        name: model!.name,
        // A models file's thinking setting, in the record's model block as a sweep writes it.
        ...(model!.thinking !== undefined ? { identity: { thinking: model!.thinking } } : {}),
      });
    const config = forkConfig(plan.record, settings, human ? 'human' : 'model');
    const sink = createRecorder(ws, { runId: `fork-${newRunId()}`, config });
    return { plan, environment, next, human, config, sink };
  } catch (err) {
    await environment.close();
    throw err;
  }
}
