/** `geolab` with no command: the TUI's Home on a terminal, a plain workspace summary elsewhere. */
import { describeRuns } from '../../store/eval-runs.js';
import type { GlobalOptions } from '../options.js';
import { printJson, printLine, table } from '../output.js';
import { canDrawTui } from '../tty.js';

export async function home(opts: GlobalOptions): Promise<void> {
  if (!opts.json && canDrawTui()) {
    const { openHome } = await import('../../tui/entry.js');
    return openHome({ workspace: opts.workspace });
  }
  // SQLite loads only here: the TUI opens the workspace after its first frame.
  const { openWorkspace, summarize } = await import('../../store/index.js');
  const ws = await openWorkspace(opts.workspace);
  try {
    const [{ runLines }, { describeRunLines }] = await Promise.all([import('../../train/runs.js'), import('../../train/run-line.js')]);
    const train = runLines(ws.db);
    const summary = { ...summarize(ws), train_runs: train };
    if (opts.json) return printJson(summary);
    printLine(`geolab workspace ${summary.dir}${ws.created ? ' (new, demo tasks loaded)' : ''}`);
    printLine(
      table([
        ['task sets', summary.task_sets.map((s) => `${s.name} (${s.tasks} tasks, ${s.frames} frames)`).join(', ') || 'none'],
        ['tasks', summary.tasks],
        ['splits', summary.splits],
        ['episodes', summary.episodes],
        ['runs', describeRuns(summary.runs)],
        // Training shows once there is a run to show.
        ...(train.length ? [['training', describeRunLines(train)]] : []),
      ]),
    );
    printLine('\nRun `geolab --help` for the commands.');
  } finally {
    ws.close();
  }
}
