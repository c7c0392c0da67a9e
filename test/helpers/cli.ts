/** Runs the real `bin/geolab.js` as a child process, with a private workspace. */
import { spawnSync } from 'node:child_process';
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

export function jsonLines(text: string): unknown[] {
  return text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as unknown);
}
