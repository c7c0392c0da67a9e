/** A tiny benchmark harness: medians over repeated runs, progress on stderr, results as data. */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../src/paths.js';

export interface BenchResult {
  median_ms: number;
  per_s: number;
  /** Extra figures a bench wants to report (e.g. a baseline measured in the same run). */
  [extra: string]: number;
}

export interface Bench {
  name: string;
  /** What `per_s` counts, for the human-readable table. */
  unit: string;
  run(): Promise<BenchResult> | BenchResult;
}

/** Deterministic pseudo-random numbers in [0, 1), so every run measures the same inputs. */
export function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/**
 * Times `batch` calls of `fn` per sample, `samples` times after a warm-up, and reports the median
 * time of one call and the calls per second that implies.
 */
export function timeBatches(fn: (i: number) => unknown, batch: number, samples = 7): BenchResult {
  for (let i = 0; i < Math.min(batch, 1000); i++) fn(i);
  const perCall: number[] = [];
  let k = 0;
  for (let s = 0; s < samples; s++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < batch; i++) fn(k++);
    perCall.push(Number(process.hrtime.bigint() - start) / 1e6 / batch);
  }
  const ms = median(perCall);
  return { median_ms: round(ms), per_s: Math.round(1000 / ms) };
}

/** Times an async operation `samples` times and reports its median. */
export async function timeAsync(fn: () => Promise<unknown>, samples = 7): Promise<BenchResult> {
  const times: number[] = [];
  for (let s = 0; s < samples; s++) {
    const start = process.hrtime.bigint();
    await fn();
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  const ms = median(times);
  return { median_ms: round(ms), per_s: round(1000 / ms) };
}

export function round(x: number, digits = 4): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/**
 * A Python anchor's figure in milliseconds (docs/budgets.md names them), or undefined, said on stderr,
 * when it cannot run: the scripts live in the `shared` folder beside a development checkout, never
 * in the repository. `figure` reads the script's output; `toMs` scales what it captured.
 */
export function pythonAnchorMs(bench: string, script: string, args: string[], figure: RegExp, toMs = 1): number | undefined {
  const path = join(PACKAGE_ROOT, '..', 'shared', 'bench', script);
  if (!existsSync(path)) {
    process.stderr.write(`${bench}: no anchor: ${path} is absent (no shared/ beside this checkout)\n`);
    return undefined;
  }
  try {
    const out = execFileSync('python3', [path, ...args], { encoding: 'utf8', timeout: 120_000, stdio: ['ignore', 'pipe', 'pipe'] });
    const value = figure.exec(out.trim())?.[1];
    if (value === undefined) throw new Error(`unexpected output: ${out.trim()}`);
    return Number(value) * toMs;
  } catch (error) {
    process.stderr.write(`${bench}: no anchor (${path} did not run: ${(error as Error).message.split('\n')[0]})\n`);
    return undefined;
  }
}
