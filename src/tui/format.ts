/** How the TUI writes values: ages, bars, wrapped text, and (from core) the episodes' values. Pure. */
export { formatArgs, formatCall, formatCost, formatKm, formatLatLon, truncate, turnCost } from '../core/format.js';
import { truncate } from '../core/format.js';

/** "2 min ago" style ages for the workspace summary. */
export function formatAgo(iso: string, now: number): string {
  const seconds = Math.max(0, (now - Date.parse(iso)) / 1000);
  if (!Number.isFinite(seconds)) return iso;
  if (seconds < 60) return 'just now';
  const steps: [number, string][] = [
    [60, 'min'],
    [3600, 'h'],
    [86_400, 'd'],
  ];
  const [unit, name] = steps.findLast(([s]) => seconds >= s)!;
  return `${Math.floor(seconds / unit)} ${name} ago`;
}

/** A bar of `width` cells filled in proportion to a value in 0..1. */
export function bar(value: number, width: number): string {
  const filled = Math.round(Math.min(1, Math.max(0, value)) * width);
  return '█'.repeat(filled) + '░'.repeat(width - filled);
}

/**
 * Plain text wrapped at word boundaries to `width` columns. Ink wraps too, but keeps the space it
 * broke at as the first character of the next line; feedback and reasoning read better without.
 */
export function wrapWords(text: string, width: number): string {
  const lines: string[] = [];
  for (const paragraph of text.split('\n')) {
    let line = '';
    for (const word of paragraph.split(/\s+/).filter(Boolean)) {
      if (line && line.length + 1 + word.length > width) {
        lines.push(line);
        line = '';
      }
      line = line ? `${line} ${word}` : word;
    }
    lines.push(line);
  }
  return lines.join('\n');
}

/**
 * Text wrapped at word boundaries into lines of at most `width` columns: a word longer than a line
 * is elided with … rather than cut silently or left to run into the next column.
 */
export function wrapLines(text: string, width: number): string[] {
  return wrapWords(text, width)
    .split('\n')
    .map((line) => (line.length > width ? truncate(line, width) : line));
}
