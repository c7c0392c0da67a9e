/**
 * The NVIDIA driver against the CUDA the installed torch was built for (docs/training.md, "Install").
 * A torch wheel carries its CUDA runtime; the driver must be at least the one NVIDIA names for that
 * toolkit release, or the first CUDA call fails ("driver too old") after the model has loaded.
 */
import { compareVersions } from './requirements.js';

/**
 * Minimum Linux x86_64 driver per CUDA toolkit release (the GA release of each), from NVIDIA's CUDA
 * Toolkit release notes, table "CUDA Toolkit and Corresponding Driver Versions".
 */
export const MIN_DRIVER_FOR_CUDA: Readonly<Record<string, string>> = {
  '11.8': '520.61.05',
  '12.1': '530.30.02',
  '12.4': '550.54.14',
  '12.6': '560.28.03',
  '12.8': '570.26',
  '12.9': '575.51.03',
  '13.0': '580.65.06',
};

/**
 * When the installed torch does not say which CUDA it carries: 12.8, the CUDA of the default Linux
 * torch wheels on PyPI since torch 2.7 (an assumption for the pinned torch; a wheel that names its
 * CUDA overrides it).
 */
export const ASSUMED_TORCH_CUDA = '12.8';

/**
 * The CUDA release (major.minor) a torch distribution was built for: its local version tag
 * (`2.13.0+cu128`), else the CUDA runtime wheel it requires (`nvidia-cuda-runtime-cu12==12.8.90`).
 */
export function torchCuda(version: string | null | undefined, requires: readonly string[] | null | undefined): string | undefined {
  const tag = /\+cu(\d+)(\d)$/.exec(version ?? '');
  if (tag) return `${tag[1]}.${tag[2]}`;
  for (const req of requires ?? []) {
    const m = /^nvidia-cuda-runtime(?:-cu\d+)?\s*==\s*(\d+)\.(\d+)/i.exec(req.trim());
    if (m) return `${m[1]}.${m[2]}`;
  }
  return undefined;
}

/** The minimum driver for a CUDA release: its own row, else the nearest earlier row (a lower bound only). */
export function minDriver(cuda: string): { driver: string; row: string } | undefined {
  const rows = Object.keys(MIN_DRIVER_FOR_CUDA).sort(compareVersions);
  const row = rows.filter((r) => compareVersions(r, cuda) <= 0).pop();
  return row ? { driver: MIN_DRIVER_FOR_CUDA[row]!, row } : undefined;
}

export const driverAtLeast = (driver: string, min: string): boolean => compareVersions(driver, min) >= 0;
