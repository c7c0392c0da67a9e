/** How geolab writes episodes' values as text: tool calls, distances, coordinates, costs. Pure; the CLI and the TUI share it. */
import type { Turn } from './episode.js';

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
