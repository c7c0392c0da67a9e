/** The environment in-process: the same engine the server runs, without a socket in between. */
import { EnvError, type Action, type ResetRequest, type StepResult } from '../types.js';
import type { ServedEnvironment, ServedEpisode } from '../server.js';
import { splitInfos } from '../task-splits.js';
import type { EnvClient, SplitInfo } from './types.js';

export class EmbeddedEnvClient<E extends ServedEpisode> implements EnvClient {
  readonly kind = 'embedded';
  readonly location = 'embedded';
  private episode: E | undefined;

  constructor(private readonly env: ServedEnvironment<E>) {}

  reset(request: ResetRequest = {}): Promise<StepResult> {
    this.episode = this.env.newEpisode();
    return this.episode.reset(request);
  }

  step(action: Action): Promise<StepResult> {
    return this.current().step(action);
  }

  async state(): Promise<unknown> {
    return this.current().state();
  }

  mcp(request: unknown): Promise<unknown> {
    return this.env.mcp(this.current(), request);
  }

  async splits(): Promise<SplitInfo[]> {
    return splitInfos(this.env.splits);
  }

  async close(): Promise<void> {
    this.episode = undefined;
  }

  private current(): E {
    if (!this.episode) throw new EnvError('EXECUTION_ERROR', 'no episode: call reset first');
    return this.episode;
  }
}
