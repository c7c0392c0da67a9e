/** `geolab tasks validate | stats | import`. */
import { resolve } from 'node:path';
import { EXIT } from '../../core/errors.js';
import { checkedPanosDir } from '../../files.js';
import type { TaskError } from '../../core/tasks.js';
import { geoLabelCheck } from '../../tasks/label-check.js';
import { loadTaskFile, loadTasksStrict } from '../../tasks/load.js';
import { panoramaProblems } from '../../tasks/panoramas.js';
import { TaskStatsCollector } from '../../splits/pool-stats.js';
import type { GlobalOptions } from '../options.js';
import { printJson, printLine, table, warn } from '../output.js';

export async function validateCommand(file: string, opts: GlobalOptions & { panos?: string }): Promise<void> {
  const panoErrors: TaskError[] = [];
  const result = await loadTaskFile(file, {
    labelCheck: geoLabelCheck(),
    onTask: opts.panos ? (task, line) => panoErrors.push(...panoramaProblems(task, line, resolve(opts.panos as string))) : () => {},
  });
  const errors = [...result.errors, ...panoErrors].sort((a, b) => a.line - b.line);
  if (opts.json) {
    printJson({ file, tasks: result.count, errors, warnings: result.warnings });
  } else {
    for (const e of errors) printLine(`${file}:${e.line}: error: ${e.field}: ${e.message}`);
    for (const w of result.warnings) printLine(`${file}:${w.line}: warning: ${w.kind}: ${w.task_id}: ${w.message}`);
    printLine(`${file}: ${result.count} usable task(s), ${errors.length} error(s), ${result.warnings.length} warning(s)`);
  }
  if (errors.length > 0) process.exitCode = EXIT.problemFound;
}

export async function statsCommand(file: string, opts: GlobalOptions): Promise<void> {
  const stats = new TaskStatsCollector();
  await loadTasksStrict(file, { onTask: (task) => stats.add(task) });
  const s = stats.result();
  for (const w of s.contributor_identity.warnings) warn(`geolab: warning: ${file}: ${w}`);
  const { lineagesOf, printLeak, printLineage } = await import('./splits.js');
  const lineages = await lineagesOf([file], opts.workspace);
  if (opts.json) return printJson(lineages.length ? { ...s, lineage: lineages[0] } : s);
  printLine(`${file}: ${s.tasks} tasks, ${s.frames} frames, ${Object.keys(s.countries).length} countries, ${s.contributors} contributors (by ${s.contributor_identity.by})`);
  printLine('\ncountries');
  printLine(table(Object.entries(s.countries).map(([c, n]) => ['  ' + c, n])));
  printLine('\ncapture months');
  printLine(table(Object.entries(s.months).map(([m, n]) => ['  ' + m, n])));
  printLine();
  printLeak('tasks', s.leak_potential);
  printLine(table(Object.entries(s.leak_potential.contributors_per_country).map(([c, n]) => ['  ' + c, `${n} contributor(s)`])));
  for (const lineage of lineages) {
    printLine();
    printLineage(lineage);
  }
}

export async function importCommand(file: string, opts: GlobalOptions & { name: string; replace?: boolean; panos?: string }): Promise<void> {
  const { openWorkspace } = await import('../../store/index.js');
  const { importTaskFile } = await import('../../store/task-sets.js');
  const panosDir = opts.panos === undefined ? undefined : checkedPanosDir(opts.panos, '--panos');
  const ws = await openWorkspace(opts.workspace);
  try {
    const { status, set } = await importTaskFile(ws.db, resolve(file), opts.name, { replace: opts.replace, panosDir });
    const panos = set.panos_dir;
    if (opts.json) return printJson({ status, name: set.name, tasks: set.n_tasks, frames: set.n_frames, panos, workspace: ws.dir });
    const verb = status === 'unchanged' ? 'already imported (no change)' : status;
    printLine(`${set.name}: ${verb}: ${set.n_tasks} tasks, ${set.n_frames} frames into ${ws.dir}${panos ? `; panoramas in ${panos}` : ''}`);
  } finally {
    ws.close();
  }
}
