/**
 * `geolab audit`: every prompt of the sources named (the workspace's episodes when none is) through
 * the detector core, the findings reported as text, JSON or SARIF, and the gate: exit 1 on a new
 * (not baselined) finding at or above --fail-on. `geolab audit baseline add|list|remove` keep the
 * baseline of accepted findings.
 * The work is the audit job's (src/audit/job.ts, which the Audit screen calls too): this parses the
 * options into its setup and prints what it returns. Prompts are streamed; only findings are kept.
 * Draws no TUI: ink and React are never loaded, and SQLite only when the workspace is read.
 */
import { existsSync } from 'node:fs';
import { editDistance, UsageError } from '../../core/errors.js';
import { isFindingId, readBaseline, writeBaseline } from '../../audit/baseline.js';
import { acceptFindings, auditFiles, auditJob, type AuditJob, type AuditJobOptions, type AuditJobSetup } from '../../audit/job.js';
import { jsonReport, textReport } from '../../audit/report.js';
import { hasFileSources, type AuditProgress } from '../../audit/run.js';
import type { OnInvalid } from '../../audit/sources/jsonl.js';
import type { Finding, Severity } from '../../audit/types.js';
import type { Workspace } from '../../store/index.js';
import { workspaceDir } from '../../store/workspace.js';
import type { GlobalOptions } from '../options.js';
import { printJson, printLine, warn, warnSkipped } from '../output.js';

export interface AuditCommandOptions extends GlobalOptions {
  episodes?: string[];
  prompts?: string[];
  traces?: string[];
  completions?: string[];
  tasks?: string[];
  radiusKm?: number;
  baseline?: string;
  update?: boolean;
  failOn?: Severity;
  sarif?: boolean;
  skipInvalid?: boolean;
}

/** The job's setup from the options: what it reads, where its baseline is, what it gates on. */
function auditSetup(opts: AuditCommandOptions): AuditJobSetup {
  if (opts.workspace?.startsWith('-')) {
    throw new UsageError(`--workspace takes the workspace folder, got "${opts.workspace}" (without any source the audit reads the default workspace)`);
  }
  if (opts.radiusKm !== undefined && !(opts.radiusKm > 0)) throw new UsageError(`--radius-km expects a distance above 0 km, got ${opts.radiusKm}`);
  const { episodes, prompts, traces, completions, tasks, radiusKm, baseline, failOn } = opts;
  const setup: AuditJobSetup = { episodes, prompts, traces, completions, tasks, radiusKm, baseline, failOn, readWorkspace: opts.workspace !== undefined || !hasFileSources(opts) };
  return setup.readWorkspace ? { ...setup, workspaceDir: workspaceDir(opts.workspace) } : setup;
}

/** The job with the command's progress line and workspace, closed when it ends. */
async function runJob(opts: AuditCommandOptions, job: AuditJobOptions): Promise<AuditJob> {
  let ws: Workspace | undefined;
  const progress = new Progress();
  try {
    return await auditJob(
      { ...job, onSkipped: warnSkipped, openWorkspace: async () => (ws = await (await import('../../store/index.js')).openWorkspace(opts.workspace)) },
      progress.tick,
    );
  } finally {
    progress.done();
    ws?.close();
  }
}

/** How many skipped lines --skip-invalid lists one by one (all are counted). */
const INVALID_LISTED = 50;

export async function auditCommand(opts: AuditCommandOptions): Promise<void> {
  if (opts.json && opts.sarif) throw new UsageError('--json and --sarif both given: choose one output');
  const setup = auditSetup(opts);
  const { baselineFile } = auditFiles(setup);
  // The job reads the baseline first (a broken one stops it); a named one that is missing accepts nothing.
  if (opts.baseline !== undefined && !existsSync(baselineFile)) warn(`baseline ${baselineFile} does not exist yet: no finding is accepted (\`geolab audit baseline add\` or --update writes it)`);
  let listed = 0;
  const onInvalid: OnInvalid | undefined = opts.skipInvalid
    ? (error) => {
        if (++listed <= INVALID_LISTED) warn(`skipped ${error.message}`);
      }
    : undefined;
  const job = await runJob(opts, { ...setup, ...(opts.update ? { update: true } : {}), ...(onInvalid ? { skipInvalid: true, onInvalid } : {}) });
  const { summary, findings } = job;
  if (summary.invalid > INVALID_LISTED) warn(`skipped ${summary.invalid - INVALID_LISTED} more invalid line(s) not listed`);
  if (summary.invalid) warn(`${summary.invalid} invalid line(s) skipped: the audit fails until they are fixed`);
  if (job.newlyAccepted !== undefined) warn(`baseline: ${job.newlyAccepted} finding(s) newly accepted, ${job.baseline.size} in ${baselineFile}`);
  if (opts.sarif) {
    const { geolabVersion, sarifReport } = await import('../../audit/report-sarif.js');
    printJson(sarifReport(findings, { version: geolabVersion(), lineOf: job.result.lineOf, baseline: job.baseline }));
  } else if (opts.json) {
    printJson(jsonReport(summary, findings));
  } else {
    for (const line of textReport(summary, findings, job.result.lineOf)) printLine(line);
  }
  if (job.exitStatus) process.exitCode = job.exitStatus;
}

/**
 * `geolab audit [SOURCES] baseline add ID --reason TEXT`: accepts one finding of the audit of those
 * sources (the workspace's episodes when none is named); an id no current finding has is refused with
 * the closest ones, so a typo never accepts nothing.
 */
export async function baselineAddCommand(id: string, opts: AuditCommandOptions & { reason?: string }): Promise<void> {
  if (!isFindingId(id)) throw new UsageError(`expected a finding id (the hex "id" of a finding), got "${id}"`);
  const reason = opts.reason?.trim();
  if (!reason) throw new UsageError('--reason TEXT is required: say why this finding is acceptable');
  const setup = auditSetup(opts);
  // Only checks the id: Home's last counts stay those of the last audit proper.
  const job = await runJob(opts, { ...setup, recordLastAudit: false });
  const { findings } = job;
  if (!findings.some((f) => f.id === id)) {
    const what = hasFileSources(setup) ? 'the sources named' : "the workspace's episodes";
    if (findings.length === 0) throw new UsageError(`no finding has id ${id}: the audit of ${what} has no findings (name the audit's sources before \`baseline\`: geolab audit --prompts FILE --tasks FILE baseline add ID)`);
    const near = closestIds(id, findings.map((f) => f.id)).map((near) => {
      const f = findings.find((x) => x.id === near) as Finding;
      return `  ${near}  ${f.kind} in ${f.prompt_id}: ${JSON.stringify(f.text)}`;
    });
    throw new UsageError(`no current finding of ${what} has id ${id}; the closest:\n${near.join('\n')}`);
  }
  const { existed } = acceptFindings(job, [id], reason);
  printLine(`${existed.length ? 'updated' : 'accepted'} ${id} in ${job.baselineFile} (${job.baseline.size} accepted)`);
}

/** `geolab audit baseline list`: the accepted findings, with who accepted each, when and why. */
export function baselineListCommand(opts: AuditCommandOptions): void {
  const { baselineFile } = auditFiles(auditSetup(opts));
  const baseline = readBaseline(baselineFile, true);
  const entries = [...baseline.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  if (opts.json) {
    printJson({ file: baselineFile, accepted: entries });
    return;
  }
  if (entries.length === 0) {
    printLine(`no accepted findings in ${baselineFile}${existsSync(baselineFile) ? '' : ' (it does not exist yet)'}`);
    return;
  }
  printLine(`${entries.length} accepted finding(s) in ${baselineFile}`);
  for (const e of entries) printLine(`${e.id}  ${e.at}  ${e.by}: ${e.reason}`);
}

/** `geolab audit baseline remove ID`: the finding is no longer accepted; an id the baseline lacks is refused with the closest. */
export function baselineRemoveCommand(id: string, opts: AuditCommandOptions): void {
  const { baselineFile } = auditFiles(auditSetup(opts));
  const baseline = readBaseline(baselineFile, true);
  if (!baseline.delete(id)) {
    const near = closestIds(id, [...baseline.keys()]);
    throw new UsageError(`${baselineFile} does not accept ${JSON.stringify(id)}${near.length ? `; the closest:\n${near.map((n) => `  ${n}`).join('\n')}` : ' (it accepts nothing)'}`);
  }
  writeBaseline(baselineFile, baseline);
  printLine(`removed ${id} from ${baselineFile} (${baseline.size} accepted)`);
}

/** How many near ids a refusal lists. */
const CLOSEST = 3;

/** The ids nearest a mistyped one: fewest edits, then the longest shared prefix. */
export function closestIds(id: string, ids: readonly string[]): string[] {
  const scored = [...new Set(ids)].map((other) => ({ other, edits: editDistance(id, other), prefix: sharedPrefix(id, other) }));
  scored.sort((a, b) => a.edits - b.edits || b.prefix - a.prefix || (a.other < b.other ? -1 : 1));
  return scored.slice(0, CLOSEST).map((s) => s.other);
}

function sharedPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/** Count, rate and ETA on stderr, only on a terminal, at most five times a second. */
class Progress {
  private readonly tty = process.stderr.isTTY === true;
  private readonly started = performance.now();
  private last = 0;
  private shown = false;

  readonly tick = ({ prompts, bytesDone, totalBytes }: AuditProgress): void => {
    if (!this.tty) return;
    const now = performance.now();
    if (now - this.last < 200) return;
    this.last = now;
    const seconds = (now - this.started) / 1000;
    const rate = prompts / Math.max(seconds, 1e-3);
    const fraction = totalBytes > 0 ? Math.min(1, bytesDone / totalBytes) : 0;
    const eta = fraction > 0 && fraction < 1 ? `, ${Math.round(fraction * 100)}%, ETA ${Math.ceil((seconds * (1 - fraction)) / fraction)} s` : '';
    process.stderr.write(`\raudit: ${prompts} prompts, ${Math.round(rate)}/s${eta}\x1b[K`);
    this.shown = true;
  };

  done(): void {
    if (this.shown) process.stderr.write('\r\x1b[K');
  }
}
