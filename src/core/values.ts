/** Checks on parsed JSON values and given settings, shared by every module that reads untrusted input. */
import { UsageError } from './errors.js';

/** A plain JSON object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A number, or a string holding one ("90", " -12.5 "): models quote numbers often enough. */
export function toNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && value.trim() !== '') {
    const parsed = Number(value.trim());
    return Number.isFinite(parsed) ? parsed : undefined;
  }
  return undefined;
}

/** The value, when a whole number from min to max (both included); else a UsageError naming the flag. */
export function integerIn(flag: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) throw new UsageError(`${flag} must be an integer from ${min} to ${max}, got ${value}`);
  return value;
}

/**
 * "Invalid input: expected string, received number": a wrong type worded as zod words it, for the
 * checks written out by hand in its place (core/tasks.ts, core/episode.ts).
 */
export function expectedType(what: string, value: unknown): string {
  return `Invalid input: expected ${what}, received ${kindOf(value)}`;
}

/** What a value is, as zod's messages name it: null, array, NaN and the infinities by name, else its typeof. */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  return typeof value;
}
