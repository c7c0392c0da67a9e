/**
 * Pause, step and abort for a policy the runner is playing. The runner knows nothing about them:
 * `gatedPolicy` wraps the real policy so that every decide() first passes the gate.
 *
 * - running: the gate is open, decisions go straight through;
 * - pause: the next decision waits at the gate (a model call already in flight finishes first);
 * - step: hold, but let exactly one more decision through (each press adds one);
 * - resume: open the gate and release whoever waits;
 * - abort: the run's signal rejects a waiting decision (and cancels the one in flight, which
 *   receives the same signal through its PolicyContext).
 */
import type { Policy, PolicyContext, PolicyDecision } from '../../agent/types.js';

export interface GateListener {
  /** A decision started waiting at the gate. */
  held(): void;
  /** The waiting decision went through. */
  released(): void;
}

export class Gate {
  private paused = false;
  private credits = 0;
  private waiter: (() => void) | undefined;

  constructor(private readonly listener?: GateListener) {}

  get isPaused(): boolean {
    return this.paused;
  }

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    this.credits = 0;
    this.release();
  }

  step(): void {
    this.paused = true;
    if (this.waiter) this.release();
    else this.credits++;
  }

  /** Resolves when the decision may go ahead; rejects with the signal's reason on abort. */
  async pass(signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    if (!this.paused) return;
    if (this.credits > 0) {
      this.credits--;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        this.waiter = undefined;
        reject(signal.reason);
      };
      this.waiter = () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.listener?.held();
    });
  }

  private release(): void {
    const waiter = this.waiter;
    if (!waiter) return;
    this.waiter = undefined;
    waiter();
    this.listener?.released();
  }
}

/** The policy as the runner sees it: the same name, identity and transcript hooks, decisions gated. */
export function gatedPolicy(policy: Policy, gate: Gate, signal: AbortSignal): Policy {
  return {
    name: policy.name,
    identity: policy.identity,
    begin: policy.begin?.bind(policy),
    observe: policy.observe?.bind(policy),
    // A fork seeds the model that plays on (src/agent/fork.ts) through the gate.
    resume: policy.resume?.bind(policy),
    async decide(context: PolicyContext): Promise<PolicyDecision> {
      await gate.pass(AbortSignal.any([signal, context.signal]));
      return policy.decide(context);
    },
  };
}
