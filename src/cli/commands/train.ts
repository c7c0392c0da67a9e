/**
 * `geolab train init | preflight | serve`: write a run's config, check the machine before GPU time
 * is spent, and serve the trained adapter with vLLM. No TUI here: nothing imports ink or React.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { EXIT, GeolabError, UsageError } from '../../core/errors.js';
import { derive, httpUrlProblem } from '../../train/config.js';
import type { InitAnswers, SplitChoice } from '../../train/init.js';
import type { PreflightReport } from '../../train/types.js';
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
  const [init, { openWorkspace }, { canDrawTui }, { shellLine }] = await Promise.all([
    import('../../train/init.js'),
    import('../../store/index.js'),
    import('../tty.js'),
    import('../../train/serve.js'),
  ]);
  if (opts.envUrl !== undefined) {
    const problem = httpUrlProblem(opts.envUrl);
    if (problem) throw new UsageError(`--env-url: ${problem}; the trainer talks to the environment server over HTTP`);
  }
  const secrets = opts.secrets === undefined ? undefined : init.parseSecretNames(opts.secrets);
  const secretsProblem = secrets && init.secretNamesProblem(secrets);
  if (secretsProblem) throw new UsageError(`--secrets: ${secretsProblem}`);
  const ws = await openWorkspace(opts.workspace);
  try {
    const interactive = canDrawTui() && !opts.yes;
    // The workspace's splits are read only when something needs them: the wizard, or a local split to check.
    const choices = interactive || !(opts.envUrl || opts.tasks) ? await init.splitChoices(ws) : [];
    const split = opts.split ?? (choices.some((c) => c.name === init.RECIPE.split) || !choices[0] ? init.RECIPE.split : choices[0].name);
    let answers: InitAnswers = {
      name: opts.name ?? (opts.out ? init.nameFromDir(opts.out) : undefined) ?? init.freeRunName(ws.paths.train),
      model: opts.model ?? init.RECIPE.model,
      split,
      tasks: opts.tasks,
      envUrl: opts.envUrl,
      panos: opts.panos ?? choices.find((c) => c.name === split)?.panos,
      maxSteps: opts.maxSteps ?? init.RECIPE.maxSteps,
      gpus: opts.gpus ?? init.RECIPE.gpus,
      python: opts.python,
      secrets,
    };
    if (interactive) {
      const { askInit } = await import('./train-init.js');
      const given = {
        name: opts.name !== undefined,
        model: opts.model !== undefined,
        environment: Boolean(opts.split ?? opts.tasks ?? opts.envUrl),
        panos: opts.panos !== undefined,
        maxSteps: opts.maxSteps !== undefined,
        gpus: opts.gpus !== undefined,
        python: opts.python !== undefined,
        secrets: opts.secrets !== undefined,
      };
      answers = await askInit(answers, choices, given, opts.json);
    }
    await checkEnvironment(answers, choices);
    const outDir = opts.out ?? join(ws.paths.train, answers.name);
    const made = init.initConfig(answers, outDir);
    if ('problems' in made) throw new UsageError(`that config would not validate: ${made.problems.map((p) => `${p.field}: ${p.message}`).join('; ')}`);
    const { config } = made;
    const file = join(resolve(outDir), 'config.json');
    if (interactive) {
      const say = opts.json ? warn : printLine;
      for (const line of init.describeDerived(config)) say(line);
      const { confirmWrite } = await import('./train-init.js');
      if (!(await confirmWrite(file, opts.json))) {
        say('nothing written');
        return;
      }
    }
    init.writeRunConfig(outDir, config, opts.force ?? false);
    const next = shellLine(['geolab', 'train', 'preflight', file]);
    if (opts.json) printJson({ config_file: file, config, derived: derive(config), next });
    else {
      printLine(`wrote ${file}`);
      if (!interactive) for (const line of init.describeDerived(config)) printLine(line);
      printLine(`next: ${next}`);
    }
  } finally {
    ws.close();
  }
}

/** The split must be served by the embedded server (a remote one is pre-flight's to check); a task file must load. */
async function checkEnvironment(answers: InitAnswers, choices: readonly SplitChoice[]): Promise<void> {
  if (answers.envUrl) return;
  if (answers.tasks) {
    const { loadTasksStrict } = await import('../../tasks/load.js');
    await loadTasksStrict(answers.tasks);
    return;
  }
  if (!choices.some((c) => c.name === answers.split)) {
    throw new UsageError(`--split ${answers.split} is not a task set of this workspace; it has ${choices.map((c) => c.name).join(', ') || 'none'} (or pass --tasks FILE, or --env-url for a remote server)`);
  }
}
