/**
 * `geolab train init | preflight | serve`: write a run's config, check the machine before GPU time
 * is spent, and serve the trained adapter with vLLM. No TUI here: nothing imports ink or React.
 */
import { EXIT } from '../../core/errors.js';
import type { PreflightReport } from '../../train/types.js';
import type { GlobalOptions } from '../main.js';
import { printJson, printLine } from '../output.js';

export async function preflightCommand(file: string, opts: GlobalOptions): Promise<void> {
  const [{ readTrainConfigFile }, { invalidConfigReport, runPreflight }] = await Promise.all([import('../../train/config-file.js'), import('../../train/preflight.js')]);
  const read = await readTrainConfigFile(file);
  const result = read.ok ? await runPreflight(read.config, { workspace: opts.workspace }) : invalidConfigReport(read.file, read.problems);
  if (opts.json) printJson(result);
  else printReport(result);
  if (!result.ok) process.exitCode = EXIT.problemFound;
}

function printReport(result: PreflightReport): void {
  const width = Math.max(...result.checks.map((c) => c.id.length));
  for (const c of result.checks) {
    printLine(`${c.status.padEnd(4)}  ${c.id.padEnd(width)}  ${c.message}`);
    if (c.fix) printLine(`${' '.repeat(width + 8)}fix: ${c.fix}`);
  }
  const count = (status: string) => result.checks.filter((c) => c.status === status).length;
  printLine(`pre-flight: ${count('pass')} pass, ${count('warn')} warn, ${count('fail')} fail: ${result.ok ? 'ready to launch' : 'not ready: fix what failed first'}`);
}
