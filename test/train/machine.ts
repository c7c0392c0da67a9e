/** A fake GPU machine for pre-flight: `nvidia-smi` and `python3` shell scripts first on PATH. */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { tempDir } from '../helpers/fixtures.js';

export const A100 = 'NVIDIA A100-SXM4-80GB, 81920, 81000, 8.0';
export const RTX_24GB = 'NVIDIA GeForce RTX 4090, 24564, 24000, 8.9';
export const V100 = 'Tesla V100-SXM2-32GB, 32768, 32000, 7.0';

/** The installed versions requirements.txt asks for. */
export const GOOD_PACKAGES = {
  torch: '2.13.0',
  vllm: '0.27.1',
  trl: '1.12.0',
  transformers: '5.5.3',
  peft: '0.18.1',
  accelerate: '1.13.0',
  jmespath: '1.0.1',
  datasets: '4.8.0',
  pillow: '11.3.0',
};
/** What a PyPI torch wheel for CUDA 12.8 declares (importlib.metadata.requires). */
export const TORCH_CU128_REQUIRES = ['nvidia-cuda-runtime-cu12==12.8.90; platform_system == "Linux"', 'filelock'];
/** An R580 driver: enough for CUDA 12.8 and 13.0. */
export const GOOD_DRIVER = '580.65.06';

export interface Machine {
  /** One nvidia-smi line per GPU; null: no nvidia-smi at all. */
  gpus?: string[] | null;
  /** What the python probe reports; null: no python3 at all. */
  python?: { version: string; packages: Record<string, string | null>; torchRequires?: string[] } | null;
  /** What `nvidia-smi --query-gpu=driver_version` prints (default GOOD_DRIVER). */
  driver?: string;
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
  const driver = machine.driver ?? GOOD_DRIVER;
  const driverLines = gpus?.map(() => driver).join('\n') ?? '';
  if (gpus !== null) script('nvidia-smi', `case "$*" in\n  *driver_version*) cat <<'END'\n${driverLines}\nEND\n  ;;\n  *) cat <<'END'\n${gpus.join('\n')}\nEND\n  ;;\nesac`);
  const python: Machine['python'] = machine.python === undefined ? { version: '3.11.7', packages: GOOD_PACKAGES } : machine.python;
  if (python !== null) script('python3', `cat <<'END'\n${JSON.stringify({ python: python.version, packages: python.packages, torch_requires: python.torchRequires ?? TORCH_CU128_REQUIRES })}\nEND`);
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
