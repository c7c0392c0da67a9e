/** `geolab eval report`: the board of a sweep, from run trees or the workspace. Draws no TUI. */
import { EXIT, UsageError } from '../../core/errors.js';
import { factsFromPaths } from '../../eval/episodes.js';
import { buildReport, fixed, groupArms, resolveBaseline, signed, type Breakdown, type EpisodeFacts, type Report } from '../../eval/report.js';
import type { GlobalOptions } from '../main.js';
import { printJson, printLine, table, warn } from '../output.js';

export interface ReportOptions extends GlobalOptions {
  /** Read the workspace's episodes instead of run trees. */
  fromWorkspace?: boolean;
  run?: string[];
  baseline?: string;
  by?: string;
  markdown?: boolean;
}

export async function reportCommand(roots: string[], opts: ReportOptions): Promise<void> {
  if (opts.by !== undefined && opts.by !== 'country' && opts.by !== 'continent') throw new UsageError(`--by expects "country" or "continent", got "${opts.by}"`);
  if (opts.json && opts.markdown) throw new UsageError('--json and --markdown are alternatives: give one');
  if (opts.fromWorkspace && roots.length > 0) throw new UsageError('give run folders or --workspace, not both');
  if (!opts.fromWorkspace && roots.length === 0) throw new UsageError('expected run folders or episode files (or --workspace for the workspace\'s episodes)');
  if (opts.run?.length && !opts.fromWorkspace) throw new UsageError('--run picks runs of the workspace: use it with --workspace');

  const arms = groupArms(opts.fromWorkspace ? await workspaceFacts(opts) : await collect(factsFromPaths(roots)));
  if (arms.size === 0) throw new UsageError('no episodes to report on');
  let baseline: string | undefined;
  if (opts.baseline !== undefined) {
    const resolved = resolveBaseline([...arms.keys()], opts.baseline);
    if (typeof resolved !== 'string') throw new UsageError(resolved.error);
    baseline = resolved;
  }
  const report = buildReport(arms, baseline, { by: opts.by as Breakdown | undefined });
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

function sections(report: Report): { title: string; rows: string[][] }[] {
  const out = [
    {
      title: 'Arms (reference curve, recomputed from distance and cost)',
      rows: [
        ['arm', 'tasks', 'k', 'mean@k', 'best@k', 'median km', '<=25km%', '<=200km%', '<=750km%', 'country%', 'turns', 'looks', 'moves', 'pins', 'cost', 'env_floor%', 'no_guess%', 'forced%', 'tokens out', 'flags'],
        ...report.arms.map((a) => [
          a.arm,
          String(a.tasks),
          fixed(a.k, 2),
          fixed(a.mean_of_k, 4),
          fixed(a.best_of_k, 4),
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
    },
  ];
  if (report.comparisons.length > 0) {
    out.push({
      title: 'Paired comparison on shared tasks (SE is the standard error; 95% CI = delta +/- 1.96 SE)',
      rows: [
        ['arm', 'baseline', 'n', 'delta', 'SE', '95% CI', 'better', 'significant'],
        ...report.comparisons.map((c) => [
          c.arm,
          c.baseline,
          String(c.n),
          signed(c.delta, 4),
          fixed(c.se, 4),
          `[${signed(c.ci_low, 4)}, ${signed(c.ci_high, 4)}]`,
          `${c.better}/${c.n}`,
          c.significant ? 'yes' : 'no',
        ]),
      ],
    });
  }
  if (report.by) {
    out.push({
      title: `By ${report.by.key}`,
      rows: [
        ['arm', report.by.key, 'tasks', 'episodes', 'mean@k', 'median km'],
        ...report.by.rows.map((r) => [r.arm, r.group, String(r.tasks), String(r.episodes), fixed(r.mean_of_k, 4), fixed(r.median_km, 1)]),
      ],
    });
  }
  return out;
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
