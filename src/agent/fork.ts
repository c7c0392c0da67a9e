/**
 * Forking an episode (docs/episodes.md#fork-an-episode): "what if the model had not done that?". The
 * environment is deterministic given the actions, so a recorded episode is replayed up to turn K (its
 * recorded decisions, checked view by view against the recorded image hashes), and from turn K on
 * another policy plays live: a model seeded so that its turn-K request is the one recorded, or a
 * person. The fork is a new record carrying `forked_from` (docs/formats.md). No printing here: the
 * CLI (`geolab episodes fork`) and the TUI both call this.
 */
import { isCompleted, type CompletedEpisode, type EpisodeRecord, type FailedEpisode, type Turn } from '../core/episode.js';
import { EXIT, GeolabError, InputError, UsageError } from '../core/errors.js';
import type { EnvClient } from '../env/client/types.js';
import type { Action, Observation, StepResult } from '../env/types.js';
import type { NamedEpisode } from '../store/episode-refs.js';
import { readImage, sha256Hex, sniffImageMime } from '../store/images.js';
import type { Workspace } from '../store/index.js';
import { DEFAULT_IMAGE_SIZE_PX } from './agent-settings.js';
import type { Protocol } from './policies/model.js';
import { actionFromObject } from './protocols/json.js';
import type { ToolSet } from './protocols/tools.js';
import { DEFAULT_MAX_TURNS, runEpisode } from './runner.js';
import type { EpisodeSink, HarnessAction, Policy, PolicyContext, PolicyDecision, RecordedMessage, ResumeSeed, RunnerEvent, RunOptions, TurnModelInfo } from './types.js';

/** The view the environment returns now is not the one recorded: the fork would not be a fork. */
export class EnvironmentChangedError extends GeolabError {
  constructor(
    readonly turn: number,
    readonly recorded: string,
    readonly now: string | null,
  ) {
    super(
      `the environment changed since this was recorded: turn ${turn}'s view differs (recorded ${recorded.slice(0, 12)}, now ${now ? now.slice(0, 12) : 'no image'})`,
      EXIT.problemFound,
    );
  }
}

/** The record's top-level `forked_from` (docs/formats.md#episode-record). */
export interface ForkedFrom {
  episode_id: string;
  turn: number;
}

export interface ForkPlan {
  record: CompletedEpisode;
  /** K: the first turn played live. */
  turn: number;
  /** The recorded turns 1..K-1, replayed as they were. */
  replayed: Turn[];
  /** How messages name the original (`runs/x/episodes.jsonl:3`, or its id's first 8 characters). */
  label: string;
}

/** Checks that the episode can be forked at `turn` (1 to its last turn), and which turns are replayed. */
export function planFork(named: NamedEpisode, turn: number): ForkPlan {
  const { record, label } = named;
  if (!isCompleted(record)) throw new UsageError(`episode ${label} failed (${String(record.error)}): only a finished episode can be forked`);
  const played = record.turns.filter((t) => t.turn >= 1).sort((a, b) => a.turn - b.turn);
  const last = played.at(-1)?.turn ?? 0;
  if (last === 0) throw new UsageError(`episode ${label} has no turns after the reset: nothing to fork`);
  if (!Number.isInteger(turn) || turn < 1 || turn > last) {
    throw new UsageError(`turn ${turn} cannot be forked at: episode ${label} has turns 1 to ${last}`);
  }
  const replayed = played.filter((t) => t.turn < turn);
  replayed.forEach((t, i) => {
    if (t.turn !== i + 1) throw new InputError(`episode ${label}: turn ${i + 1} is missing from the record, so it cannot be replayed`);
  });
  if (!record.turns.some((t) => t.turn === 0)) throw new InputError(`episode ${label}: turn 0 (the reset) is missing from the record`);
  return { record, turn, replayed, label };
}

/**
 * The policy of a fork: plays the recorded decisions of turns 1..K-1 (action, model block, messages),
 * checks each view the environment returns against the record, then hands turn K on to `next`,
 * seeded with the episode so far (Policy.resume). Its name and identity are `next`'s: the record is
 * of the policy that plays on.
 */
export class ForkPolicy implements Policy {
  /** Set when a view differed; the run then fails and forkEpisode throws it. */
  environmentChanged: EnvironmentChangedError | null = null;
  /** Whether turn K was reached (handed to `next`). */
  handedOver = false;
  private latestImage: { observation: Observation; turn: number } | null = null;
  private replaying = 0;

  constructor(
    readonly plan: ForkPlan,
    private readonly ws: Workspace,
    readonly next: Policy,
  ) {}

  get name(): string {
    return this.next.name;
  }

  get identity(): Record<string, unknown> {
    return this.next.identity;
  }

  async begin(first: StepResult): Promise<void> {
    this.check(0, first.observation);
    await this.next.begin?.(first);
  }

  async decide(context: PolicyContext): Promise<PolicyDecision> {
    if (context.turn < this.plan.turn) {
      this.replaying = context.turn;
      return this.replay(this.plan.replayed[context.turn - 1]!);
    }
    if (!this.handedOver) {
      this.handedOver = true;
      await this.next.resume?.(this.seed());
    }
    return this.next.decide(context);
  }

  observe(result: StepResult, decision: PolicyDecision): void {
    if (!this.handedOver) {
      this.check(this.replaying, result.observation);
      return;
    }
    this.next.observe?.(result, decision);
  }

  /** The recorded decision of a turn, as the runner records it again. */
  private replay(turn: Turn): PolicyDecision {
    const action = recordedAction(turn);
    const messages = (Array.isArray(turn.messages) ? turn.messages : []) as RecordedMessage[];
    return {
      action,
      ...(turn.action ? { harnessAction: turn.action as HarnessAction } : {}),
      status: statusOf(turn, action),
      ...(action ? {} : { note: turn.feedback ?? 'The reply held no usable action.' }),
      // The recorded block as it was (the runner copies it into the new record unchanged).
      ...(turn.model ? { model: turn.model as TurnModelInfo } : {}),
      messages,
      images: storedImages(this.ws, messages, false),
      ...(turn.prompt ? { prompt: turn.prompt } : {}),
    };
  }

  /** Compares the view the environment returned at `turn` with the recorded one, when there is one. */
  private check(turn: number, observation: Observation): void {
    const recorded = (turn === 0 ? this.plan.record.turns.find((t) => t.turn === 0) : this.plan.replayed[turn - 1])?.image_sha256;
    const now = observation.image_base64 ? sha256Hex(Buffer.from(observation.image_base64, 'base64')) : null;
    if (now && observation.image_kind !== 'none') this.latestImage = { observation, turn };
    if (!recorded || recorded === now) return;
    this.environmentChanged = new EnvironmentChangedError(turn, recorded, now);
    throw this.environmentChanged;
  }

  private seed(): ResumeSeed {
    const turn = this.plan.record.turns.find((t) => t.turn === this.plan.turn);
    const messages = (Array.isArray(turn?.messages) ? turn.messages : []) as RecordedMessage[];
    return {
      turn: this.plan.turn,
      protocol: recordedProtocol(this.plan.record),
      messages,
      images: this.next.identity.protocol === 'tools' ? storedImages(this.ws, messages, true) : new Map(),
      latestImage: this.latestImage,
    };
  }
}

export function forkPolicy(plan: ForkPlan, ws: Workspace, next: Policy): ForkPolicy {
  return new ForkPolicy(plan, ws, next);
}

export interface ForkOptions {
  ws: Workspace;
  plan: ForkPlan;
  /** The policy that plays on from turn K: a model, or a person (HumanPolicy). */
  next: Policy;
  /** The environment, reset at the record's task by the runner. */
  client: EnvClient;
  sink?: EpisodeSink;
  onEvent?: (e: RunnerEvent) => void;
  signal?: AbortSignal;
  /** The harness config of the fork's record; default: the original's. */
  config?: Record<string, unknown>;
}

/**
 * The fork as runner options, for a caller that runs the episode itself (the TUI's Live screen owns
 * the events and the abort): the sink adds `forked_from` and records nothing once a view differed;
 * `policy.environmentChanged` then says why the run failed.
 */
export function forkRun(options: Omit<ForkOptions, 'onEvent' | 'signal'>): { run: RunOptions; policy: ForkPolicy; forkedFrom: ForkedFrom } {
  const { plan, ws, next, sink } = options;
  checkResumable(plan, ws, next);
  const policy = forkPolicy(plan, ws, next);
  const forkedFrom: ForkedFrom = { episode_id: plan.record.episode_id, turn: plan.turn };
  const { split, index, sample, ...task } = plan.record.task;
  const config = options.config ?? plan.record.config ?? {};
  const maxTurns = typeof config.max_turns === 'number' ? config.max_turns : DEFAULT_MAX_TURNS;
  const run: RunOptions = {
    client: options.client,
    policy,
    split,
    index,
    sample: typeof sample === 'number' ? sample : 0,
    task,
    maxTurns,
    config,
    sink: sink && { write: async (record, images) => (policy.environmentChanged ? undefined : sink.write(markFork(record, forkedFrom), images)) },
  };
  return { run, policy, forkedFrom };
}

/** The record with its `forked_from`. */
export function markFork<T extends EpisodeRecord>(record: T, forkedFrom: ForkedFrom): T {
  return { ...record, forked_from: forkedFrom };
}

/**
 * Plays the fork. A view that differs from the record throws EnvironmentChangedError and records
 * nothing (neither the sink nor a `finished` event hears of it); otherwise the record, completed or
 * failed, carries `forked_from` and goes to the sink.
 */
export async function forkEpisode(options: ForkOptions): Promise<CompletedEpisode | FailedEpisode> {
  const { run, policy, forkedFrom } = forkRun(options);
  const { onEvent } = options;
  const record = await runEpisode({
    ...run,
    signal: options.signal,
    onEvent: (event) => {
      if (event.type !== 'finished') return onEvent?.(event);
      if (!policy.environmentChanged) onEvent?.({ type: 'finished', record: markFork(event.record, forkedFrom) });
    },
  });
  if (policy.environmentChanged) throw policy.environmentChanged;
  return markFork(record, forkedFrom);
}

/**
 * What must hold before a fork starts: a native-tools model resumes from turn K's recorded
 * native-tools request, whose images must be in the workspace's store.
 */
function checkResumable(plan: ForkPlan, ws: Workspace, next: Policy): void {
  if (next.identity.protocol !== 'tools') return;
  const protocol = recordedProtocol(plan.record);
  if (protocol !== 'tools') {
    throw new UsageError(
      `episode ${plan.label} was played with the ${protocol ?? 'json'} protocol: a native-tools model cannot take over its transcript; play on with the json protocol`,
    );
  }
  const turn = plan.record.turns.find((t) => t.turn === plan.turn);
  if (!Array.isArray(turn?.messages) || turn.messages.length === 0) {
    throw new InputError(`episode ${plan.label}: turn ${plan.turn} has no recorded request (turn.messages) to resume the conversation from`);
  }
  storedImages(ws, turn.messages as RecordedMessage[], true);
}

/** The protocol the record's requests were built by: the model block's, else the config's; null when neither says. */
function recordedProtocol(record: EpisodeRecord): string | null {
  const protocol = (record.model as Record<string, unknown> | null | undefined)?.protocol ?? record.config?.protocol;
  return typeof protocol === 'string' ? protocol : null;
}

/**
 * The wire action a recorded turn executed: geolab's `wire_action`, else (a record of the public
 * harness, which keeps only the action it read) its harness action read the way the JSON protocol
 * reads a reply's action object. Null for a turn that executed nothing.
 */
export function recordedAction(turn: Turn): Action | null {
  if (turn.wire_action) return turn.wire_action as unknown as Action;
  if ((turn.status ?? 'ok') !== 'ok' || !turn.action) return null;
  const reading = actionFromObject(turn.action);
  return reading.ok ? reading.action : null;
}

function statusOf(turn: Turn, action: Action | null): PolicyDecision['status'] {
  const status = turn.status;
  if (status === 'ok' || status === 'unparseable' || status === 'provider_error') return status;
  return action ? 'ok' : 'unparseable';
}

/**
 * The images `messages` reference, from the workspace's store. `required`: a missing one is an error
 * naming it (a seeded transcript cannot be sent without it); otherwise it is left out.
 */
function storedImages(ws: Workspace, messages: RecordedMessage[], required: boolean): Map<string, { bytes: Buffer; mime: string }> {
  const images = new Map<string, { bytes: Buffer; mime: string }>();
  for (const message of messages) {
    if (typeof message.content === 'string' || !Array.isArray(message.content)) continue;
    for (const part of message.content) {
      if (part.type !== 'image' || images.has(part.sha256)) continue;
      const bytes = readImage(ws, part.sha256);
      if (!bytes) {
        if (!required) continue;
        throw new InputError(
          `image ${part.sha256} of the recorded request is not in the workspace's image store: import the run folder the episode was recorded in (\`geolab episodes import DIR\`) and fork it again`,
        );
      }
      images.set(part.sha256, { bytes, mime: sniffImageMime(bytes) ?? part.mime });
    }
  }
  return images;
}

/**
 * How the original asked its model: the protocol, tools and image size it recorded, so that the
 * request at turn K is the one it sent. A record of the public harness (no protocol) played JSON.
 */
export function recordedSettings(record: EpisodeRecord): { protocol: Protocol; tools?: ToolSet; imageSizePx: number } {
  const model = (record.model ?? {}) as Record<string, unknown>;
  const config = (record.config ?? {}) as Record<string, unknown>;
  const protocol: Protocol = (model.protocol ?? config.protocol) === 'tools' ? 'tools' : 'json';
  const tools = model.tools ?? config.tools;
  const size = model.image_size ?? config.image_size;
  return {
    protocol,
    ...(protocol === 'tools' && (tools === 'trained' || tools === 'all') ? { tools } : {}),
    imageSizePx: typeof size === 'number' && Number.isInteger(size) && size > 0 ? size : DEFAULT_IMAGE_SIZE_PX,
  };
}

/** The fork's harness config: the original's turn limit, and how the fork plays on. */
export function forkConfig(record: EpisodeRecord, settings: ReturnType<typeof recordedSettings>, policy: 'model' | 'human'): Record<string, unknown> {
  const { base_url: _ignored, ...original } = (record.config ?? {}) as Record<string, unknown>;
  return {
    ...original,
    mode: 'agentic',
    policy,
    ...(policy === 'model' ? { protocol: settings.protocol, image_size: settings.imageSizePx, ...(settings.tools ? { tools: settings.tools } : {}) } : {}),
  };
}
