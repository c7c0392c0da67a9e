/**
 * Keypress to redraw in the Player (DESIGN §11: < 50 ms): the whole app rendered by Ink through
 * ink-testing-library, stepping left and right through a recorded episode, timed from the key
 * written to stdin until the frame shows the other turn.
 */
import { cleanup } from 'ink-testing-library';
import { makeEpisode, memoryWorkspace } from '../test/tui/fixtures.js';
import { KEY, renderApp } from '../test/tui/render.js';
import { median, round, type Bench } from './harness.js';

async function untilFrame(frame: () => string, ok: (f: string) => boolean): Promise<void> {
  const deadline = performance.now() + 5_000;
  while (!ok(frame())) {
    if (performance.now() > deadline) throw new Error(`no redraw; last frame:\n${frame()}`);
    await new Promise((r) => setImmediate(r));
  }
}

export const tuiRedrawBenches: Bench[] = [
  {
    name: 'tui.step_redraw',
    unit: 'redraws',
    async run() {
      const fixture = await makeEpisode();
      const app = await renderApp({
        route: { screen: 'player', episodeId: fixture.episode.episode_id },
        services: { openWorkspace: async () => memoryWorkspace([fixture.episode], fixture.images) },
      });
      await app.waitFor((f) => f.includes('turn 0/3'));
      const times: number[] = [];
      for (let i = 0; i < 21; i++) {
        const forward = i % 2 === 0;
        const start = performance.now();
        app.stdin.write(forward ? KEY.right : KEY.left);
        await untilFrame(app.frame, (f) => f.includes(forward ? 'turn 1/3' : 'turn 0/3'));
        times.push(performance.now() - start);
      }
      cleanup();
      const ms = median(times);
      return { median_ms: round(ms, 2), per_s: round(1000 / ms, 1) };
    },
  },
];
