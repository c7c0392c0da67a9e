/**
 * `geolab train launch | watch | stop | resume` (docs/training.md, issue 13 §4). Launch and resume gate on
 * the pre-flight, which the caller hands in (src/train/preflight.ts); watch draws the Train screen
 * on a terminal and prints plain progress lines otherwise. Draws no TUI unless watch does: ink and
 * React load only there.
 */
import { EXIT, InputError, UsageError } from '../../core/errors.js';
import type { Workspace } from '../../store/index.js';
import { saveTrainRun } from '../../store/train-runs.js';
import type { TrainConfig } from '../../train/config.js';
import { loadTrainConfig } from '../../train/config-file.js';
import { checkpointSteps } from '../../train/checkpoints.js';
import { launch, planLaunch, type LaunchRecord } from '../../train/launch.js';
import { formatDuration, KEY_METRICS, type RunSnapshot } from '../../train/log.js';
import { followRun, recordState, resolveRun, stopTrainRun, type ResolvedRun } from '../../train/runs.js';
import { argumentLines, grpoArguments, loraArguments } from '../../train/recipe.js';
import { DEFAULT_GRACE_S } from '../../train/stop.js';
import type { PreflightReport } from '../../train/types.js';
import { trainerRunning, type RunState } from '../../train/watch.js';
import type { GlobalOptions } from '../options.js';
import { printJson, printLine, warn } from '../output.js';
import { canDrawTui } from '../tty.js';

export interface TrainDeps {
  /** The checks of `geolab train preflight`; launch and resume refuse on a failed one. */
  preflight?: (config: TrainConfig) => Promise<PreflightReport>;
}

export interface LaunchCommandOptions extends GlobalOptions {
  dryRun?: boolean;
  /** False with --no-preflight. */
  preflight?: boolean;
  /** Another trainer script (the default is geolab's). */
  trainer?: string;
}

export async function launchCommand(configFile: string, opts: LaunchCommandOptions, deps: TrainDeps = {}): Promise<void> {
  const { file: path, config } = await loadTrainConfig(configFile);
  const options = { configPath: path, config, resume: false, script: opts.trainer, workspace: opts.workspace };
  if (opts.dryRun) {
    await gate(config, opts, deps);
    return printPlan(planLaunch(options), config, opts);
  }
  await withWorkspace(opts, async (ws) => {
    const existing = (() => {
      try {
        return resolveRun(ws.db, config.name);
      } catch (err) {
        // No such run yet is fine; a launch.json that fails validation is not launched over unchecked.
        if (err instanceof InputError) throw err;
        return undefined;
      }
    })();
    if (existing && trainerRunning(existing.launch)) {
      throw new UsageError(`run "${config.name}" is running (pid ${existing.launch.pid}): \`geolab train stop ${config.name}\` first`);
    }
    const saved = checkpointSteps(config.output_dir);
    if (saved.length) {
      throw new UsageError(
        `${config.output_dir} already holds checkpoint-${saved.at(-1)}: \`geolab train resume ${config.name}\` continues from it; to start over, choose another output_dir`,
      );
    }
    if (!(await gate(config, opts, deps))) return;
    const record = await launch(options);
    saveTrainRun(ws.db, rowOf(record, config));
    report(record, opts, 'launched');
  });
}

export interface ResumeCommandOptions extends GlobalOptions {
  preflight?: boolean;
  trainer?: string;
}

/** Launches the run again with --resume: the trainer continues from the newest checkpoint-N. */
export async function resumeCommand(ref: string, opts: ResumeCommandOptions, deps: TrainDeps = {}): Promise<void> {
  await withWorkspace(opts, async (ws) => {
    const run = resolveRun(ws.db, ref, ws.paths.train);
    // The last look also records how the old process ended before a new one is launched over it.
    const state = followRun(ws.db, run).poll();
    recordState(ws.db, run, state);
    if (!opts.json) for (const note of state.notes ?? []) warn(`geolab: ${note}`);
    if (state.status === 'running') throw new UsageError(`run "${run.launch.name}" is still running (pid ${run.launch.pid}): nothing to resume`);
    if (state.status === 'done') throw new UsageError(`run "${run.launch.name}" is done (step ${state.snapshot.step}): nothing to resume`);
    const { file: path, config } = await loadTrainConfig(run.launch.config_path);
    const steps = checkpointSteps(config.output_dir);
    if (steps.length === 0) {
      throw new UsageError(`no checkpoint-N under ${config.output_dir} yet: nothing to resume from; \`geolab train launch ${path}\` starts it afresh`);
    }
    if (!(await gate(config, opts, deps))) return;
    const record = await launch({ configPath: path, config, resume: true, script: opts.trainer ?? scriptOf(run.launch), workspace: opts.workspace });
    saveTrainRun(ws.db, rowOf(record, config));
    report(record, opts, `resumed from checkpoint-${steps.at(-1)}`);
  });
}

export interface StopCommandOptions extends GlobalOptions {
  /** Seconds between SIGINT and SIGTERM. */
  grace?: number;
}

export async function stopCommand(ref: string, opts: StopCommandOptions): Promise<void> {
  const graceS = opts.grace ?? DEFAULT_GRACE_S;
  if (!(graceS >= 0)) throw new UsageError(`--grace expects seconds >= 0, got ${graceS}`);
  await withWorkspace(opts, async (ws) => {
    const run = resolveRun(ws.db, ref, ws.paths.train);
    const { endedBy, checkpoint, state, notes } = await stopTrainRun(ws.db, run, {
      graceMs: graceS * 1000,
      onSignal: (signal) =>
        opts.json ||
        warn(
          signal === 'SIGINT'
            ? `geolab: SIGINT to run "${run.launch.name}" (process group ${run.launch.pid}): waiting up to ${graceS} s for the step to end and its checkpoint`
            : `geolab: ${signal} to run "${run.launch.name}" (process group ${run.launch.pid})`,
        ),
      onCheckpoint: (step, path) => opts.json || warn(`geolab: checkpoint saved at step ${step}: ${path}`),
    });
    const { status } = state;
    if (opts.json) {
      return printJson({ name: run.launch.name, status, ended_by: endedBy, checkpoint_saved: checkpoint, step: state.snapshot.step, checkpoints: state.snapshot.checkpoints, notes });
    }
    for (const note of notes) warn(`geolab: ${note}`);
    if (!endedBy) printLine(`run "${run.launch.name}" was not running (${status})${notes.length ? '; nothing signalled' : ''}`);
    else if (checkpoint) printLine(`run "${run.launch.name}" stopped (${endedBy}) after saving checkpoint-${checkpoint.step} (${checkpoint.path}); \`geolab train resume ${run.launch.name}\` continues from it`);
    else {
      printLine(
        `run "${run.launch.name}" stopped (${endedBy}) at step ${state.snapshot.step ?? '?'} without saying it saved a checkpoint` +
          `${endedBy === 'SIGINT' ? '' : ` within the ${graceS} s grace (--grace)`}; last checkpoint: ${lastCheckpoint(state.snapshot)}`,
      );
    }
  });
}

export interface WatchCommandOptions extends GlobalOptions {
  once?: boolean;
  /** Seconds between polls without a terminal. */
  interval?: number;
}

/** The Train screen on a terminal; plain lines until the run ends otherwise; `--once` one snapshot. */
export async function watchCommand(ref: string, opts: WatchCommandOptions): Promise<void> {
  if (!opts.once && !opts.json && canDrawTui()) {
    const { watchTrainRun } = await import('../../tui/train/entry.js');
    return watchTrainRun(ref, opts.workspace);
  }
  const intervalMs = (opts.interval ?? 2) * 1000;
  if (!(intervalMs > 0)) throw new UsageError(`--interval expects seconds > 0, got ${opts.interval}`);
  await withWorkspace(opts, async (ws) => {
    const run = resolveRun(ws.db, ref, ws.paths.train);
    const follower = followRun(ws.db, run);
    if (opts.once) {
      const state = follower.poll();
      recordState(ws.db, run, state);
      if (opts.json) printJson(state);
      else printLine(describeState(state));
      if (state.status === 'crashed') process.exitCode = EXIT.problemFound;
      return;
    }
    await follow(ws, run, follower, intervalMs, opts.json ?? false);
  });
}

async function follow(ws: Workspace, run: ResolvedRun, follower: ReturnType<typeof followRun>, intervalMs: number, json: boolean): Promise<void> {
  let last = '';
  let interrupted = false;
  const onSigint = () => (interrupted = true);
  process.on('SIGINT', onSigint);
  try {
    for (;;) {
      const state = follower.poll();
      recordState(ws.db, run, state);
      const line = progressLine(state);
      if (line !== last) {
        // Each line carries the newest metrics only; `--once --json` has the whole history.
        if (json) printJson({ ...state, snapshot: { ...state.snapshot, metrics: state.snapshot.metrics.slice(-1) } });
        else printLine(line);
        last = line;
      }
      if (state.status !== 'running') {
        if (!json) printLine(describeEnd(state));
        if (state.status === 'crashed') process.exitCode = EXIT.problemFound;
        return;
      }
      if (interrupted) {
        process.exitCode = EXIT.interrupted;
        return;
      }
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  } finally {
    process.off('SIGINT', onSigint);
  }
}

/** Runs the pre-flight unless --no-preflight; prints what did not pass; false (exit 1) on a failure. */
export async function gate(config: TrainConfig, opts: { preflight?: boolean; json?: boolean; workspace?: string }, deps: TrainDeps): Promise<boolean> {
  if (opts.preflight === false) return true;
  const preflight = deps.preflight ?? (async (c: TrainConfig) => (await import('../../train/preflight.js')).runPreflight(c, { workspace: opts.workspace }));
  const result = await preflight(config);
  for (const check of result.checks) {
    if (check.status === 'pass') continue;
    warn(`pre-flight ${check.status}: ${check.id}: ${check.message}${check.fix ? ` (${check.fix})` : ''}`);
  }
  if (!result.ok) {
    if (opts.json) printJson({ launched: false, preflight: result });
    warn('geolab: pre-flight failed: nothing launched');
    process.exitCode = EXIT.problemFound;
  }
  return result.ok;
}

function printPlan(plan: ReturnType<typeof planLaunch>, config: TrainConfig, opts: GlobalOptions): void {
  const grpo = grpoArguments(config);
  const lora = loraArguments(config);
  if (opts.json) {
    return printJson({
      dry_run: true,
      env_server: plan.envServer,
      trainer: plan.trainer,
      resolved_config: plan.resolvedConfigPath,
      log: plan.logPath,
      grpo_config: grpo,
      lora_config: lora,
    });
  }
  printLine('would run (nothing written, nothing started):');
  if (plan.envServer) printLine(`  environment server: ${shellLine(plan.envServer)}`);
  printLine(`  trainer:            ${shellLine(plan.trainer)}${plan.envServer ? '   (the config with the server\'s URL in env.url)' : ''}`);
  printLine(`  in its own process group, output to ${plan.logPath}`);
  // Every argument the trainer hands TRL and peft (docs/training.md, "The recipe against TRL's defaults").
  printLine('GRPOConfig(');
  for (const line of argumentLines(grpo)) printLine(`  ${line},`);
  printLine(')');
  printLine('LoraConfig(');
  for (const line of argumentLines(lora)) printLine(`  ${line},`);
  printLine(')');
}

function report(record: LaunchRecord, opts: GlobalOptions, what: string): void {
  if (opts.json) return printJson(record);
  printLine(`run "${record.name}" ${what}: trainer pid ${record.pid}, log ${record.log_path}`);
  if (record.env_server) printLine(`environment server on ${record.env_server.url} (pid ${record.env_server.pid})`);
  printLine(`watch it: geolab train watch ${record.name}   stop it: geolab train stop ${record.name}`);
}

function rowOf(record: LaunchRecord, config: TrainConfig) {
  return {
    name: record.name,
    config_path: record.config_path,
    config_json: JSON.stringify(config),
    output_dir: config.output_dir,
    status: 'running' as const,
    pid: record.pid,
    env_pid: record.env_server?.pid ?? null,
    started_at: record.started_at,
    ended_at: null,
    last_step: null,
    max_steps: config.grpo.max_steps,
  };
}

/** The script a run was launched with: the argument before the resolved config. */
function scriptOf(record: LaunchRecord): string | undefined {
  const at = record.command.indexOf(record.resolved_config_path);
  return at > 0 ? record.command[at - 1] : undefined;
}

async function withWorkspace(opts: GlobalOptions, work: (ws: Workspace) => Promise<void>): Promise<void> {
  const { openWorkspace } = await import('../../store/index.js');
  const ws = await openWorkspace(opts.workspace);
  try {
    await work(ws);
  } finally {
    ws.close();
  }
}

function shellLine(argv: string[]): string {
  return argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}

function lastCheckpoint(snapshot: RunSnapshot): string {
  return snapshot.checkpoints.at(-1)?.path ?? 'none';
}

/** One line per change while following: step, ETA, rate, the key metrics, warnings. */
export function progressLine(state: RunState): string {
  const s = state.snapshot;
  const parts = [`${state.name}`, s.phase, `step ${s.step ?? '-'}/${s.max_steps ?? '?'}`];
  if (s.eta_s !== null && state.status === 'running') parts.push(`ETA ${formatDuration(s.eta_s)}`);
  if (s.s_per_it !== null) parts.push(`${s.s_per_it.toFixed(1)} s/it`);
  const last = s.metrics.at(-1)?.values;
  for (const name of ['reward', 'loss', 'completions/clipped_ratio'] as const) {
    if (last?.[name] !== undefined) parts.push(`${name} ${formatMetric(last[name])}`);
  }
  return [parts.join(' · '), ...s.warnings.map((w) => `  warning: ${w.message}`)].join('\n');
}

function describeState(state: RunState): string {
  const s = state.snapshot;
  const last = s.metrics.at(-1);
  const lines = [
    `run ${state.name} · ${state.status} · pid ${state.pid}${state.env_url ? ` · environment ${state.env_url}` : ''}`,
    `phase ${s.phase} · step ${s.step ?? '-'}/${s.max_steps ?? '?'}${s.eta_s !== null && state.status === 'running' ? ` · ETA ${formatDuration(s.eta_s)}` : ''}${s.s_per_it !== null ? ` · ${s.s_per_it.toFixed(1)} s/it` : ''}`,
    last ? `metrics at step ${last.step}: ${KEY_METRICS.filter((k) => last.values[k] !== undefined).map((k) => `${k} ${formatMetric(last.values[k]!)}`).join(' · ')}` : 'metrics: none logged yet',
    `checkpoints: ${s.checkpoints.map((c) => c.step).join(', ') || 'none'}${s.resumed_from ? ` · resumed from ${s.resumed_from.checkpoint}` : ''}`,
    ...s.warnings.map((w) => `warning: ${w.message}`),
    ...(state.notes ?? []),
    `log: ${state.log_path}`,
  ];
  if (s.crashed) lines.push('crashed; the last lines of the log:', ...s.crashed.last_lines.map((l) => `  ${l}`));
  return lines.join('\n');
}

function describeEnd(state: RunState): string {
  const s = state.snapshot;
  const head = `run ${state.name} ${state.status} at step ${s.step ?? '-'}/${s.max_steps ?? '?'}; last checkpoint: ${lastCheckpoint(s)}`;
  return s.crashed ? [head, 'the last lines of the log:', ...s.crashed.last_lines.map((l) => `  ${l}`)].join('\n') : head;
}

export function formatMetric(value: number): string {
  return Math.abs(value) >= 100 ? value.toFixed(0) : Math.abs(value) >= 1 ? value.toFixed(2) : value.toPrecision(3);
}
