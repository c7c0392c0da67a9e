/**
 * The Eval board over 20,000 episodes (five arms, pass@4 over 1,000 tasks): from `v` on Home until
 * the report is drawn (every episode read, the report computed), and keypress-to-redraw on the
 * board (moving between arms) and into an arm by country, in a 120x40 pseudo-terminal; the report
 * of the board's own core alone beside it.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../src/paths.js';
import { runTreeFiles } from '../src/files.js';
import { openWorkspace } from '../src/store/index.js';
import { importEpisodesFile } from '../src/store/import-episodes.js';
import { EPISODES, writeSweep } from './eval.js';
import { median, round, timeBatches, type Bench } from './harness.js';
import { Pty, withoutCi } from './tui.js';

const BIN = join(PACKAGE_ROOT, 'bin', 'geolab.js');

async function sweepWorkspace(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'geolab-bench-board-'));
  const sweep = join(dir, 'sweep');
  writeSweep(sweep);
  const ws = await openWorkspace(join(dir, 'home'), { seedDemo: false });
  try {
    for (const file of runTreeFiles(sweep)) await importEpisodesFile(ws, file, { runId: 'bench-sweep' });
  } finally {
    ws.close();
  }
  return join(dir, 'home');
}

export const evalBoardBenches: Bench[] = [
  {
    name: 'tui.eval_board_20k',
    unit: 'redraws',
    async run() {
      const home = await sweepWorkspace();
      const [{ evalBoardService }, { workspaceSession }, { boardReport }] = await Promise.all([
        import('../src/tui/eval/service.js'),
        import('../src/tui/workspace-session.js'),
        import('../src/tui/eval/board.js'),
      ]);
      const session = workspaceSession(home);
      const readStart = performance.now();
      const { episodes } = await evalBoardService(session).read(() => {});
      const readMs = performance.now() - readStart;
      await session.close();
      if (episodes.length !== EPISODES) throw new Error(`the board read ${episodes.length} episodes, expected ${EPISODES}`);
      const report = timeBatches(() => boardReport(episodes, new Set(), 'bench-a@v1'), 1, 5);

      const pty = new Pty(`${process.execPath} ${BIN}`, { ...withoutCi(), GEOLAB_HOME: home });
      try {
        await pty.until('Watch a model');
        const openMs = await pty.press('v', 'Paired vs bench-a@v1');
        const moves: number[] = [];
        for (let i = 0; i < 11; i++) {
          const down = i % 2 === 0;
          moves.push(await pty.press(down ? '\x1b[B' : '\x1b[A', down ? '›  bench-a@v2' : '›  bench-a@v1'));
        }
        const groups: number[] = [];
        for (let i = 0; i < 5; i++) {
          groups.push(await pty.press('c', 'bench-a@v2 by country'));
          await pty.press('q', 'Paired vs');
        }
        const ms = median(moves);
        return {
          median_ms: round(ms, 1),
          per_s: round(1000 / ms, 1),
          by_country_ms: round(median(groups), 1),
          open_ms: round(openMs, 1),
          read_ms: round(readMs, 1),
          report_ms: report.median_ms,
          episodes: EPISODES,
        };
      } finally {
        pty.kill();
      }
    },
  },
];
