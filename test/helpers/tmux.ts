/**
 * A real terminal for end-to-end tests: the binary runs in a tmux pane; keys go in, the screen comes
 * out. Each pane is the one session of a tmux server of its own (`tmux -L <name>`), so the tests
 * never touch a user's tmux server or another test's, and kill() ends the server.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';

export class TmuxPane {
  readonly name = `geolab-e2e-${randomUUID().slice(0, 8)}`;

  /** Starts `args` (the node binary and its arguments) in a detached session, without CI in its environment. */
  constructor(args: string[], env: Record<string, string>, size = { columns: 120, rows: 40 }) {
    const assignments = Object.entries(env).map(([k, v]) => `${k}=${shellQuote(v)}`);
    // `env -u CI`: Ink draws no live frames when CI is set (docs/reliability.md).
    const command = ['env', '-u', 'CI', ...assignments, ...args.map(shellQuote)].join(' ');
    this.tmux(['new-session', '-d', '-s', this.name, '-x', String(size.columns), '-y', String(size.rows), command]);
    this.tmux(['set-option', '-t', this.name, 'remain-on-exit', 'on']);
  }

  /** A tmux command on this pane's own server. */
  tmux(args: string[]): string {
    return execFileSync('tmux', ['-L', this.name, ...args], { encoding: 'utf8' });
  }

  screen(): string {
    return this.tmux(['capture-pane', '-p', '-t', this.name]);
  }

  /** tmux key names ("Right", "Enter", "q") or literal text with `literal`. */
  send(keys: string[], literal = false): void {
    this.tmux(['send-keys', '-t', this.name, ...(literal ? ['-l'] : []), ...keys]);
  }

  /** Polls the screen until `test` holds; fails with the last screen after `timeoutMs`. */
  async waitFor(test: string | RegExp | ((screen: string) => boolean), timeoutMs = 20_000): Promise<string> {
    const check = typeof test === 'function' ? test : (s: string) => (typeof test === 'string' ? s.includes(test) : test.test(s));
    const deadline = Date.now() + timeoutMs;
    let last = '';
    while (Date.now() < deadline) {
      last = this.screen();
      if (check(last)) return last;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`screen never showed ${String(test)}; last screen:\n${last.replace(/^.*[▀▄]{8}.*$\n/gm, "")}`);
  }

  kill(): void {
    try {
      execFileSync('tmux', ['-L', this.name, 'kill-server'], { stdio: 'ignore' });
    } catch {
      // already gone
    }
  }
}

function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./:=-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
