/**
 * The Eval board's `x`: the table on screen as CSV (RFC 4180), every row of it (not only those in
 * view) and every column (not only those a narrow terminal has room for), with the cells' text as
 * the board writes it ("-" where a figure has no value). Pure; the service writes the file.
 */
import type { ArmRow, GroupRow } from '../../eval/report.js';
import type { GroupBy, RankedEpisode } from './board.js';
import { armColumns, GROUP_COLUMNS, worstColumns, type Column } from './columns.js';

export interface ExportTable {
  /** What the table is, for the status line: "the arms", "alpha@v2 by country". */
  what: string;
  /** The title row first. */
  rows: string[][];
}

/** The arms table: arm, its columns, and its integrity flags (the board's "!"), ';'-separated. */
export function armsTable(arms: readonly ArmRow[]): ExportTable {
  const flags: Column<ArmRow> = { title: 'flags', width: 0, keep: 0, cell: (a) => a.flags.join(';') };
  return { what: 'the arms', rows: withLabel('arm', arms, (a) => a.arm, [...armColumns(arms), flags]) };
}

export function groupsTable(arm: string, by: GroupBy, groups: readonly GroupRow[]): ExportTable {
  return { what: `${arm} by ${by}`, rows: withLabel(by, groups, (g) => g.group, GROUP_COLUMNS) };
}

export function worstTable(arm: string, by: GroupBy, group: string, episodes: readonly RankedEpisode[]): ExportTable {
  return { what: `${arm}'s worst episodes of ${group}`, rows: withLabel('episode', episodes, (e) => e.facts.episodeId, worstColumns(by)) };
}

function withLabel<T>(label: string, rows: readonly T[], labelOf: (row: T) => string, columns: readonly Column<T>[]): string[][] {
  return [[label, ...columns.map((c) => c.title)], ...rows.map((row) => [labelOf(row), ...columns.map((c) => c.cell(row))])];
}

/** RFC 4180: CRLF after every record; a field with a comma, a quote or a line break in double quotes, its quotes doubled. */
export function toCsv(rows: readonly (readonly string[])[]): string {
  return rows.map((row) => row.map(csvField).join(',') + '\r\n').join('');
}

function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/**
 * The status line after a write, within `width` columns: the file's whole path when it fits, else
 * with the home folder as `~`, else its end after `…` (the name always shows; Home names the workspace).
 */
export function writtenLine(table: ExportTable, file: string, width: number, home: string): string {
  const prefix = `wrote ${table.what} (${table.rows.length - 1} rows) as CSV to `;
  const short = `CSV of ${table.what}: `;
  const tilde = home && file.startsWith(home + '/') ? `~${file.slice(home.length)}` : file;
  for (const line of [prefix + file, prefix + tilde, short + tilde]) if (line.length <= width) return line;
  // Cut at a folder when one is in what is left, so no name shows in part but the file's own.
  const tail = tilde.slice(-Math.max(1, width - short.length - 1));
  const slash = tail.indexOf('/');
  return `${short}…${slash > 0 ? tail.slice(slash) : tail}`;
}
