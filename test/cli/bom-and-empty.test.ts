/**
 * A UTF-8 byte order mark is read and an empty task file is refused the same way by every command
 * that reads task files (`tasks validate | stats | import`, `env serve --tasks`); the real binary.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, geolab } from '../helpers/cli.js';
import { makeTask, tempDir } from '../helpers/fixtures.js';

const BOM = '\uFEFF';

function taskFile(text: string): string {
  const file = join(tempDir('geolab-bom-'), 'tasks.jsonl');
  writeFileSync(file, text);
  return file;
}

const withBom = () => taskFile(BOM + [makeTask(0), makeTask(1)].map((t) => JSON.stringify(t)).join('\n') + '\n');

/** `env serve --tasks dev=FILE`: the first line it prints, or its exit code and stderr. */
function serve(file: string, home: string): Promise<{ listening: Record<string, unknown> } | { code: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'env', 'serve', '--port', '0', '--json', '--tasks', `dev=${file}`], {
      env: { ...process.env, GEOLAB_HOME: home, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (!stdout.includes('\n')) return;
      child.kill('SIGTERM');
      resolve({ listening: JSON.parse(stdout.split('\n')[0]!) as Record<string, unknown> });
    });
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code: code ?? -1, stderr }));
  });
}

describe('task files with a byte order mark', () => {
  it('are read by tasks validate, stats and import, and served by env serve', async () => {
    const home = tempDir('geolab-bom-home-');
    const file = withBom();
    const validate = geolab(['tasks', 'validate', file], { home });
    expect(validate.stdout + validate.stderr).toContain('2 usable task(s), 0 error(s)');
    expect(validate.code).toBe(0);
    expect(geolab(['tasks', 'stats', file], { home }).code).toBe(0);
    const imported = geolab(['tasks', 'import', file, '--name', 'bom'], { home });
    expect(imported.code, imported.stderr).toBe(0);
    const served = await serve(file, home);
    expect(served).toMatchObject({ listening: { splits: { dev: 2 } } });
  });
});

describe('an empty task file', () => {
  it.each([
    ['empty', ''],
    ['only a byte order mark and blank lines', `${BOM}\n\n`],
  ])('(%s) is an error for every command, naming the file', async (_what, text) => {
    const home = tempDir('geolab-empty-home-');
    const file = taskFile(text);
    const expected = `no tasks in file`;
    const validate = geolab(['tasks', 'validate', file], { home });
    expect(validate.code).toBe(1);
    expect(validate.stderr + validate.stdout).toContain(`${file}:0: error: (file): ${expected}`);
    for (const args of [
      ['tasks', 'stats', file],
      ['tasks', 'import', file, '--name', 'empty'],
    ]) {
      const r = geolab(args, { home });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toContain(`geolab: ${file}, field (file): ${expected}`);
      expect(r.stderr).toContain('expected one JSON task per line');
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
    const served = await serve(file, home);
    expect(served).toMatchObject({ code: 2, stderr: expect.stringContaining(`${file}, field (file): ${expected}`) });
  });
});
