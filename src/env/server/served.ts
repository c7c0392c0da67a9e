/** What the server's parts (HTTP, WebSocket, Task API) share: the environment they serve, and error shaping. */
import type { Splits } from '../task-splits.js';
import { EnvError, type ResetRequest, type StepResult } from '../types.js';

/** What the server needs of an episode (the engine's Episode). */
export interface ServedEpisode {
  /** Validates its own data: the server passes the client's through untouched. */
  reset(request: ResetRequest): Promise<StepResult>;
  step(action: unknown): Promise<StepResult>;
  state(): unknown;
}

/** What the server serves: splits, fresh episodes, MCP over an episode, and self-description. */
export interface ServedEnvironment<E extends ServedEpisode = ServedEpisode> {
  readonly splits: Splits;
  newEpisode(): E;
  mcp(episode: E, request: unknown): Promise<unknown>;
  /** JSON Schemas of action, observation and state for GET /schema. */
  schema(): unknown;
  /** Facts for GET /metadata (name, version, budget, curve, ...). */
  metadata(): Record<string, unknown>;
}

export function asEnvError(err: unknown): EnvError {
  return err instanceof EnvError ? err : new EnvError('EXECUTION_ERROR', messageOf(err));
}

export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
