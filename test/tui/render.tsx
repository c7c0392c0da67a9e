/**
 * The one render helper of the TUI tests: the whole app through ink-testing-library at a fixed
 * terminal size and a fixed colour setting, with keys and a wait for what async work draws.
 */
import { render } from 'ink-testing-library';
import { useEffect, type ReactNode } from 'react';
import { App } from '../../src/tui/app.js';
import type { TuiServices } from '../../src/tui/services.js';
import type { Route } from '../../src/tui/state/navigation.js';
import { createTheme } from '../../src/tui/theme.js';

export const KEY = {
  left: '\x1b[D',
  right: '\x1b[C',
  up: '\x1b[A',
  down: '\x1b[B',
  enter: '\r',
  escape: '\x1b',
  backspace: '\x7f',
} as const;

export interface RenderOptions {
  route: Route;
  services?: Partial<TuiServices>;
  columns?: number;
  rows?: number;
  colour?: boolean;
}

const noRunner: TuiServices['runEpisode'] = () => Promise.reject(new Error('no runner in this test'));

/** Tells when Ink unmounts the app, which is what leaving the last screen does. */
function ExitProbe({ onExit, children }: { onExit: () => void; children: ReactNode }) {
  useEffect(() => onExit, [onExit]);
  return children;
}

export async function renderApp(options: RenderOptions) {
  const { columns = 120, rows = 40, colour = false } = options;
  const services: TuiServices = { runEpisode: noRunner, ...options.services };
  let exited = false;
  let taken = 0;
  let waiting: { target: number; done: () => void } | undefined;
  const onKeysTaken = (count: number) => {
    taken = count;
    if (waiting && taken >= waiting.target) waiting.done();
  };
  const ui = render(
    <ExitProbe onExit={() => (exited = true)}>
      <App services={services} initialRoute={options.route} theme={createTheme({ colour })} onKeysTaken={onKeysTaken} />
    </ExitProbe>,
  );
  // ink-testing-library's stream is always 100 columns with no rows: give it the size under test.
  Object.defineProperty(ui.stdout, 'columns', { value: columns, configurable: true });
  Object.defineProperty(ui.stdout, 'rows', { value: rows, configurable: true });
  ui.stdout.emit('resize');
  const frame = () => ui.lastFrame() ?? '';
  const app = {
    ...ui,
    frame,
    /** The app ended (under CI, Ink leaves its last frame on screen, so the frame cannot tell). */
    exited: () => exited,
    /**
     * Types keys one at a time, as a person does: each write is followed by the app taking every
     * key waiting and drawing what they did (what they start, such as an environment step, is
     * waited for with `waitFor`).
     */
    async press(...keys: string[]) {
      for (const key of keys) {
        const target = taken + 1;
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`the app never took the key ${JSON.stringify(key)}; last frame:\n${frame()}`)), 10_000);
          waiting = {
            target,
            done: () => {
              clearTimeout(timer);
              waiting = undefined;
              resolve();
            },
          };
          ui.stdin.write(key);
        });
      }
    },
    /** Polls the frame until it satisfies `ok` (async work: images, the workspace, the runner); only a timeout fails. */
    async waitFor(ok: (frame: string) => boolean, timeoutMs = 10_000): Promise<string> {
      const deadline = Date.now() + timeoutMs;
      while (!ok(frame())) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for the frame; last frame:\n${frame()}`);
        await tick(20);
      }
      return frame();
    },
  };
  // Screens load when first opened: the app is ready once its first screen is drawn.
  await app.waitFor((f) => f.trim() !== '');
  return app;
}

export function tick(ms = 0): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
