/** `geolab eval report`: the board of a sweep, from run trees or the workspace. Draws no TUI. */
import { EXIT, UsageError } from '../../core/errors.js';
import { factsFromPaths } from '../../eval/episodes.js';
import { buildReport, DEFAULT_SUCCESS_KM, fixed, groupArms, interval, kmLabel, passAtKColumn, resolveBaseline, signed, type Breakdown, type EpisodeFacts, type Report } from '../../eval/report.js';
import type { GlobalOptions } from '../options.js';
import { printJson, printLine, table, warn, warnSkipped } from '../output.js';

export interface ReportOptions extends GlobalOptions {
  /** Read the workspace's episodes instead of run trees. */
  fromWorkspace?: boolean;
  run?: string[];
  baseline?: string;
  by?: string;
  /** pass@k's success threshold in km. */
  successKm?: number;
  markdown?: boolean;
}

export async function reportCommand(roots: string[], opts: ReportOptions): Promise<void> {
  if (opts.by !== undefined && opts.by !== 'country' && opts.by !== 'continent') throw new UsageError(`--by expects "country" or "continent", got "${opts.by}"`);
  if (opts.successKm !== undefined && !(opts.successKm >= 0)) throw new UsageError(`--success-km expects a distance >= 0 in km, got ${opts.successKm}`);
  if (opts.json && opts.markdown) throw new UsageError('--json and --markdown are alternatives: give one');
  if (opts.fromWorkspace && roots.length > 0) throw new UsageError('give run folders or --workspace, not both');
  if (!opts.fromWorkspace && roots.length === 0) throw new UsageError('expected run folders or episode files (or --workspace for the workspace\'s episodes)');
  if (opts.run?.length && !opts.fromWorkspace) throw new UsageError('--run picks runs of the workspace: use it with --workspace');

  const arms = groupArms(opts.fromWorkspace ? await workspaceFacts(opts) : await collect(factsFromPaths(roots, warnSkipped)));
  if (arms.size === 0) throw new UsageError('no episodes to report on');
  let baseline: string | undefined;
  if (opts.baseline !== undefined) {
    const resolved = resolveBaseline([...arms.keys()], opts.baseline);
    if (typeof resolved !== 'string') throw new UsageError(resolved.error);
    baseline = resolved;
  }
  const report = buildReport(arms, baseline, { by: opts.by as Breakdown | undefined, successKm: opts.successKm ?? DEFAULT_SUCCESS_KM });
  if (opts.json) printJson(report);
  else printLine(opts.markdown ? markdown(report) : text(report));
  const flagged = report.arms.filter((a) => a.flags.length > 0);
  if (flagged.length > 0) {
    if (!opts.json) warn(`integrity: ${flagged.map((a) => `${a.arm} (${a.flags.join(', ')})`).join('; ')}`);
    process.exitCode = EXIT.problemFound;
  }
}

async function collect(facts: AsyncIterable<EpisodeFacts>): Promise<EpisodeFacts[]> {
  const all: EpisodeFacts[] = [];
  for await (const f of facts) all.push(f);
  return all;
}

async function workspaceFacts(opts: ReportOptions): Promise<EpisodeFacts[]> {
  const [{ openWorkspace }, { factsFromWorkspace }] = await Promise.all([import('../../store/index.js'), import('../../eval/workspace.js')]);
  const ws = await openWorkspace(opts.workspace);
  try {
    return [...factsFromWorkspace(ws, opts.run ?? [])];
  } finally {
    ws.close();
  }
}

type Section = { title: string; rows: string[][] };

/** The report's tables, in the order they print: arms, then the paired comparison and the breakdown when there are any. */
function sections(report: Report): Section[] {
  const out = [armsSection(report)];
  if (report.comparisons.length > 0) out.push(comparisonSection(report));
  if (report.by) out.push(bySection(report.by));
  return out;
}

function armsSection(report: Report): Section {
  const passK = passAtKColumn(report.arms, report.success_km);
  return {
    title: `Arms (reference curve, recomputed from distance and cost; failed episodes counted apart, in no statistic; SE and 95% CI of mean@k over tasks; pass@k: an attempt within ${kmLabel(report.success_km)} succeeds)`,
    rows: [
      ['arm', 'scored', 'failed', 'tasks', 'k', 'mean@k', 'SE', '95% CI', 'best@k', `pass@1<=${kmLabel(report.success_km)}`, ...(passK ? [passK.title] : []), 'median km', '<=25km%', '<=200km%', '<=750km%', 'country%', 'turns', 'looks', 'moves', 'pins', 'cost', 'env_floor%', 'no_guess%', 'forced%', 'tokens out', 'flags'],
      ...report.arms.map((a) => [
        a.arm,
        String(a.episodes),
        String(a.failed),
        String(a.tasks),
        fixed(a.k, 2),
        fixed(a.mean_of_k, 4),
        fixed(a.mean_of_k_se, 4),
        interval(a.mean_of_k_ci_low, a.mean_of_k_ci_high),
        fixed(a.best_of_k, 4),
        fixed(a.pass_at_1, 4),
        ...(passK ? [passK.cell(a)] : []),
        fixed(a.median_km, 1),
        fixed(a.within_25km, 1),
        fixed(a.within_200km, 1),
        fixed(a.within_750km, 1),
        fixed(a.country_pct, 1),
        fixed(a.turns, 2),
        fixed(a.looks, 2),
        fixed(a.moves, 2),
        fixed(a.pins, 2),
        fixed(a.cost, 3),
        fixed(a.env_floor_pct, 1),
        fixed(a.no_guess_pct, 1),
        fixed(a.forced_pct, 1),
        fixed(a.tokens_out, 0),
        a.flags.join(',') || '-',
      ]),
    ],
  };
}

function comparisonSection(report: Report): Section {
  return {
    title: 'Paired comparison on shared tasks (SE is the standard error; 95% CI = delta +/- 1.96 SE; a task within 1e-9 is a tie)',
    rows: [
      ['arm', 'baseline', 'n', 'delta', 'SE', '95% CI', 'better', 'worse', 'ties', 'significant'],
      ...report.comparisons.map((c) => [
        c.arm,
        c.baseline,
        String(c.n),
        signed(c.delta, 4),
        fixed(c.se, 4),
        `[${signed(c.ci_low, 4)}, ${signed(c.ci_high, 4)}]`,
        `${c.better}/${c.n}`,
        `${c.worse}/${c.n}`,
        String(c.ties),
        c.significant ? 'yes' : 'no',
      ]),
    ],
  };
}

function bySection(by: NonNullable<Report['by']>): Section {
  return {
    title: `By ${by.key}`,
    rows: [
      ['arm', by.key, 'tasks', 'scored', 'failed', 'mean@k', 'median km'],
      ...by.rows.map((r) => [r.arm, r.group, String(r.tasks), String(r.episodes), String(r.failed), fixed(r.mean_of_k, 4), fixed(r.median_km, 1)]),
    ],
  };
}

function text(report: Report): string {
  return sections(report)
    .map((s) => `${s.title}\n${table(s.rows)}`)
    .join('\n\n');
}

function markdown(report: Report): string {
  const row = (cells: string[]) => `| ${cells.map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`;
  return sections(report)
    .map(({ title, rows }) => [`### ${title}`, '', row(rows[0]!), row(rows[0]!.map(() => '---')), ...rows.slice(1).map(row)].join('\n'))
    .join('\n\n');
}
