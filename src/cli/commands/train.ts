/**
 * `geolab train init | preflight | serve`: write a run's config, check the machine before GPU time
 * is spent, and serve the trained adapter with vLLM. No TUI here: nothing imports ink or React.
 */
import { existsSync } from 'node:fs';
import { EXIT, GeolabError, UsageError } from '../../core/errors.js';
import { derive, httpUrlProblem } from '../../train/config.js';
import type { TrainConfig } from '../../train/config.js';
import type { PreflightReport } from '../../train/types.js';
import type { InitGiven } from './train-init.js';
import type { GlobalOptions } from '../options.js';
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
    for (const line of c.detail ?? []) printLine(`${' '.repeat(width + 8)}${line}`);
    if (c.fix) printLine(`${' '.repeat(width + 8)}fix: ${c.fix}`);
  }
  const count = (status: string) => result.checks.filter((c) => c.status === status).length;
  printLine(`pre-flight: ${count('pass')} pass, ${count('warn')} warn, ${count('fail')} fail: ${result.ok ? 'ready to launch' : 'not ready: fix what failed first'}`);
}

export async function serveCommand(run: string, opts: GlobalOptions & { exec?: boolean; port?: number; checkpoint?: number }): Promise<void> {
  const { planServe, shellLine, writeModelsFile } = await import('../../train/serve.js');
  const plan = await planServe(existsSync(run) ? run : await launchedConfig(run, opts), { port: opts.port, checkpoint: opts.checkpoint });
  writeModelsFile(plan);
  const say = opts.exec ? warn : printLine;
  if (opts.json) printJson({ ...plan, command_line: shellLine(plan.command), eval_line: shellLine(plan.evalCommand) });
  else {
    say(`${plan.checkpoint === null ? 'final adapter' : `checkpoint ${plan.checkpoint}`} of ${plan.model}: ${plan.adapter}`);
    say(shellLine(plan.command));
    const [adapter, base] = plan.models;
    say(`then score it against its base, both with chat_template_kwargs ${JSON.stringify(adapter?.extra_body.chat_template_kwargs)} (${adapter?.name}, ${base?.name} in ${plan.modelsFile}):`);
    say(`  ${shellLine(plan.evalCommand)}`);
  }
  if (opts.exec) process.exitCode = await runForeground(plan.command);
}

/** A run named as the workspace knows it (what `train watch` takes): the config it was launched with. */
async function launchedConfig(name: string, opts: GlobalOptions): Promise<string> {
  const [{ openWorkspace }, { resolveRun }] = await Promise.all([import('../../store/index.js'), import('../../train/runs.js')]);
  const ws = await openWorkspace(opts.workspace);
  try {
    return resolveRun(ws.db, name).launch.config_path;
  } finally {
    ws.close();
  }
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
        reject(err.code === 'ENOENT' ? new GeolabError(`${command} not found: install the trainer's requirements (they include vLLM) in the config's Python environment, and name its python in the config`, EXIT.usage) : err),
      );
      child.once('exit', (code, signal) => resolve(code ?? (signal === 'SIGINT' ? EXIT.interrupted : EXIT.problemFound)));
    });
  } finally {
    process.off('SIGINT', hold);
    process.off('SIGTERM', forward);
  }
}

export interface InitOptions extends GlobalOptions {
  out?: string;
  name?: string;
  model?: string;
  split?: string;
  tasks?: string;
  panos?: string;
  maxSteps?: number;
  envUrl?: string;
  gpus?: number;
  python?: string;
  secrets?: string;
  yes?: boolean;
  force?: boolean;
}

export async function initCommand(opts: InitOptions): Promise<void> {
  const [init, { startingAnswers, planInit }, { openWorkspace }, { canDrawTui }] = await Promise.all([
    import('../../train/init.js'),
    import('../../train/init-plan.js'),
    import('../../store/index.js'),
    import('../tty.js'),
  ]);
  const secrets = initSecrets(opts, init);
  const ws = await openWorkspace(opts.workspace);
  try {
    const interactive = canDrawTui() && !opts.yes;
    const start = await startingAnswers(ws, { ...opts, secrets }, interactive);
    const { choices } = start;
    const answers = interactive ? await (await import('./train-init.js')).askInit(start.answers, choices, givenFlags(opts), opts.json) : start.answers;
    const { config, outDir, file } = await planInit(ws, answers, choices, opts.out);
    if (interactive && !(await confirmedWrite(config, file, opts, init))) return;
    init.writeRunConfig(outDir, config, opts.force ?? false);
    await printWritten(config, file, interactive, opts, init);
  } finally {
    ws.close();
  }
}

type InitModule = typeof import('../../train/init.js');

/** --env-url and --secrets checked, the secret names parsed. */
function initSecrets(opts: InitOptions, init: InitModule): string[] | undefined {
  if (opts.envUrl !== undefined) {
    const problem = httpUrlProblem(opts.envUrl);
    if (problem) throw new UsageError(`--env-url: ${problem}; the trainer talks to the environment server over HTTP`);
  }
  const secrets = opts.secrets === undefined ? undefined : init.parseSecretNames(opts.secrets);
  const secretsProblem = secrets && init.secretNamesProblem(secrets);
  if (secretsProblem) throw new UsageError(`--secrets: ${secretsProblem}`);
  return secrets;
}

/** Which answers came with flags, so the wizard does not ask them again. */
function givenFlags(opts: InitOptions): InitGiven {
  return {
    name: opts.name !== undefined,
    model: opts.model !== undefined,
    environment: Boolean(opts.split ?? opts.tasks ?? opts.envUrl),
    panos: opts.panos !== undefined,
    maxSteps: opts.maxSteps !== undefined,
    gpus: opts.gpus !== undefined,
    python: opts.python !== undefined,
    secrets: opts.secrets !== undefined,
  };
}

/** The wizard's last step: what the config implies, then "Write FILE?"; false (and "nothing written") when declined. */
async function confirmedWrite(config: TrainConfig, file: string, opts: InitOptions, init: InitModule): Promise<boolean> {
  const say = opts.json ? warn : printLine;
  for (const line of init.describeDerived(config)) say(line);
  const { confirmWrite } = await import('./train-init.js');
  if (await confirmWrite(file, opts.json)) return true;
  say('nothing written');
  return false;
}

async function printWritten(config: TrainConfig, file: string, interactive: boolean, opts: InitOptions, init: InitModule): Promise<void> {
  const { shellLine } = await import('../../train/serve.js');
  const next = shellLine(['geolab', 'train', 'preflight', file]);
  if (opts.json) printJson({ config_file: file, config, derived: derive(config), next });
  else {
    printLine(`wrote ${file}`);
    if (!interactive) for (const line of init.describeDerived(config)) printLine(line);
    printLine(`next: ${next}`);
  }
}
