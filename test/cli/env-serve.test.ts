import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { makeTask, tempDir, writeJsonl } from '../helpers/fixtures.js';

const children: ChildProcess[] = [];
afterEach(() => children.splice(0).forEach((c) => c.exitCode === null && c.kill('SIGKILL')));

/** Starts `geolab env serve --port 0 --json ...` and resolves with the first line it prints. */
function serve(args: string[]): Promise<{ child: ChildProcess; info: Record<string, unknown> }> {
  const child = spawn(process.execPath, [BIN, 'env', 'serve', '--port', '0', '--json', ...args], {
    env: { ...process.env, GEOLAB_HOME: tempDir() },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).once('line', (line) =>
      resolve({ child, info: JSON.parse(line) as Record<string, unknown> }),
    );
  });
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

describe('geolab env serve', () => {
  it('serves the demo splits on loopback and shuts down cleanly on SIGTERM', async () => {
    const { child, info } = await serve([]);
    expect(String(info.url)).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(info.splits).toMatchObject({ train: expect.any(Number), eval: expect.any(Number) });
    const health = await fetch(`${String(info.url)}/health`);
    expect(await health.json()).toEqual({ status: 'healthy' });
    const done = exited(child);
    child.kill('SIGTERM');
    expect(await done).toBe(0);
  });

  it('serves task files given as SPLIT=FILE and exits 130 on SIGINT', async () => {
    const file = writeJsonl([makeTask(0), makeTask(1), makeTask(2)]);
    const { child, info } = await serve(['--tasks', `dev=${file}`, '--max-sessions', '8']);
    expect(info.splits).toEqual({ dev: 3 });
    const specs = await (await fetch(`${String(info.url)}/geoguesser_env/tasks`, { method: 'POST', body: '{"split":"dev"}' })).json();
    expect((specs as { tasks: { task_id: string }[] }).tasks.map((t) => t.task_id)).toEqual(['fx-00000', 'fx-00001', 'fx-00002']);
    const done = exited(child);
    child.kill('SIGINT');
    expect(await done).toBe(130);
  });

  it('refuses a broken task file before listening (exit 2, file:line)', async () => {
    const file = writeJsonl([makeTask(0), '{']);
    const child = spawn(process.execPath, [BIN, 'env', 'serve', '--port', '0', '--tasks', `dev=${file}`], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    expect(await exited(child)).toBe(2);
    expect(stderr).toContain(`${file}:2, field (line): unparseable JSON`);
  });
});
