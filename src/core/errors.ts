/**
 * Errors are values at the edges: each carries the exit code it maps to (docs/architecture.md), and a message
 * a user can act on. The CLI maps them to exit codes in one place. A message is redacted as it is
 * made (an error body may echo a key), so whoever prints or stores it leaks nothing.
 */
import { redact } from './secrets.js';

export const EXIT = {
  ok: 0,
  problemFound: 1,
  usage: 2,
  unreachable: 3,
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export class GeolabError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode = EXIT.usage,
  ) {
    super(redact(message));
    this.name = new.target.name;
  }
}

/** Bad usage: a wrong flag, a missing argument, a value out of range. */
export class UsageError extends GeolabError {
  constructor(message: string) {
    super(message, EXIT.usage);
  }
}

/** Input that cannot be read or used: names the file, line and field when they are known. */
export class InputError extends GeolabError {
  constructor(
    message: string,
    readonly where: { file?: string; line?: number; field?: string } = {},
  ) {
    super(formatWhere(where) + message, EXIT.usage);
  }
}

/** A service (environment, model endpoint) could not be reached. */
export class ServiceError extends GeolabError {
  constructor(message: string) {
    super(message, EXIT.unreachable);
  }
}

export function formatWhere(where: { file?: string; line?: number; field?: string }): string {
  const place = [where.file, where.line].filter((p) => p !== undefined).join(':');
  const parts = [place, where.field ? `field ${where.field}` : ''].filter(Boolean);
  return parts.length ? parts.join(', ') + ': ' : '';
}

/** Levenshtein distance, one row at a time: how far a mistyped name is from a known one, for "did you mean". */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row.push(Math.min((prev[j] as number) + 1, (row[j - 1] as number) + 1, (prev[j - 1] as number) + cost));
    }
    prev = row;
  }
  return prev[b.length] as number;
}
