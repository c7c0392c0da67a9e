/** `geolab splits build | check`: the edges of src/splits (files, workspace, prompts). */
import { basename, resolve } from 'node:path';
import { EXIT, UsageError } from '../../core/errors.js';
import type { Task } from '../../core/tasks.js';
import { fileSha256 } from '../../files.js';
import { buildSplits, DEFAULT_SPLIT_OPTIONS, type SplitOptions, type SplitResult } from '../../splits/build.js';
import { checkSplits, type SplitCheck } from '../../splits/check.js';
import { canonicalCountry, resolveCountries } from '../../splits/countries.js';
import type { LeakPotential } from '../../splits/leak.js';
import { splitNameProblem, writeSplits } from '../../splits/write.js';
import { loadTasksStrict } from '../../tasks/load.js';
import type { GlobalOptions } from '../main.js';
import { printJson, printLine, table, warn } from '../output.js';

export interface BuildFlags extends GlobalOptions {
  outDir: string;
  eval?: number;
  evalPerCountry?: number;
  bufferKm?: number;
  countries?: string;
  excludeCountries?: string;
  trainPerCountry?: number;
  contributorExclusive?: boolean;
  requireOfflineReady?: boolean;
  seed?: number;
  name?: string;
  interactive?: boolean;
}

export async function buildCommand(poolFile: string, flags: BuildFlags): Promise<void> {
  if (flags.countries !== undefined && flags.excludeCountries !== undefined) {
    throw new UsageError('--countries and --exclude-countries exclude each other: give one');
  }
  if (flags.interactive && !(process.stdin.isTTY && process.stdout.isTTY)) {
    throw new UsageError('--interactive needs a terminal; without one, choose with the flags (--countries, --eval, --eval-per-country, --buffer-km, --contributor-exclusive)');
  }
  const outDir = resolve(flags.outDir);
  const name = flags.name ?? basename(outDir);
  const nameProblem = splitNameProblem(name);
  if (nameProblem) throw new UsageError(`${nameProblem}; pass --name`);
  for (const [flag, value] of [['--eval', flags.eval], ['--eval-per-country', flags.evalPerCountry], ['--train-per-country', flags.trainPerCountry]] as const) {
    if (value !== undefined && value < 0) throw new UsageError(`${flag} expects an integer >= 0, got ${value}`);
  }
  if (flags.bufferKm !== undefined && !(flags.bufferKm >= 0)) throw new UsageError(`--buffer-km expects a number >= 0, got ${flags.bufferKm}`);

  const { tasks: pool } = await loadTasksStrict(poolFile);
  const poolCountries = new Set(pool.map((t) => canonicalCountry(t.country)));
  let options: SplitOptions = {
    evalSize: flags.eval ?? DEFAULT_SPLIT_OPTIONS.evalSize,
    evalPerCountry: flags.evalPerCountry ?? DEFAULT_SPLIT_OPTIONS.evalPerCountry,
    bufferKm: flags.bufferKm ?? DEFAULT_SPLIT_OPTIONS.bufferKm,
    countries: flags.countries === undefined ? undefined : resolveCountries(flags.countries, '--countries', poolCountries),
    excludeCountries: flags.excludeCountries === undefined ? undefined : resolveCountries(flags.excludeCountries, '--exclude-countries', poolCountries),
    trainPerCountry: flags.trainPerCountry,
    contributorExclusive: flags.contributorExclusive ?? false,
    requireOfflineReady: flags.requireOfflineReady ?? false,
    seed: flags.seed ?? DEFAULT_SPLIT_OPTIONS.seed,
  };
  let result: SplitResult;
  if (flags.interactive) {
    const { curateSplits } = await import('./splits-interactive.js');
    const chosen = await curateSplits(pool, options, {
      countries: flags.countries !== undefined || flags.excludeCountries !== undefined,
      eval: flags.eval !== undefined,
      evalPerCountry: flags.evalPerCountry !== undefined,
      bufferKm: flags.bufferKm !== undefined,
      contributorExclusive: flags.contributorExclusive !== undefined,
    }, flags.json);
    if (!chosen) {
      printLine('Nothing written.');
      return;
    }
    ({ options, result } = chosen);
  } else {
    result = buildSplits(pool, options);
  }

  if (result.problems.length > 0) {
    for (const problem of result.problems) warn(`geolab: self-check failed: ${problem}`);
    printDropped(result, (line) => warn(`geolab: ${line}`));
    warn(`geolab: nothing written to ${outDir}`);
    process.exitCode = EXIT.problemFound;
    return;
  }
  // Shown in the interactive preview already.
  if (!flags.interactive) for (const w of result.warnings) warn(`geolab: warning: ${w}`);
  const { openWorkspace } = await import('../../store/index.js');
  const ws = await openWorkspace(flags.workspace);
  let written;
  try {
    written = await writeSplits(ws, { tasks: pool, path: resolve(poolFile), sha256: await fileSha256(poolFile, 'pool') }, result, options, { outDir, name });
  } finally {
    ws.close();
  }
  const { manifest, files, sets } = written;

  if (flags.json) return printJson(manifest);
  printLine(`eval ${manifest.eval.tasks} tasks in ${manifest.eval.countries} countries, train ${manifest.train.tasks} tasks in ${manifest.train.countries} countries`);
  printCountryTable(result);
  printDropped(result);
  printLine(`closest cross-split distance: ${manifest.closest_cross_km ?? '-'} km (buffer ${options.bufferKm} km)`);
  printLine(`wrote ${files.eval}, ${files.train}, ${files.manifest}`);
  printLine(`task sets ${sets.join(', ')} in the workspace`);
}

export function printCountryTable(result: SplitResult, say: (line: string) => void = printLine): void {
  const rows = Object.entries(result.perCountry)
    .sort((a, b) => b[1].eval - a[1].eval || b[1].pool - a[1].pool || a[0].localeCompare(b[0]))
    .map(([c, row]) => ['  ' + c, row.pool, row.eval, row.train]);
  say(table([['  country', 'pool', 'eval', 'train'], ...rows]));
}

export function printDropped(result: SplitResult, say: (line: string) => void = printLine): void {
  const d = result.dropped;
  say(
    `dropped: ${d.shared_sequence} shared sequence, ${d.buffer} inside the buffer, ${d.contributor} shared contributor, ${d.country_filter} country filter, ${d.cap} over the train cap`,
  );
}

export interface CheckFlags extends GlobalOptions {
  train: string;
  eval: string;
  bufferKm?: number;
  contributorExclusive?: boolean;
}

export async function checkCommand(flags: CheckFlags): Promise<void> {
  const bufferKm = flags.bufferKm ?? DEFAULT_SPLIT_OPTIONS.bufferKm;
  if (!(bufferKm >= 0)) throw new UsageError(`--buffer-km expects a number >= 0, got ${bufferKm}`);
  // A task_index repeated or out of order inside one file is a warning here: an eval row appended to
  // train as it is keeps its index, and is reported below as contamination (docs/splits.md).
  const warnings: string[] = [];
  const load = async (file: string): Promise<Task[]> => {
    const { tasks, warnings: found } = await loadTasksStrict(file, { taskIndex: 'warning' });
    for (const w of found) if (w.kind === 'task_index') warnings.push(`${file}:${w.line}: ${w.message}`);
    return tasks;
  };
  const train = await load(flags.train);
  const evalTasks = await load(flags.eval);
  const check = checkSplits(train, evalTasks, { bufferKm, contributorExclusive: flags.contributorExclusive ?? false });
  warnings.push(...check.contributors.warnings);
  for (const w of warnings) warn(`geolab: warning: ${w}`);
  if (!check.clean) process.exitCode = EXIT.problemFound;
  if (flags.json) return printJson({ ...check, warnings });
  printCheck(check, flags);
}

function printCheck(c: SplitCheck, flags: CheckFlags): void {
  printLine(`train ${flags.train}: ${c.train_tasks} tasks; eval ${flags.eval}: ${c.eval_tasks} tasks`);
  printLine(`shared sequences: ${c.shared_sequences.count}${more(c.shared_sequences.listed)}`);
  printLine(`train tasks within ${c.buffer_km} km of an eval task: ${c.buffer_pairs.count}`);
  for (const p of c.buffer_pairs.closest) printLine(`  ${p.train_id} - ${p.eval_id}: ${p.km} km`);
  printLine(`tasks in both splits (same task_id or start frame): ${c.rows_in_both.count}`);
  for (const r of c.rows_in_both.listed) printLine(`  ${r.train_id} - ${r.eval_id}: same ${r.by === 'task_id' ? 'task_id' : 'start frame'}`);
  printLine(`contributors (by ${c.contributors.by}): ${c.contributors.train} in train, ${c.contributors.eval} in eval`);
  const contributorNote = c.shared_contributors.checked ? '' : ' (not contamination without --contributor-exclusive)';
  printLine(`shared contributors: ${c.shared_contributors.count}${contributorNote}${more(c.shared_contributors.listed)}`);
  printLine(`start points held by more than one task: ${c.repeated_start_points.count}${more(c.repeated_start_points.listed)}`);
  printLine(`closest cross-split distance: ${c.closest_cross_km ?? '-'} km`);
  printLine(table([['  country', 'eval', 'train'], ...Object.entries(c.per_country).map(([k, row]) => ['  ' + k, row.eval, row.train])]));
  printLeak('train', c.leak_potential.train);
  printLeak('eval', c.leak_potential.eval);
  printLine(c.clean ? 'clean' : 'contaminated');
}

export function printLeak(label: string, leak: LeakPotential): void {
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  printLine(
    `leak potential (${label}): ${pct(leak.single_country_contributor_share)} of tasks by a single-country contributor, ${pct(leak.sequence_siblings_share)} with a sequence sibling within ${leak.buffer_km} km, ${Object.keys(leak.contributors_per_country).length} countries with contributors`,
  );
}

function more(listed: string[]): string {
  return listed.length ? `: ${listed.join(', ')}` : '';
}
