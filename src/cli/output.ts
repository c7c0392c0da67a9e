/**
 * Plain output helpers shared by the commands: JSON on stdout, messages on stderr. Everything is
 * redacted on the way out (src/core/secrets.ts), whatever the command thought it printed.
 */
import type { CompletedEpisode, FailedEpisode } from '../core/episode.js';
import { isCompleted } from '../core/episode-fields.js';
import { EXIT } from '../core/errors.js';
import { redact, redactDeep } from '../core/secrets.js';

export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(redactDeep(value)) + '\n');
}

export function printLine(text = ''): void {
  process.stdout.write(redact(text) + '\n');
}

export function warn(text: string): void {
  process.stderr.write(redact(text) + '\n');
}

const skippedShown = new Set<string>();

/** An entry a directory walk passed over (src/files.ts walkFiles), on stderr once per path and reason. */
export function warnSkipped(entry: { path: string; reason: string }): void {
  const text = `geolab: skipped ${entry.path}: ${entry.reason}`;
  if (skippedShown.has(text)) return;
  skippedShown.add(text);
  warn(text);
}

/** Right-pads cells into aligned columns for plain-text tables. */
export function table(rows: (string | number)[][]): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, String(cell).length)));
  return rows
    .map((row) => row.map((cell, i) => (i === row.length - 1 ? String(cell) : String(cell).padEnd(widths[i] ?? 0))).join('  '))
    .join('\n');
}

/** A played episode's exit code: 0 scored, 130 aborted, 3 a service unreachable (also said on stderr, where scripts look), else 1. */
export function episodeExitCode(record: CompletedEpisode | FailedEpisode): number {
  if (isCompleted(record)) return EXIT.ok;
  switch (record.failure) {
    case 'aborted':
      return EXIT.interrupted;
    case 'unreachable':
      warn(`geolab: ${record.error}`);
      return EXIT.unreachable;
    default:
      return EXIT.problemFound;
  }
}
