/**
 * The columns of the Eval board's tables (the arms, an arm's groups, a group's worst episodes): each
 * a title and the text of its cell, with the digits of `geolab eval report`'s text table. The tables
 * draw them (components/EvalTables.tsx) and `x` writes them as CSV (export.ts), so a file holds what
 * the board shows. Pure.
 */
import { DEFAULT_SUCCESS_KM, fixed, interval, kmLabel, passAtKColumn, type ArmRow, type GroupRow } from '../../eval/report.js';
import { groupKey, type GroupBy, type RankedEpisode } from './board.js';

export interface Column<T> {
  title: string;
  width: number;
  /** Lower is kept longer when the terminal is narrow. */
  keep: number;
  cell: (row: T) => string;
}

/** The arms' columns after the arm; pass@k's titles name the success threshold (and k, when the arms share it). */
export function armColumns(arms: readonly ArmRow[]): Column<ArmRow>[] {
  const successKm = arms[0]?.success_km ?? DEFAULT_SUCCESS_KM;
  const passK = passAtKColumn(arms, successKm);
  return [
    { title: 'tasks', width: 7, keep: 0, cell: (a) => String(a.tasks) },
    { title: 'failed', width: 8, keep: 0, cell: (a) => String(a.failed) },
    { title: 'scored', width: 8, keep: 3, cell: (a) => String(a.episodes) },
    { title: 'k', width: 6, keep: 1, cell: (a) => fixed(a.k, 2) },
    { title: 'mean@k', width: 9, keep: 0, cell: (a) => fixed(a.mean_of_k, 4) },
    { title: 'SE', width: 8, keep: 1, cell: (a) => fixed(a.mean_of_k_se, 4) },
    { title: '95% CI', width: 19, keep: 2, cell: (a) => interval(a.mean_of_k_ci_low, a.mean_of_k_ci_high) },
    { title: 'best@k', width: 9, keep: 2, cell: (a) => fixed(a.best_of_k, 4) },
    { title: `pass@1<=${kmLabel(successKm)}`, width: Math.max(13, kmLabel(successKm).length + 10), keep: 2, cell: (a) => fixed(a.pass_at_1, 4) },
    ...(passK ? [{ title: passK.title, width: Math.max(13, passK.title.length + 2, ...arms.map((a) => passK.cell(a).length + 2)), keep: 2, cell: passK.cell }] : []),
    { title: 'median km', width: 11, keep: 1, cell: (a) => fixed(a.median_km, 1) },
    { title: '<=25km%', width: 9, keep: 5, cell: (a) => fixed(a.within_25km, 1) },
    { title: '<=200km%', width: 10, keep: 5, cell: (a) => fixed(a.within_200km, 1) },
    { title: '<=750km%', width: 10, keep: 5, cell: (a) => fixed(a.within_750km, 1) },
    { title: 'country%', width: 10, keep: 3, cell: (a) => fixed(a.country_pct, 1) },
    { title: 'floor%', width: 8, keep: 3, cell: (a) => fixed(a.env_floor_pct, 1) },
    { title: 'no-guess%', width: 11, keep: 3, cell: (a) => fixed(a.no_guess_pct, 1) },
    { title: 'forced%', width: 9, keep: 4, cell: (a) => fixed(a.forced_pct, 1) },
    { title: 'turns', width: 7, keep: 4, cell: (a) => fixed(a.turns, 2) },
    { title: 'looks', width: 7, keep: 6, cell: (a) => fixed(a.looks, 2) },
    { title: 'moves', width: 7, keep: 6, cell: (a) => fixed(a.moves, 2) },
    { title: 'pins', width: 7, keep: 6, cell: (a) => fixed(a.pins, 2) },
    { title: 'cost', width: 7, keep: 4, cell: (a) => fixed(a.cost, 3) },
    { title: 'tok out', width: 9, keep: 6, cell: (a) => fixed(a.tokens_out, 0) },
  ];
}

/** An arm's groups' columns after the group. */
export const GROUP_COLUMNS: readonly Column<GroupRow>[] = [
  { title: 'tasks', width: 7, keep: 0, cell: (r) => String(r.tasks) },
  { title: 'scored', width: 8, keep: 0, cell: (r) => String(r.episodes) },
  { title: 'failed', width: 8, keep: 0, cell: (r) => String(r.failed) },
  { title: 'mean@k', width: 9, keep: 0, cell: (r) => fixed(r.mean_of_k, 4) },
  { title: 'median km', width: 11, keep: 0, cell: (r) => fixed(r.median_km, 1) },
];

/**
 * A group's worst episodes' columns after the episode: `by` is what the list was opened from; the
 * other grouping is the last column. Task and that last one are left-aligned.
 */
export function worstColumns(by: GroupBy): Column<RankedEpisode>[] {
  const other = by === 'country' ? 'verdict' : 'country';
  return [
    { title: 'task', width: 14, keep: 0, cell: ({ facts }) => facts.taskKey },
    { title: 'sample', width: 6, keep: 0, cell: ({ facts }) => (facts.sample === null ? '-' : String(facts.sample)) },
    { title: 'km', width: 10, keep: 0, cell: ({ facts }) => (facts.failed ? 'failed' : facts.distanceKm === null ? 'no guess' : fixed(facts.distanceKm, 1)) },
    { title: 'reward', width: 9, keep: 0, cell: ({ facts, reward }) => (facts.failed ? '-' : fixed(reward, 4)) },
    { title: other, width: 0, keep: 0, cell: ({ facts }) => groupKey(other)(facts) },
  ];
}
