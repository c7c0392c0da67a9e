/** Runs the shipped Python trainer's files in a real python3 (standard library only). */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

export const PYTHON = process.env.GEOLAB_TEST_PYTHON ?? 'python3';
export const FIXTURES = join(import.meta.dirname, 'python-fixtures');

export interface PythonResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A python3 child run to its end (killed after `timeoutMs`); a missing interpreter fails loudly, never skips. */
export function runPython(args: string[], options: { env?: Record<string, string>; timeoutMs?: number } = {}): Promise<PythonResult> {
  return new Promise((resolve, reject) => {
    // Bytecode would land beside the shipped sources, which package.json ships whole.
    const child = spawn(PYTHON, args, { env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(
        err.code === 'ENOENT'
          ? new Error(`${PYTHON} is not on PATH: the trainer tests need a real Python 3.10+ (standard library only); install it or set GEOLAB_TEST_PYTHON`)
          : err,
      );
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
}
