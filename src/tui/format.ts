/** How the TUI writes episodes' values: tool calls, distances, costs, ages. Pure. */
import type { Turn } from '../core/episode.js';

/** A recorded action as a call: `look(heading_deg=90, fov_deg=90)`; the reset and forced guesses by name. */
export function formatCall(action: Turn['action']): string {
  if (!action) return '(no action)';
  const { action: name, ...args } = action;
  if (name === 'reset') return '(start)';
  return `${name === 'forced_guess' ? 'forced guess' : name}(${formatArgs(args)})`;
}

/** A call's arguments as they go between its parentheses: `heading_deg=90, fov_deg=90`. */
export function formatArgs(args: Record<string, unknown>): string {
  return Object.entries(args)
    .filter(([, v]) => v !== undefined && v !== null)
    .map(([k, v]) => `${k}=${formatArg(v)}`)
    .join(', ');
}

function formatArg(value: unknown): string {
  if (typeof value === 'number') return String(Math.round(value * 10_000) / 10_000);
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 39)}…` : value);
  return JSON.stringify(value);
}

export function formatKm(km: number): string {
  if (km < 1) return `${Math.round(km * 1000)} m`;
  if (km < 10) return `${km.toFixed(1)} km`;
  return `${Math.round(km).toLocaleString('en-US')} km`;
}

export function formatCost(cost: number | null | undefined): string {
  return (cost ?? 0).toFixed(2);
}

export function formatLatLon(lat: number, lon: number): string {
  return `${lat.toFixed(4)}, ${lon.toFixed(4)}`;
}

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

/** One line at most `width` characters, with an ellipsis when cut. */
export function truncate(text: string, width: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= width ? line : `${line.slice(0, Math.max(0, width - 1))}…`;
}

/** The cost a turn added: the difference of the running totals the turns record. */
export function turnCost(turns: readonly Turn[], position: number): number | null {
  const cost = turns[position]?.action_cost;
  if (cost === null || cost === undefined) return null;
  const before = position > 0 ? (turns[position - 1]?.action_cost ?? 0) : 0;
  return Math.max(0, Math.round((cost - before) * 100) / 100);
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
