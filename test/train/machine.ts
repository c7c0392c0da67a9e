/** A fake GPU machine for pre-flight: `nvidia-smi` and `python3` shell scripts first on PATH. */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { tempDir } from '../helpers/fixtures.js';

export const A100 = 'NVIDIA A100-SXM4-80GB, 81920, 81000, 8.0';
export const RTX_24GB = 'NVIDIA GeForce RTX 4090, 24564, 24000, 8.9';
export const V100 = 'Tesla V100-SXM2-32GB, 32768, 32000, 7.0';

export const GOOD_PACKAGES = { torch: '2.10.0', transformers: '5.2.0', trl: '0.29.0', peft: '0.18.1', vllm: '0.17.1', accelerate: '1.12.0' };

export interface Machine {
  /** One nvidia-smi line per GPU; null: no nvidia-smi at all. */
  gpus?: string[] | null;
  /** What the python probe reports; null: no python3 at all. */
  python?: { version: string; packages: Record<string, string | null> } | null;
  /** Extra executables: name to shell script body. */
  bins?: Record<string, string>;
}

/** A folder of fake executables; returns a PATH with it first (then the system's, for /bin/sh's tools). */
export function fakeMachine(machine: Machine = {}): { path: string; dir: string } {
  const dir = join(tempDir('geolab-machine-'), 'bin');
  mkdirSync(dir);
  const script = (name: string, body: string) => {
    writeFileSync(join(dir, name), `#!/bin/sh\n${body}\n`);
    chmodSync(join(dir, name), 0o755);
  };
  const gpus = machine.gpus === undefined ? [A100] : machine.gpus;
  if (gpus !== null) script('nvidia-smi', `cat <<'END'\n${gpus.join('\n')}\nEND`);
  const python = machine.python === undefined ? { version: '3.11.7', packages: GOOD_PACKAGES } : machine.python;
  if (python !== null) script('python3', `cat <<'END'\n${JSON.stringify({ python: python.version, packages: python.packages })}\nEND`);
  for (const [name, body] of Object.entries(machine.bins ?? {})) script(name, body);
  return { dir, path: `${dir}:/usr/bin:/bin` };
}

/** A loopback port nobody listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
