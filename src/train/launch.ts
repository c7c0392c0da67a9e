/**
 * `train launch` (docs/training.md, docs/reliability.md): a checked config becomes a running trainer. The local environment
 * server and the trainer each run in a process group of their own, detached, so they outlive the
 * command and `train stop` can signal each whole group (the trainer's vLLM and DataLoader workers
 * included). More than one GPU goes through `accelerate launch`, never a launcher of our own.
 * What was started is written to `<output_dir>/launch.json` (atomically, secrets redacted): the one
 * record watch, stop and resume read, with or without a workspace.
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
  env_server: { pid: number; url: string; command: string[]; log_path: string } | null;
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
  /** The trainer script (default: geolab's). */
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
    trainer: trainerCommand(config, options.script ?? TRAINER_SCRIPT, resolvedConfigPath, options.resume),
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
    const pid = (trainerPid = await spawnDetached(plan.trainer, plan.logPath, env, dirname(options.configPath)));
    const record: LaunchRecord = {
      name: config.name,
      config_path: options.configPath,
      resolved_config_path: plan.resolvedConfigPath,
      command: plan.trainer,
      cwd: dirname(options.configPath),
      environment: recordedEnvironment(env, config.secrets),
      pid,
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

export function readLaunchRecord(outputDir: string): LaunchRecord | undefined {
  const file = join(outputDir, LAUNCH_FILE);
  if (!existsSync(file)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new InputError(`not JSON: ${(err as Error).message}`, { file });
  }
  if (!isRecord(value) || typeof value.pid !== 'number' || typeof value.log_path !== 'string' || typeof value.name !== 'string') {
    throw new InputError('expected a launch record {"name", "pid", "log_path", ...}', { file });
  }
  return value as unknown as LaunchRecord;
}

/** Sends a signal to a whole process group; false when the group is gone. */
export function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw err;
  }
}

/** Starts a process in its own group with stdout and stderr appended to `logPath`; resolves once it runs. */
async function spawnDetached(argv: string[], logPath: string, env: NodeJS.ProcessEnv, cwd: string): Promise<number> {
  const fd = openSync(logPath, 'a');
  try {
    const child = spawn(argv[0]!, argv.slice(1), { detached: true, stdio: ['ignore', fd, fd], env, cwd });
    try {
      await once(child, 'spawn');
    } catch (err) {
      throw new GeolabError(`cannot start ${argv[0]}: ${(err as NodeJS.ErrnoException).code ?? String(err)} (the config's "python", or accelerate beside it)`);
    }
    child.unref();
    return child.pid!;
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
): Promise<{ pid: number; url: string }> {
  const start = statSizeOr0(logPath);
  const pid = await spawnDetached(argv, logPath, env, cwd);
  const deadline = Date.now() + ENV_START_TIMEOUT_MS;
  for (;;) {
    const text = readFileSync(logPath).subarray(start).toString('utf8');
    const line = text.split('\n').find((l) => l.startsWith('{"url"'));
    if (line) return { pid, url: (JSON.parse(line) as { url: string }).url };
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
