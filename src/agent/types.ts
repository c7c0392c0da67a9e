/**
 * The agent's contract: a policy chooses actions, the runner plays them against an environment
 * client and emits events as they happen, and a sink records finished episodes. The recorded
 * shapes are the public harness's schema v2 (src/core/episode.ts).
 */
import type { CompletedEpisode, FailedEpisode, Turn } from '../core/episode.js';
import type { EnvClient } from '../env/client/types.js';
import type { Action, Observation, StepResult } from '../env/types.js';

/** An action as the harness records it: {"action": "look", "heading_deg": 90} (not the wire `op`). */
export type HarnessAction = { action: string } & Record<string, unknown>;

/**
 * One message as sent to a model, recorded with images referenced by content hash (never inline
 * base64): what the leak audit reads later.
 */
export interface RecordedMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | RecordedPart[];
  tool_calls?: unknown[];
  tool_call_id?: string;
  name?: string;
}

export type RecordedPart = { type: 'text'; text: string } | { type: 'image'; sha256: string; mime: string };

/** What the model side of one turn did (docs/formats.md turn.model, the harness's names). */
export interface TurnModelInfo {
  /** The reply's text (empty when the model only called tools). */
  reply?: string | null;
  /** Native tool calls, as the model sent them. */
  tool_calls?: unknown[];
  reasoning?: string | null;
  finish_reason?: string | null;
  tokens?: { input?: number; output?: number; total?: number; reasoning?: number } | null;
  latency_s?: number | null;
  attempts?: number;
  errors?: string[];
}

export interface PolicyContext {
  /** 1-based number of the turn about to be played. */
  turn: number;
  maxTurns: number;
  /** Turns left including this one. */
  turnsLeft: number;
  /** The latest observation (its image included). */
  observation: Observation;
  /** Turns recorded so far (turn 0 is the reset). */
  history: readonly Turn[];
  /** True on the extra turn at the limit: only `guess` is allowed. */
  forced: boolean;
  signal: AbortSignal;
}

export interface PolicyDecision {
  /** The wire action to execute; null when the reply held no usable action (costs the turn). */
  action: Action | null;
  /**
   * The action as the model sent it, in harness form (recorded as turn.action), also when it could
   * not be used; the runner records `action` itself as turn.wire_action.
   */
  harnessAction?: HarnessAction;
  /** `ok`, `unparseable` or `provider_error` (recorded as turn.status). */
  status: 'ok' | 'unparseable' | 'provider_error';
  /** Why there is no action (what the reply lacked, how the request failed): the turn's feedback. */
  note?: string;
  model?: TurnModelInfo;
  /** Every message of the request, images by hash, for the audit. */
  messages?: RecordedMessage[];
  /** Images sent in `messages`, by sha256, so the recorder can store them once. */
  images?: ReadonlyMap<string, { bytes: Buffer; mime: string }>;
  /** The request's main user text (turn.prompt). */
  prompt?: string;
  /** sha256 of the request's canonical form (turn.request_sha256, src/agent/retry.ts). */
  requestSha256?: string;
}

export interface Policy {
  /** model_name of the records. */
  readonly name: string;
  /** The record's `model` block: provider, model, base_url, temperature, max_tokens, ... (no secrets). */
  readonly identity: Record<string, unknown>;
  /** Called once after reset with the opening observation. */
  begin?(first: StepResult): Promise<void> | void;
  decide(context: PolicyContext): Promise<PolicyDecision>;
  /** Called with the result of each executed decision, for policies that keep a transcript. */
  observe?(result: StepResult, decision: PolicyDecision): void;
  /**
   * Called once, before the first decide, when the policy takes over a recorded episode at a turn
   * (a fork, src/agent/fork.ts): what it would know had it played the turns before. A policy without
   * state (a person, a baseline) needs none.
   */
  resume?(seed: ResumeSeed): Promise<void> | void;
}

/** What a policy taking over a recorded episode at turn `turn` is seeded with. */
export interface ResumeSeed {
  /** The turn the policy plays first. */
  turn: number;
  /** The protocol the record's requests were built by (`tools`, `json`), when it says. */
  protocol: string | null;
  /** The recorded request of that turn, images by hash: the native-tools transcript it sent. */
  messages: RecordedMessage[];
  /** The images `messages` reference, by sha256 (from the workspace's image store). */
  images: ReadonlyMap<string, { bytes: Buffer; mime: string }>;
  /** The latest observation that carried an image, and the turn that returned it (0: the reset). */
  latestImage: { observation: Observation; turn: number } | null;
}

export type RunnerEvent =
  | { type: 'started'; episodeId: string; split: string; index: number; observation: Observation }
  | { type: 'thinking'; turn: number }
  | { type: 'turn'; turn: Turn; image: Buffer | null; observation: Observation }
  | { type: 'finished'; record: CompletedEpisode | FailedEpisode };

/** Where finished episodes go: the workspace recorder, a JSONL file, or both. */
export interface EpisodeSink {
  write(record: CompletedEpisode | FailedEpisode, images: ReadonlyMap<string, { bytes: Buffer; mime: string }>): Promise<void>;
}

export interface RunOptions {
  client: EnvClient;
  policy: Policy;
  split: string;
  index: number;
  sample?: number;
  /** Task fields the caller knows beyond what the environment reports (attribution, ...), for the record's `task`. */
  task?: Record<string, unknown>;
  maxTurns?: number;
  /** Harness config recorded on the episode (mode, prompt_version, ...). */
  config?: Record<string, unknown>;
  sink?: EpisodeSink;
  onEvent?: (event: RunnerEvent) => void;
  signal?: AbortSignal;
}
