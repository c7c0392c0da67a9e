/**
 * `geolab train init | preflight | serve`: write a run's config, check the machine before GPU time
 * is spent, and serve the trained adapter with vLLM. No TUI here: nothing imports ink or React.
 */
import { EXIT, GeolabError } from '../../core/errors.js';
import type { PreflightReport } from '../../train/types.js';
import type { GlobalOptions } from '../main.js';
import { printJson, printLine, warn } from '../output.js';

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

export async function serveCommand(run: string, opts: GlobalOptions & { exec?: boolean; port?: number; checkpoint?: number }): Promise<void> {
  const { planServe, shellLine } = await import('../../train/serve.js');
  const plan = await planServe(run, { port: opts.port, checkpoint: opts.checkpoint });
  const say = opts.exec ? warn : printLine;
  if (opts.json) printJson({ ...plan, command_line: shellLine(plan.command), eval_line: shellLine(plan.evalCommand) });
  else {
    say(`${plan.checkpoint === null ? 'final adapter' : `checkpoint ${plan.checkpoint}`} of ${plan.model}: ${plan.adapter}`);
    say(shellLine(plan.command));
    say(`then score it: ${shellLine(plan.evalCommand)}`);
  }
  if (opts.exec) process.exitCode = await runForeground(plan.command);
}

/** Runs a server in the foreground on this terminal; Ctrl-C reaches it (same process group) and ends it. */
async function runForeground(argv: readonly string[]): Promise<number> {
  const { spawn } = await import('node:child_process');
  const [command, ...args] = argv as [string, ...string[]];
  const child = spawn(command, args, { stdio: 'inherit' });
  // The terminal's Ctrl-C reaches the child by itself (one process group): this process outlives it to
  // report its exit rather than die first. A SIGTERM is sent to this process alone: pass it on.
  const hold = () => {};
  const forward = () => child.kill('SIGTERM');
  process.on('SIGINT', hold);
  process.on('SIGTERM', forward);
  try {
    return await new Promise<number>((resolve, reject) => {
      child.once('error', (err: NodeJS.ErrnoException) =>
        reject(err.code === 'ENOENT' ? new GeolabError(`${command} not found on PATH: install the trainer's requirements (they include vLLM) and activate that environment`, EXIT.usage) : err),
      );
      child.once('exit', (code, signal) => resolve(code ?? (signal === 'SIGINT' ? EXIT.interrupted : EXIT.problemFound)));
    });
  } finally {
    process.off('SIGINT', hold);
    process.off('SIGTERM', forward);
  }
}
