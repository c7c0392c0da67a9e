/**
 * Live sessions of a server, WebSocket and HTTP alike: one episode each, a cap on how many run at
 * once (CAPACITY_REACHED beyond it), and an idle timeout that frees abandoned ones.
 */
import { randomUUID } from 'node:crypto';

export interface Session<E> {
  readonly id: string;
  readonly kind: 'ws' | 'http';
  readonly episode: E;
  lastActiveMs: number;
  /** Called when the idle sweep or shutdown ends the session (closes its socket, for WS). */
  onEnd?: (reason: 'idle' | 'shutdown') => void;
}

export class SessionPool<E> {
  private readonly sessions = new Map<string, Session<E>>();
  private readonly sweeper: NodeJS.Timeout | undefined;

  constructor(
    private readonly newEpisode: () => E,
    readonly maxSessions: number,
    private readonly idleTimeoutMs: number,
    private readonly now: () => number = Date.now,
  ) {
    if (idleTimeoutMs > 0) {
      this.sweeper = setInterval(() => this.sweepIdle(), Math.min(idleTimeoutMs, 5_000));
      this.sweeper.unref();
    }
  }

  get size(): number {
    return this.sessions.size;
  }

  /** A new session, or null when the server is at its cap. */
  open(kind: 'ws' | 'http'): Session<E> | null {
    if (this.sessions.size >= this.maxSessions) return null;
    const session: Session<E> = { id: randomUUID(), kind, episode: this.newEpisode(), lastActiveMs: this.now() };
    this.sessions.set(session.id, session);
    return session;
  }

  /** The session with this id, marked active; undefined when unknown or ended. */
  touch(id: string): Session<E> | undefined {
    const session = this.sessions.get(id);
    if (session) session.lastActiveMs = this.now();
    return session;
  }

  close(id: string): boolean {
    return this.sessions.delete(id);
  }

  /** Ends sessions idle for longer than the timeout; returns how many. */
  sweepIdle(): number {
    if (this.idleTimeoutMs <= 0) return 0;
    const cutoff = this.now() - this.idleTimeoutMs;
    let ended = 0;
    for (const session of [...this.sessions.values()]) {
      if (session.lastActiveMs < cutoff) {
        this.sessions.delete(session.id);
        session.onEnd?.('idle');
        ended++;
      }
    }
    return ended;
  }

  shutdown(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    for (const session of [...this.sessions.values()]) {
      this.sessions.delete(session.id);
      session.onEnd?.('shutdown');
    }
  }
}
