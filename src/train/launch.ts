/**
 * `train launch` (docs/training.md, docs/reliability.md): a checked config becomes a running trainer. The local environment
 * server and the trainer each run in a process group of their own, detached, so they outlive the
 * command and `train stop` can signal each whole group (the trainer's vLLM and DataLoader workers
 * included). More than one GPU goes through `accelerate launch`, never a launcher of our own.
 * What was started is written to `<output_dir>/launch.json` (atomically, secrets redacted): the one
 * record watch, stop and resume read, with or without a workspace. Each process is recorded with its
 * exact argv and its start time, read at once after it started: a pid is trusted later only while both
 * still match (src/processes.ts, docs/reliability.md). A record that fails validation is refused.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { EXIT, GeolabError, InputError, ServiceError } from '../core/errors.js';
import { REDACTED, isSecretName, redactDeep, registerSecret } from '../core/secrets.js';
import { isRecord } from '../core/values.js';
import { DEFAULT_MAX_SESSIONS } from '../env/server/defaults.js';
import { writeFileAtomic } from '../files.js';
import { PACKAGE_ROOT } from '../paths.js';
import { isSignallablePid, signalGroup, startTimeOf } from '../processes.js';
import type { TrainConfig } from './config.js';
import { TRAINER_SCRIPT } from './python-path.js';

/** geolab itself, for the environment server child. */
export const GEOLAB_BIN = join(PACKAGE_ROOT, 'bin', 'geolab.js');

export const LAUNCH_FILE = 'launch.json';
export const LOG_FILE = 'train.log';
export const PROGRESS_FILE = 'progress.jsonl';
export const RESOLVED_CONFIG_FILE = 'config.resolved.json';
export const ENV_LOG_FILE = 'env-server.log';
export const TRACES_FILE = join('traces', 'rollouts.jsonl');

/** How long the environment server may take to say where it listens (loading task sets, workers). */
const ENV_START_TIMEOUT_MS = 60_000;

export interface LaunchRecord {
  name: string;
  /** The config file as given (absolute). */
  config_path: string;
  /** What the trainer reads: the config with output_dir absolute and the local server's URL. */
  resolved_config_path: string;
  command: string[];
  cwd: string;
  /** The trainer's environment, every secret-looking value replaced. */
  environment: Record<string, string>;
  /** The trainer's pid, the leader of its process group. */
  pid: number;
  /**
   * When the trainer started, in clock ticks since boot (`/proc/PID/stat` field 22). Absent in records
   * written before geolab kept it, and where there is no /proc: such a process cannot be verified.
   */
  start_time?: number;
  env_server: { pid: number; start_time?: number; url: string; command: string[]; log_path: string } | null;
  log_path: string;
  started_at: string;
  resumed: boolean;
}

/** The trainer's argv: the configured python, or `accelerate launch` beside it for several GPUs. */
export function trainerCommand(config: TrainConfig, script: string, resolvedConfig: string, resume: boolean): string[] {
  const args = [script, resolvedConfig, ...(resume ? ['--resume'] : [])];
  if (config.gpus <= 1) return [config.python, ...args];
  // The accelerate of the trainer's own environment: the one installed beside its python.
  const accelerate = config.python.includes('/') ? join(dirname(config.python), 'accelerate') : 'accelerate';
  return [accelerate, 'launch', '--num_processes', String(config.gpus), ...args];
}

/** `geolab env serve` for a local run: loopback, a free port, room for every concurrent rollout. */
export function envServerCommand(config: TrainConfig, workspace: string | undefined): string[] {
  const sessions = Math.max(DEFAULT_MAX_SESSIONS, config.grpo.generation_batch_size * config.gpus * 2);
  return [
    process.execPath,
    GEOLAB_BIN,
    'env',
    'serve',
    '--host',
    '127.0.0.1',
    '--port',
    '0',
    '--json',
    '--max-sessions',
    String(sessions),
    ...(config.env.tasks.length ? ['--tasks', ...config.env.tasks] : []),
    ...(config.env.panos ? ['--panos', config.env.panos] : []),
    // The server runs in the config's folder (its task and panorama paths are relative to it), the workspace where the user meant it.
    ...(workspace ? ['--workspace', resolve(workspace)] : []),
  ];
}

/**
 * The trainer's environment as recorded: variables named like keys, and those the config lists as
 * secrets, are registered (so no other output leaks them either) and replaced; then every value is
 * redacted, for a key pasted into another variable (a URL with a token in it).
 */
export function recordedEnvironment(env: NodeJS.ProcessEnv, secretNames: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (isSecretName(name) || secretNames.includes(name)) {
      registerSecret(value, `$${name}`);
      out[name] = REDACTED;
    } else out[name] = value;
  }
  return redactDeep(out);
}

export interface LaunchOptions {
  configPath: string;
  config: TrainConfig;
  resume: boolean;
  /** The trainer script (default: geolab's); a relative path is from the current directory, as typed. */
  script?: string;
  /** The workspace the local environment server serves. */
  workspace?: string;
  env?: NodeJS.ProcessEnv;
}

/** What launch would start, nothing started: the argv of each process and where things go. */
export interface LaunchPlan {
  configPath: string;
  resolvedConfigPath: string;
  outputDir: string;
  logPath: string;
  trainer: string[];
  envServer: string[] | null;
}

export function planLaunch(options: LaunchOptions): LaunchPlan {
  const { config } = options;
  const outputDir = config.output_dir;
  const resolvedConfigPath = join(outputDir, RESOLVED_CONFIG_FILE);
  return {
    configPath: options.configPath,
    resolvedConfigPath,
    outputDir,
    logPath: join(outputDir, LOG_FILE),
    // The trainer runs in the config's folder: the script's path is made absolute here, where it was typed.
    trainer: trainerCommand(config, resolve(options.script ?? TRAINER_SCRIPT), resolvedConfigPath, options.resume),
    envServer: config.env.mode === 'local' ? envServerCommand(config, options.workspace) : null,
  };
}

/**
 * Starts the run: the environment server (local mode) and its URL written into the resolved config,
 * then the trainer, then launch.json. A failure on the way stops what was already started.
 */
export async function launch(options: LaunchOptions): Promise<LaunchRecord> {
  const plan = planLaunch(options);
  const env = { ...(options.env ?? process.env), PYTHONUNBUFFERED: '1' };
  mkdirSync(plan.outputDir, { recursive: true });
  let server: LaunchRecord['env_server'] = null;
  let trainerPid: number | undefined;
  // Ctrl-C while the server starts: what was started is stopped, not left running unrecorded.
  const interrupt = { requested: false };
  const onSigint = () => (interrupt.requested = true);
  process.on('SIGINT', onSigint);
  try {
    let config = options.config;
    if (plan.envServer) {
      const logPath = join(plan.outputDir, ENV_LOG_FILE);
      const started = await startEnvServer(plan.envServer, logPath, env, dirname(options.configPath), interrupt);
      server = { ...started, command: plan.envServer, log_path: logPath };
      config = { ...config, env: { ...config.env, url: started.url } };
    }
    writeFileAtomic(plan.resolvedConfigPath, JSON.stringify(config, null, 2) + '\n');
    const trainer = await spawnDetached(plan.trainer, plan.logPath, env, dirname(options.configPath));
    const pid = (trainerPid = trainer.pid);
    const record: LaunchRecord = {
      name: config.name,
      config_path: options.configPath,
      resolved_config_path: plan.resolvedConfigPath,
      command: plan.trainer,
      cwd: dirname(options.configPath),
      environment: recordedEnvironment(env, config.secrets),
      pid,
      ...(trainer.start_time === undefined ? {} : { start_time: trainer.start_time }),
      env_server: server,
      log_path: plan.logPath,
      started_at: new Date().toISOString(),
      resumed: options.resume,
    };
    writeFileAtomic(join(plan.outputDir, LAUNCH_FILE), JSON.stringify(redactDeep(record), null, 2) + '\n');
    return record;
  } catch (err) {
    // Nothing runs that launch.json does not record.
    if (trainerPid !== undefined) signalGroup(trainerPid, 'SIGTERM');
    if (server) signalGroup(server.pid, 'SIGTERM');
    throw err;
  } finally {
    process.off('SIGINT', onSigint);
  }
}

/**
 * `<outputDir>/launch.json`, validated: a record with an empty path, a pid that is not a whole number
 * above 1, or a start time that is not a tick count is refused (exit 2, naming the file and field),
 * so that no pid from it is ever signalled. A start time may be absent (a record from before geolab
 * kept one): its processes are then "cannot be verified" and never signalled (src/train/watch.ts).
 */
export function readLaunchRecord(outputDir: string): LaunchRecord | undefined {
  const file = join(outputDir, LAUNCH_FILE);
  if (!existsSync(file)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new InputError(`not JSON: ${(err as Error).message}`, { file });
  }
  const record = validateLaunchRecord(value, file);
  launchFiles.set(record, file);
  return record;
}

/** Where each record read came from, for errors that name it. */
const launchFiles = new WeakMap<LaunchRecord, string>();

/** The launch.json a record was read from (for one just launched: where it was written). */
export function launchFileOf(record: LaunchRecord): string {
  return launchFiles.get(record) ?? join(dirname(record.log_path), LAUNCH_FILE);
}

export function validateLaunchRecord(value: unknown, file: string): LaunchRecord {
  const fail = (field: string, message: string): never => {
    throw new InputError(`${message}; nothing in this record is trusted or signalled`, { file, field });
  };
  if (!isRecord(value)) return fail('(top level)', 'expected a launch record {"name", "pid", "log_path", ...}');
  const path = (v: unknown, field: string) => {
    if (typeof v !== 'string' || v.trim() === '') fail(field, `expected a non-empty path, got ${describe(v)}`);
  };
  const pid = (v: unknown, field: string) => {
    if (!isSignallablePid(v)) fail(field, `expected a process id (a whole number above 1), got ${describe(v)}`);
  };
  const startTime = (v: unknown, field: string) => {
    if (v !== undefined && !(typeof v === 'number' && Number.isSafeInteger(v) && v >= 0)) {
      fail(field, `expected the process's start time in clock ticks (a whole number >= 0), got ${describe(v)}`);
    }
  };
  const command = (v: unknown, field: string) => {
    if (!Array.isArray(v) || v.length === 0 || !v.every((a) => typeof a === 'string') || (v[0] as string).trim() === '') {
      fail(field, `expected the argv started (a non-empty list of strings), got ${describe(v)}`);
    }
  };
  if (typeof value.name !== 'string' || value.name.trim() === '') fail('name', `expected the run's name, got ${describe(value.name)}`);
  path(value.config_path, 'config_path');
  path(value.resolved_config_path, 'resolved_config_path');
  path(value.cwd, 'cwd');
  path(value.log_path, 'log_path');
  command(value.command, 'command');
  pid(value.pid, 'pid');
  startTime(value.start_time, 'start_time');
  if (value.environment !== undefined && !isRecord(value.environment)) fail('environment', `expected an object, got ${describe(value.environment)}`);
  const server = value.env_server;
  if (server !== null && server !== undefined) {
    if (!isRecord(server)) return fail('env_server', `expected null or {"pid", "url", ...}, got ${describe(server)}`);
    pid(server.pid, 'env_server.pid');
    startTime(server.start_time, 'env_server.start_time');
    if (typeof server.url !== 'string' || server.url.trim() === '') fail('env_server.url', `expected the server's URL, got ${describe(server.url)}`);
    command(server.command, 'env_server.command');
    path(server.log_path, 'env_server.log_path');
  }
  return { ...value, env_server: server ?? null } as unknown as LaunchRecord;
}

function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/**
 * Starts a process in its own group with stdout and stderr appended to `logPath`; resolves once it
 * runs, with its start time read at once (before this process could reap it, so it is there to read).
 * `what` names the program for the error when it cannot start.
 */
export async function spawnDetached(
  argv: readonly string[],
  logPath: string,
  env: NodeJS.ProcessEnv,
  cwd: string,
  what = 'the config\'s "python", or accelerate beside it',
): Promise<{ pid: number; start_time?: number }> {
  const fd = openSync(logPath, 'a');
  try {
    const child = spawn(argv[0]!, argv.slice(1), { detached: true, stdio: ['ignore', fd, fd], env, cwd });
    try {
      await once(child, 'spawn');
    } catch (err) {
      throw new GeolabError(`cannot start ${argv[0]}: ${(err as NodeJS.ErrnoException).code ?? String(err)} (${what})`);
    }
    const pid = child.pid!;
    const start_time = startTimeOf(pid);
    child.unref();
    return { pid, ...(start_time === undefined ? {} : { start_time }) };
  } finally {
    closeSync(fd);
  }
}

/** Starts `geolab env serve --json` and reads the address it bound from the first line of its output. */
async function startEnvServer(
  argv: string[],
  logPath: string,
  env: NodeJS.ProcessEnv,
  cwd: string,
  interrupt: { requested: boolean },
): Promise<{ pid: number; start_time?: number; url: string }> {
  const start = statSizeOr0(logPath);
  const started = await spawnDetached(argv, logPath, env, cwd);
  const { pid } = started;
  const deadline = Date.now() + ENV_START_TIMEOUT_MS;
  for (;;) {
    const text = readFileSync(logPath).subarray(start).toString('utf8');
    const line = text.split('\n').find((l) => l.startsWith('{"url"'));
    if (line) return { ...started, url: (JSON.parse(line) as { url: string }).url };
    const alive = signalGroup(pid, 0);
    if (interrupt.requested) {
      signalGroup(pid, 'SIGTERM');
      throw new GeolabError('interrupted while the environment server started: nothing launched', EXIT.interrupted);
    }
    if (!alive || Date.now() > deadline) {
      if (alive) signalGroup(pid, 'SIGTERM');
      const tail = text.trim().split('\n').slice(-5).join('\n');
      throw new ServiceError(`the local environment server did not start${alive ? ` within ${ENV_START_TIMEOUT_MS / 1000} s` : ''}; its output (${logPath}):\n${tail}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

function statSizeOr0(file: string): number {
  return existsSync(file) ? statSync(file).size : 0;
}
