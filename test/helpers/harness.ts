/** The public harness's record readers, mirrored in standard-library Python (test/agent/fixtures/harness_read.py). */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const READER = fileURLToPath(new URL('../agent/fixtures/harness_read.py', import.meta.url));

/** Runs the reader over an episodes.jsonl: exit 0 and a JSON summary, or 1 naming what it misread. */
export function harnessRead(file: string): { code: number; stdout: string; stderr: string } {
  const r = spawnSync('python3', [READER, file], { encoding: 'utf8', timeout: 30_000 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}
