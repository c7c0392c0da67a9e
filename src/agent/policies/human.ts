/**
 * A person as a policy: decide() returns a promise that the UI resolves with the next action, so a
 * person's episode is played and recorded by the same runner as a model's.
 */
import type { Action } from '../../env/types.js';
import type { Policy, PolicyContext, PolicyDecision } from '../types.js';

type WaitingListener = (context: PolicyContext | undefined) => void;

interface Pending {
  context: PolicyContext;
  resolve(decision: PolicyDecision): void;
}

export class HumanPolicy implements Policy {
  readonly name: string;
  readonly identity: Record<string, unknown> = { provider: 'human' };
  private pending: Pending | undefined;
  private readonly listeners = new Set<WaitingListener>();

  constructor(options: { name?: string } = {}) {
    this.name = options.name ?? 'human';
  }

  decide(context: PolicyContext): Promise<PolicyDecision> {
    if (this.pending) return Promise.reject(new Error('HumanPolicy.decide called while a turn is already waiting'));
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.settle();
        reject(context.signal.reason);
      };
      if (context.signal.aborted) return onAbort();
      context.signal.addEventListener('abort', onAbort, { once: true });
      this.pending = {
        context,
        resolve: (decision) => {
          context.signal.removeEventListener('abort', onAbort);
          resolve(decision);
        },
      };
      this.notify();
    });
  }

  /** The turn waiting for the person, if any. */
  get waiting(): PolicyContext | undefined {
    return this.pending?.context;
  }

  /**
   * Plays `action` on the waiting turn. False when no turn waits: a key pressed while the
   * environment is still stepping is dropped rather than queued behind the person's back.
   */
  submit(action: Action): boolean {
    const pending = this.pending;
    if (!pending) return false;
    this.settle();
    // No harnessAction: the runner records the wire action in harness form itself.
    pending.resolve({ action, status: 'ok' });
    return true;
  }

  /** Called with the waiting turn whenever one starts or ends waiting; returns the unsubscribe. */
  onWaiting(listener: WaitingListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private settle(): void {
    this.pending = undefined;
    this.notify();
  }

  private notify(): void {
    for (const listener of this.listeners) listener(this.pending?.context);
  }
}
