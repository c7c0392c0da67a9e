/** A reader that closes the pipe early (`geolab ... | head -1`) ends the command quietly, exit 0. */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';

it('stops without a stack trace when stdout is closed by its reader', async () => {
  const child = spawn(process.execPath, [BIN, 'geo', 'locate', '-'], { env: { ...process.env, GEOLAB_HOME: tempDir(), NO_COLOR: '1' }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // Far more output than a pipe buffers, so the writer is still writing when the reader goes.
  // The command may end before it has read all of it: that pipe closing is expected too.
  child.stdin.on('error', () => {});
  child.stdin.end('10,10\n'.repeat(50_000));
  const [first] = (await once(child.stdout, 'data')) as [Buffer];
  expect(first.toString()).toContain('Nigeria');
  child.stdout.destroy();
  const [code] = (await once(child, 'exit')) as [number | null];
  expect(stderr).toBe('');
  expect(code).toBe(0);
});
