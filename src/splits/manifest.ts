/** The manifest written beside a split: what went in, what came out, and how to tell it is clean. */
import { dirname, join } from 'node:path';
import type { Task } from '../core/tasks.js';
import { fileSha256, readRegularFile } from '../files.js';
import { sha256Hex } from '../tasks/panoramas.js';
import type { Dropped, SplitOptions, SplitResult } from './build.js';
import type { LeakPotential } from './leak.js';

export interface SplitTaskSet {
  name: string;
  version: string;
}

export interface SideSummary {
  tasks: number;
  countries: number;
  per_country: Record<string, number>;
}

export interface SplitManifest {
  eval: SideSummary;
  train: SideSummary;
  dropped: Dropped;
  closest_cross_km: number | null;
  options: {
    eval: number;
    eval_per_country: number;
    /** Per-country eval caps that differ from eval_per_country (set on the TUI's Splits screen). */
    eval_caps?: Record<string, number>;
    buffer_km: number;
    countries: readonly string[] | null;
    exclude_countries: readonly string[] | null;
    train_per_country: number | null;
    contributor_exclusive: boolean;
    require_offline_ready: boolean;
    seed: number;
  };
  inputs: { pool: string; pool_sha256: string };
  outputs: { eval_sha256: string; train_sha256: string };
  /** When it was built (absent in manifests written before versions). */
  built_at?: string;
  /** The task sets it was imported as, each with its content version (docs/splits.md, Versions). */
  task_sets?: { eval: SplitTaskSet; train: SplitTaskSet };
  leak_potential: { pool: LeakPotential; eval: LeakPotential; train: LeakPotential };
}

/** The JSONL bytes of a split, one task per line. */
export function splitJsonl(tasks: readonly Task[]): string {
  return tasks.map((t) => JSON.stringify(t)).join('\n') + (tasks.length ? '\n' : '');
}

export function splitManifest(
  result: SplitResult,
  options: SplitOptions,
  inputs: { pool: string; poolSha256: string; poolLeak: LeakPotential },
  outputs: { evalJsonl: string; trainJsonl: string },
  lineage?: { builtAt: string; taskSets: { eval: SplitTaskSet; train: SplitTaskSet } },
): SplitManifest {
  const side = (key: 'eval' | 'train'): SideSummary => {
    const perCountry = Object.entries(result.perCountry)
      .filter(([, row]) => row[key] > 0)
      .sort((a, b) => b[1][key] - a[1][key] || a[0].localeCompare(b[0]))
      .map(([c, row]) => [c, row[key]] as const);
    return { tasks: result[key].length, countries: perCountry.length, per_country: Object.fromEntries(perCountry) };
  };
  return {
    eval: side('eval'),
    train: side('train'),
    dropped: result.dropped,
    closest_cross_km: result.closestCrossKm,
    options: {
      eval: options.evalSize,
      eval_per_country: options.evalPerCountry,
      ...(options.evalCaps && Object.keys(options.evalCaps).length > 0 ? { eval_caps: { ...options.evalCaps } } : {}),
      buffer_km: options.bufferKm,
      countries: options.countries ?? null,
      exclude_countries: options.excludeCountries ?? null,
      train_per_country: options.trainPerCountry ?? null,
      contributor_exclusive: options.contributorExclusive,
      require_offline_ready: options.requireOfflineReady,
      seed: options.seed,
    },
    inputs: { pool: inputs.pool, pool_sha256: inputs.poolSha256 },
    outputs: { eval_sha256: sha256Hex(Buffer.from(outputs.evalJsonl)), train_sha256: sha256Hex(Buffer.from(outputs.trainJsonl)) },
    leak_potential: { pool: inputs.poolLeak, eval: result.check.leak_potential.eval, train: result.check.leak_potential.train },
    ...(lineage ? { built_at: lineage.builtAt, task_sets: lineage.taskSets } : {}),
  };
}

/** A manifest is some kilobytes; a larger file beside a split is not read as one. */
const MAX_MANIFEST_BYTES = 16 * 1024 * 1024;

/** A split file's lineage: the manifest beside it that wrote it, and which side it is. */
export interface SplitLineage {
  manifestPath: string;
  side: 'eval' | 'train';
  manifest: SplitManifest;
}

/**
 * The lineage of a task file, when it is a split: a `manifest.json` in its folder whose recorded
 * output sha256 is the file's own (an edited file has none). Null otherwise.
 */
export async function splitLineage(file: string): Promise<SplitLineage | null> {
  const manifestPath = join(dirname(file), 'manifest.json');
  let manifest: SplitManifest;
  try {
    manifest = JSON.parse(readRegularFile(manifestPath, MAX_MANIFEST_BYTES, 'manifest').toString('utf8')) as SplitManifest;
  } catch {
    return null;
  }
  if (typeof manifest?.outputs !== 'object' || manifest.outputs === null) return null;
  const sha256 = await fileSha256(file, 'task file');
  const side = manifest.outputs.eval_sha256 === sha256 ? 'eval' : manifest.outputs.train_sha256 === sha256 ? 'train' : null;
  return side ? { manifestPath, side, manifest } : null;
}
