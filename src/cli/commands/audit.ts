/**
 * `geolab audit`: every prompt of the sources named (the workspace's episodes when none is) through
 * the detector core, the findings reported as text, JSON or SARIF, and the gate: exit 1 on a new
 * (not baselined) finding at or above --fail-on. `geolab audit baseline add` accepts one finding.
 * Prompts are streamed; only findings are kept. Draws no TUI: ink and React are never loaded, and
 * SQLite only when the workspace is read.
 */
import { EXIT, UsageError } from '../../core/errors.js';
import { acceptedBy, acceptedEntry, acceptInBaseline, DEFAULT_BASELINE, isFindingId, readBaseline, writeBaseline, type Baseline } from '../../audit/baseline.js';
import { LEAK_RADIUS_KM } from '../../audit/detect.js';
import { lastAuditOf, writeLastAudit } from '../../audit/last-run.js';
import { failing, jsonReport, summarize, textReport } from '../../audit/report.js';
import { hasFileSources, runAudit, type AuditProgress } from '../../audit/run.js';
import type { Finding, Severity } from '../../audit/types.js';
import type { Workspace } from '../../store/index.js';
import { workspaceDir, workspacePaths } from '../../store/workspace.js';
import type { GlobalOptions } from '../main.js';
import { printJson, printLine, warn } from '../output.js';

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
}

export async function auditCommand(opts: AuditCommandOptions): Promise<void> {
  if (opts.json && opts.sarif) throw new UsageError('--json and --sarif both given: choose one output');
  if (opts.workspace?.startsWith('-')) {
    throw new UsageError(`--workspace takes the workspace folder, got "${opts.workspace}" (without any source the audit reads the default workspace)`);
  }
  const radiusKm = opts.radiusKm ?? LEAK_RADIUS_KM;
  if (!(radiusKm > 0)) throw new UsageError(`--radius-km expects a distance above 0 km, got ${radiusKm}`);
  const failOn = opts.failOn ?? 'high';
  const started = performance.now();
  const filesNamed = hasFileSources(opts);
  const readWorkspace = opts.workspace !== undefined || !filesNamed;
  // The workspace's audit keeps its baseline in the workspace, where the TUI's Audit screen writes it.
  const paths = readWorkspace ? workspacePaths(workspaceDir(opts.workspace)) : undefined;
  // A broken baseline stops the run before any reading: the gate would be wrong without it.
  const baselineFile = opts.baseline ?? paths?.auditBaseline ?? DEFAULT_BASELINE;
  const baseline = readBaseline(baselineFile, opts.baseline === undefined || opts.update === true);

  let ws: Workspace | undefined;
  const progress = new Progress();
  const result = await (async () => {
    try {
      return await runAudit(
        {
          ...opts,
          readWorkspace,
          radiusKm,
          baseline,
          failOn,
          workspace: async () => (ws = await (await import('../../store/index.js')).openWorkspace(opts.workspace)),
        },
        progress.tick,
      );
    } finally {
      progress.done();
      ws?.close();
    }
  })();
  const { findings, counts, explained, lineOf } = result;

  if (opts.update) acceptAll(findings, baseline, baselineFile);
  const summary = summarize(findings, counts, failOn, (performance.now() - started) / 1000, explained);
  // Home shows the open findings of the workspace's own audit (its episodes, nothing else).
  if (paths && !filesNamed) writeLastAudit(paths.lastAudit, lastAuditOf(counts, findings, summary.seconds));
  if (opts.sarif) {
    const { geolabVersion, sarifReport } = await import('../../audit/report-sarif.js');
    printJson(sarifReport(findings, { version: geolabVersion(), lineOf, baseline }));
  } else if (opts.json) {
    printJson(jsonReport(summary, findings));
  } else {
    for (const line of textReport(summary, findings, lineOf)) printLine(line);
  }
  if (failing(findings, failOn).length > 0) process.exitCode = EXIT.problemFound;
}

/** --update: every current finding becomes accepted (those already accepted keep their reason). */
function acceptAll(findings: Finding[], baseline: Baseline, file: string): void {
  const by = acceptedBy();
  let added = 0;
  for (const f of findings) {
    if (!baseline.has(f.id)) {
      baseline.set(f.id, acceptedEntry(f.id, `accepted with --update (${f.kind}: ${f.evidence})`, by));
      added++;
    }
    f.baselined = true;
  }
  writeBaseline(file, baseline);
  warn(`baseline: ${added} finding(s) newly accepted, ${baseline.size} in ${file}`);
}

export async function baselineAddCommand(id: string, opts: { reason?: string; baseline?: string }): Promise<void> {
  if (!isFindingId(id)) throw new UsageError(`expected a finding id (the hex "id" of a finding), got "${id}"`);
  const reason = opts.reason?.trim();
  if (!reason) throw new UsageError('--reason TEXT is required: say why this finding is acceptable');
  const file = opts.baseline ?? DEFAULT_BASELINE;
  const { existed, baseline } = acceptInBaseline(file, id, reason);
  printLine(`${existed ? 'updated' : 'accepted'} ${id} in ${file} (${baseline.size} accepted)`);
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
