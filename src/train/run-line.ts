/**
 * A training run as one entry of a list (Home, the plain workspace summary): light on purpose, so
 * Home's first frame can describe runs without loading what derives them (src/train/runs.ts).
 */
import type { TrainRunStatus } from '../store/train-runs.js';

export interface RunLine {
  name: string;
  status: TrainRunStatus;
  step: number | null;
  max_steps: number | null;
}

/** `r1 running 12/250 · r0 done 250/250`, newest first; 'none' without runs. */
export function describeRunLines(runs: readonly RunLine[]): string {
  return runs.map((r) => `${r.name} ${r.status} ${r.step ?? '-'}/${r.max_steps ?? '?'}`).join(' · ') || 'none';
}
