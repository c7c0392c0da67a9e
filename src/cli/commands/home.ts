/** `geolab` with no command: the workspace summary (the TUI's Home screen arrives with the TUI). */
import { openWorkspace, summarize } from '../../store/index.js';
import type { GlobalOptions } from '../main.js';
import { printJson, printLine, table } from '../output.js';

export async function home(opts: GlobalOptions): Promise<void> {
  const ws = await openWorkspace(opts.workspace);
  try {
    const summary = summarize(ws);
    if (opts.json) return printJson(summary);
    printLine(`geolab workspace ${summary.dir}${ws.created ? ' (new, demo tasks loaded)' : ''}`);
    printLine(
      table([
        ['task sets', summary.task_sets.map((s) => `${s.name} (${s.tasks} tasks, ${s.frames} frames)`).join(', ') || 'none'],
        ['tasks', summary.tasks],
        ['splits', summary.splits],
        ['episodes', summary.episodes],
        ['eval runs', summary.eval_runs],
        ['training runs', summary.training_runs],
        ['open audit findings', summary.open_findings],
      ]),
    );
    printLine('\nRun `geolab --help` for the commands.');
  } finally {
    ws.close();
  }
}
