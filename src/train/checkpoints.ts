/** The `checkpoint-N` folders TRL writes under a run's output_dir: what resume continues from and serve serves. */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The checkpoint-N folders under the output directory, newest step last. */
export function checkpointSteps(outputDir: string): number[] {
  if (!existsSync(outputDir)) return [];
  return readdirSync(outputDir)
    .map((name) => /^checkpoint-(\d+)$/.exec(name))
    .filter((m): m is RegExpExecArray => m !== null && statSync(join(outputDir, m[0])).isDirectory())
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);
}

export function checkpointDir(outputDir: string, step: number): string {
  return join(outputDir, `checkpoint-${step}`);
}
