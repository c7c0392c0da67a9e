/** Runs the real `bin/geolab.js` as a child process, with a private workspace. */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/geolab.js', import.meta.url));

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function geolab(
  args: string[],
  options: { input?: string; env?: Record<string, string>; home?: string; timeoutMs?: number } = {},
): CliResult {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    input: options.input ?? '',
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', ...(options.home ? { GEOLAB_HOME: options.home } : {}), ...options.env },
    // A hang becomes a failed run (code -1) instead of a stuck suite.
    timeout: options.timeoutMs ?? 60_000,
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/**
 * The binary as a child process, asynchronously: for tests whose servers answer it from this process.
 * `child` is there to signal it; it is killed if it runs past a minute.
 */
export function spawnGeolab(args: string[], options: { env?: Record<string, string>; home?: string; timeoutMs?: number } = {}): { child: ChildProcess; done: Promise<CliResult> } {
  return spawnCommand(process.execPath, [BIN, ...args], { NO_COLOR: '1', ...(options.home ? { GEOLAB_HOME: options.home } : {}), ...options.env }, options.timeoutMs);
}

/** Any command as a child process, its output collected; `done` settles when it ends (killed after `timeoutMs`, default 60 s). */
export function spawnCommand(command: string, args: string[], env: Record<string, string> = {}, timeoutMs = 60_000): { child: ChildProcess; done: Promise<CliResult> } {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<CliResult>((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
  return { child, done };
}

export function jsonLines(text: string): unknown[] {
  return text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as unknown);
}
