/** One interface over the embedded environment and a remote server: what agents, eval and pre-flight use. */
import type { splitInfos } from '../task-splits.js';
import type { Action, ResetRequest, StepResult } from '../types.js';

export type SplitInfo = ReturnType<typeof splitInfos>[number];

export interface EnvClient {
  readonly kind: 'embedded' | 'remote';
  /** Where the environment is: "embedded" or the server's URL. */
  readonly location: string;
  /** Starts a new episode (a new session). */
  reset(request?: ResetRequest): Promise<StepResult>;
  step(action: Action): Promise<StepResult>;
  state(): Promise<unknown>;
  /** A JSON-RPC request to the environment's MCP tools. */
  mcp(request: unknown): Promise<unknown>;
  splits(): Promise<SplitInfo[]>;
  close(): Promise<void>;
}
